#!/usr/bin/env python3
"""SIGKILL of one rank mid-run -> mpirun exits non-zero, and the report on disk parses with status incomplete and
the sections finished before the kill."""
import json, os, signal, subprocess, sys, time

sys.path.insert(0, os.path.dirname(__file__))
from run_common import *

d = tmpdir()
rep = os.path.join(d, "kill.json")
cmd = MPI + ["-np", "4", FAB, "run", "--json", rep, "-q"]
t0 = time.time()
mp = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finished_sections():
    try:
        doc = load(rep)
    except (OSError, json.JSONDecodeError):
        return []
    return [s for s, e in doc["run"]["sections"].items()
            if e.get("elapsed_s") is not None and e["status"] == "ok"]


def rank_pid(rank):
    for pid, cl, env in processes():
        if rep.encode() in cl and f"OMPI_COMM_WORLD_RANK={rank}".encode() in env.split(b"\0"):
            return pid
    return None


# Wait until at least one section finished with data, then kill rank 1 while the next one runs.
while time.time() - t0 < 200 and mp.poll() is None and not finished_sections():
    time.sleep(0.2)
done_before = finished_sections()
if mp.poll() is not None or not done_before:
    mp.kill()
    fail(f"run ended (exit {mp.poll()}) before a section finished: {mp.communicate()[1][-2000:]}")
pid = rank_pid(1)
if pid is None:
    mp.kill()
    fail("rank 1 not found")
os.kill(pid, signal.SIGKILL)
print(f"killed rank 1 (pid {pid}) at {time.time() - t0:.1f} s; finished before: {done_before}")
try:
    out, err = mp.communicate(timeout=120)
except subprocess.TimeoutExpired:
    mp.kill()
    fail("mpirun did not exit within 120 s of the kill")
print(err[-1500:])
print(f"mpirun exit {mp.returncode} after {time.time() - t0:.1f} s")
if mp.returncode == 0:
    fail("mpirun exited 0 after a rank was killed")
doc = load(rep)
if doc["run"]["status"] != "incomplete":
    fail(f"status {doc['run']['status']}")
for s in done_before:
    if doc["run"]["sections"][s]["status"] != "ok" or doc.get(s) is None:
        fail(f"section {s} finished before the kill is not intact")
time.sleep(1)
if not no_fabcheck_left(rep):
    fail("fabcheck processes left behind")
print("PASS")
