#!/usr/bin/env python3
"""nccl-tests' NCCL-only flags on the nccl backend over the CUDA/NCCL stand-ins (tests/standin), 2 local ranks.

Each flag gives the rows a plain run gives (size, count, type, redop, root: nccl-tests' geometry does not depend
on them) with #wrong 0 in both placements, exit 0, and what nccl-tests prints for it: -G N `graph: N` in the
preamble, -M 1 the `GPU memory usage` line, -C 1 the `cputime` column, -o mulsum the `mulsum` redop in every dtype.
Where the hardware or library lacks what a flag needs, one line naming the flag, exit 2, nothing written: fp8 on a
GPU below sm90 (the stand-in's CUDA_STANDIN_SM=80), -R 2 / -x 2 on an older NCCL (NCCL_STANDIN_VERSION). And -e
above what the smallest GPU holds is lowered as nccl-tests lowers it ("Reducing maxBytes").
"""
import json
import os
import subprocess
import sys
import tempfile

FAB = os.environ["FABCHECK"]
MPI = [os.environ.get("MPIEXEC", "mpirun")] + os.environ.get("MPI_FLAGS", "").split()
LIB = os.environ["STANDIN_LIB"]
BASE = ["sweep", "--backend", "nccl", "-n", "2", "-w", "1"]
SIZES = ["-b", "8", "-e", "64K", "-f", "8"]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(args, env=(), sizes=SIZES):
    tmp = tempfile.mkdtemp()
    out = os.path.join(tmp, "r.json")
    cmd = MPI + ["-np", "2", "-x", "LD_LIBRARY_PATH=" + LIB] + [x for e in env for x in ("-x", e)]
    cmd += [FAB] + BASE + sizes + args + ["--json", out]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return p, out


def rows(stdout):
    r = []
    for line in stdout.splitlines():
        t = line.split()
        if len(t) == 13 and t[0].isdigit():
            r.append(t)
    return r


def check(name, args, markers=(), redop=None, env=()):
    p, out = run(args, env)
    if p.returncode != 0:
        fail(f"{name}: exit {p.returncode}: {p.stderr[-2000:]}")
    got = rows(p.stdout)
    keys = [tuple(t[:5]) for t in got]
    want = [tuple(t[:5]) for t in PLAIN]
    if redop is not None:
        want = [k[:3] + (redop,) + k[4:] for k in want]
    if keys != want:
        fail(f"{name}: rows {keys} differ from the plain run's {want}")
    if any(t[8] != "0" or t[12] != "0" for t in got):
        fail(f"{name}: #wrong not 0: {got}")
    for m in markers:
        if m not in p.stdout:
            fail(f"{name}: output lacks {m!r}")
    doc = json.load(open(out))
    if any(q["wrong"] != 0 for b in doc["sweeps"] for q in b["points"]):
        fail(f"{name}: a JSON point with wrong != 0")
    print(f"ok {name}: {len(got)} rows as the plain run, #wrong 0")


def refused(name, args, env, want):
    p, out = run(args, env)
    lines = [l for l in p.stderr.splitlines() if l.startswith("fabcheck:")]
    if p.returncode != 2 or len(lines) != 1 or want not in lines[0]:
        fail(f"{name}: exit {p.returncode}, lines {lines} (want one with {want!r})")
    if os.path.exists(out):
        fail(f"{name}: wrote {out}")
    print(f"ok {name}: {lines[0]}")


p, _ = run([])
if p.returncode != 0:
    fail(f"plain: exit {p.returncode}: {p.stderr[-2000:]}")
PLAIN = rows(p.stdout)
if len(PLAIN) != 5:
    fail(f"plain: {len(PLAIN)} rows")
check("-G 4", ["-G", "4"], ["graph: 4"])
check("-R 1", ["-R", "1"])
check("-R 2", ["-R", "2"])
check("-R 2 -G 5", ["-R", "2", "-G", "5"], ["graph: 5"])
check("-M 1", ["-M", "1"], ["# GPU memory usage"])
for x in ("0", "1", "2"):
    check(f"-x {x}", ["-x", x])
check("-y 1", ["-y", "1"])
check("-C 1", ["-C", "1"], ["cputime"])
check("-z 1", ["-z", "1"])
check("-o mulsum", ["-o", "mulsum"], redop="mulsum")
# NCCL before 2.19: buffers from cudaMalloc instead of ncclMemAlloc (nccl-tests' AllocateBuffs)
check("NCCL 2.18", [], env=["NCCL_STANDIN_VERSION=21803"])
# mulsum in every dtype nccl-tests has, fp8 included on the stand-in's sm90
p, out = run(["-o", "mulsum", "-d", "int8,uint8,int32,uint32,int64,uint64,half,float,double,bfloat16,f8e4m3,f8e5m2"])
doc = json.load(open(out)) if p.returncode == 0 else fail(f"mulsum all dtypes: exit {p.returncode}: {p.stderr}")
dts = sorted({b["dtype"] for b in doc["sweeps"]})
if len(dts) != 12 or any(q["wrong"] != 0 for b in doc["sweeps"] for q in b["points"]):
    fail(f"mulsum all dtypes: {dts}, or #wrong != 0")
print(f"ok -o mulsum in 12 dtypes: {len(dts)} dtypes, #wrong 0")
# nccl-tests' memory cap on -e (common.cu run()): a 2100 MiB device leaves (2100 MiB - 1 GiB reserve - 1 GiB) / 3
p, out = run([], ["CUDA_STANDIN_MEM_MIB=2100"], sizes=["-b", "1M", "-e", "64M", "-f", "4"])
cap = (2100 * 2**20 - 2 * 2**30) // 3
note = f"# Reducing maxBytes to {cap} due to memory limitation"
if p.returncode != 0 or note not in p.stdout:
    fail(f"memory cap: exit {p.returncode}, want the line {note!r}: {p.stdout[:3000]} {p.stderr[-2000:]}")
doc = json.load(open(out))
sizes = sorted({q["size_bytes"] for b in doc["sweeps"] for q in b["points"]})
if doc.get("sweep_max_bytes_reduced_to") != cap or sizes != [1 << 20, 4 << 20, 16 << 20]:
    fail(f"memory cap: reduced_to {doc.get('sweep_max_bytes_reduced_to')}, sizes {sizes}")
print(f"ok memory cap: {note.strip('# ')}; sizes {sizes}")
refused("fp8 on sm80", ["-d", "f8e4m3"], ["CUDA_STANDIN_SM=80"], "sm90")
refused("-R 2 on NCCL 2.26", ["-R", "2"], ["NCCL_STANDIN_VERSION=22605"], "-R/--local_register 2")
refused("-x 2 on NCCL 2.27", ["-x", "2"], ["NCCL_STANDIN_VERSION=22703"], "-x/--cta_policy 2")
print("PASS")
