#!/usr/bin/env python3
"""Watchdog: rank 2 stops itself at its 3rd operation (FABCHECK_TEST_FAULT=hang:rank=2:after=3) and `--timeout 5`
-> exit 3 within 15 s, report status incomplete naming the operation and rank 2's host, finished sections intact,
no process left."""
import os, socket, sys

sys.path.insert(0, os.path.dirname(__file__))
from run_common import *

p, rep, doc = watchdog_run("hang", "hang:rank=2:after=3", 5, 15)
run = doc["run"]
if run["status"] != "incomplete" or run["exit_code"] != 3:
    fail(f"status {run['status']} exit_code {run['exit_code']}")
wd = run["watchdog"]
host = socket.gethostname().split(".")[0]
if not wd["operation"]:
    fail("operation not named")
# The watchdog's arrival table travels a TCP side channel, MPI stays at MPI_THREAD_SINGLE.
if wd["arrival_table"] is not True or run.get("mpi_thread_level") != "single":
    fail(f"arrival_table {wd['arrival_table']}, mpi_thread_level {run.get('mpi_thread_level')}")
if [m["rank"] for m in wd["missing"]] != [2] or wd["missing"][0]["host"] != host or wd["missing_hosts"] != [host]:
    fail(f"missing ranks/hosts {wd['missing']}")
errs = [l for l in p.stderr.splitlines() if l.startswith("fabcheck: error: watchdog")]
if len(errs) != 1 or "rank 2" not in errs[0] or wd["operation"] not in errs[0]:
    fail(f"stderr line: {errs}")
if not any(f["code"] == "WATCHDOG_TIMEOUT" and f["severity"] == "fail" for f in doc["findings"]):
    fail("no WATCHDOG_TIMEOUT finding")
# Exactly one section failed (the one running), every one before it kept its outcome and data; the rest not reached.
secs = run["sections"]
order = [s for s in SECTIONS if s in secs]
failed = [s for s in order if secs[s]["status"] == "failed"]
if len(failed) != 1 or "watchdog" not in secs[failed[0]]["reason"]:
    fail(f"failed sections {failed}: {secs}")
i = order.index(failed[0])
for s in order[:i]:
    if secs[s]["status"] == "ok" and doc.get(s) is None:
        fail(f"finished section {s} lost its data")
    if "not reached" in (secs[s]["reason"] or ""):
        fail(f"section {s} before the hang marked not reached")
for s in order[i + 1:]:
    if secs[s]["status"] != "skipped":
        fail(f"section {s} after the hang: {secs[s]}")
if not no_fabcheck_left(rep):
    fail("fabcheck processes left behind")
print("PASS")
