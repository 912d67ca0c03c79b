#!/usr/bin/env python3
"""Watchdog: rank 0's whole process stops (FABCHECK_TEST_FAULT=freeze:rank=0:after=3). Nobody can write the
report then, but the job must still end: every other rank hears rank 0's keepalives stop and leaves after
--timeout + kSilentS (5 + 3 s), with one stderr line (from one rank, not each) naming rank 0 and its host, and mpirun returns 3 (found by a
review: before, this job never ended). No process left."""
import os, socket, sys

sys.path.insert(0, os.path.dirname(__file__))
from run_common import *

marker = tmpdir()
rep = os.path.join(marker, "froot.json")
p, wall = mpirun(3, ["run", "--json", rep, "--timeout", "5", "-q"], env={"FABCHECK_TEST_FAULT": "freeze:rank=0:after=3"},
                 timeout=90, extra_mpi=["-x", "FABCHECK_TEST_FAULT"])
print(p.stderr[-1500:])
print(f"exit {p.returncode} after {wall:.1f} s")
if p.returncode != 3:
    fail(f"exit {p.returncode}, want 3")
if wall >= 30:
    fail(f"took {wall:.1f} s, want < 30 s (5 s timeout + 3 s silence + start-up)")
host = socket.gethostname().split(".")[0]
lines = [l for l in p.stderr.splitlines() if "rank 0 on host" in l and "stopped reporting" in l]
if len(lines) != 1 or host not in lines[0]:
    fail(f"want one line naming rank 0 on {host} (from one rank, not from each), got {len(lines)}: {p.stderr[-500:]!r}")
if not no_fabcheck_left(marker):
    fail("fabcheck processes left behind")
print("PASS")
