#!/usr/bin/env python3
"""Watchdog on the standalone commands: `latency`, `incast` and `overlap` each on 3 ranks with rank 2's whole
process stopped (FABCHECK_TEST_FAULT=freeze:rank=2:after=3, a SIGSTOP to itself) and `-T 5` -> exit 3 within
25 s, one stderr line naming rank 2, the report written with status incomplete, no process left (before, one
frozen rank hung mpirun for ever: these commands had no watchdog). Then rank 0 frozen under `latency`: every
other rank leaves, and one line says so, not one per rank."""
import os, socket, sys

sys.path.insert(0, os.path.dirname(__file__))
from run_common import *

host = socket.gethostname().split(".")[0]
d = tmpdir()
for cmd in ["latency", "incast", "overlap"]:
    rep = os.path.join(d, f"{cmd}.json")
    p, wall = mpirun(3, [cmd, "--json", rep, "-T", "5"], env={"FABCHECK_TEST_FAULT": "freeze:rank=2:after=3"},
                     timeout=90, extra_mpi=["-x", "FABCHECK_TEST_FAULT"])
    errs = [l for l in p.stderr.splitlines() if l.startswith("fabcheck: error: watchdog")]
    print(f"{cmd}: exit {p.returncode} after {wall:.1f} s; {errs}")
    if p.returncode != 3:
        fail(f"{cmd}: exit {p.returncode}, want 3: {p.stderr[-800:]!r}")
    if wall >= 25:
        fail(f"{cmd}: took {wall:.1f} s, want < 25 s (5 s timeout + start-up)")
    if len(errs) != 1 or "rank 2" not in errs[0]:
        fail(f"{cmd}: want one watchdog line naming rank 2, got {errs}")
    if not no_fabcheck_left(rep):
        fail(f"{cmd}: fabcheck processes left behind")

rep = os.path.join(d, "root.json")
p, wall = mpirun(4, ["latency", "--json", rep, "-T", "5"], env={"FABCHECK_TEST_FAULT": "freeze:rank=0:after=3"},
                 timeout=90, extra_mpi=["-x", "FABCHECK_TEST_FAULT"])
lines = [l for l in p.stderr.splitlines() if "stopped reporting" in l]
print(f"latency, rank 0 frozen: exit {p.returncode} after {wall:.1f} s; {lines}")
if p.returncode != 3 or wall >= 30:
    fail(f"rank 0 frozen: exit {p.returncode} after {wall:.1f} s, want 3 within 30 s")
if len(lines) != 1 or host not in lines[0]:
    fail(f"rank 0 frozen: want one line naming rank 0 on {host}, got {len(lines)}: {lines}")
if not no_fabcheck_left(rep):
    fail("rank 0 frozen: fabcheck processes left behind")
print("PASS")
