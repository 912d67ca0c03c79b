#!/usr/bin/env python3
"""Watchdog: rank 2's whole process stops (FABCHECK_TEST_FAULT=freeze:rank=2:after=3, a SIGSTOP to
itself, as a frozen or unreachable host would look) and `--timeout 5` -> exit 3 soon after 5 s (rank 0 leaves at once, mpirun kills the frozen rank), the
report names rank 2 and its host as silent (stopped reporting), one stderr line says so, no process left."""
import os, socket, sys

sys.path.insert(0, os.path.dirname(__file__))
from run_common import *

# --timeout 5 s, then rank 0 leaves at once and mpirun ends the job: < 25 s with start-up.
p, rep, doc = watchdog_run("freeze", "freeze:rank=2:after=3", 5, 25)
wd = doc["run"]["watchdog"]
host = socket.gethostname().split(".")[0]
if [s["rank"] for s in wd["silent"]] != [2] or wd["silent"][0]["host"] != host:
    fail(f"silent ranks {wd['silent']}, want rank 2 on {host}")
if wd["silent"][0]["silent_s"] < 3:
    fail(f"silent for {wd['silent'][0]['silent_s']} s, want >= 3")
if host not in wd["missing_hosts"]:
    fail(f"missing_hosts {wd['missing_hosts']}")
errs = [l for l in p.stderr.splitlines() if l.startswith("fabcheck: error: watchdog")]
if len(errs) != 1 or "rank 2" not in errs[0] or "stopped reporting" not in errs[0]:
    fail(f"stderr line: {errs}")
f = [f for f in doc["findings"] if f["code"] == "WATCHDOG_TIMEOUT"]
if not f or f[0]["severity"] != "fail" or f[0]["evidence"].get("host") != host:
    fail(f"WATCHDOG_TIMEOUT finding: {f}")
if not no_fabcheck_left(rep):
    fail("fabcheck processes left behind")
print("PASS")
