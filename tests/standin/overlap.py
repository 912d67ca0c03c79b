#!/usr/bin/env python3
"""`fabcheck overlap --backend nccl` on 2 local ranks over the CUDA/NCCL stand-ins: the GPU-kernel path runs —
the PTX is loaded (cudaLibraryLoadData/GetKernel), launched on its own stream beside NCCL's, timed by cudaEvents —
and the report holds every point with the kernel's device time, overlap recomputed from the medians it reports.
The figures themselves are the stand-in's (a CPU), printed, not asserted."""
import json
import os
import subprocess
import sys
import tempfile

out = os.path.join(tempfile.mkdtemp(), "ov.json")
cmd = [os.environ.get("MPIEXEC", "mpirun")] + os.environ.get("MPI_FLAGS", "").split() + [
    "-np", "2", "-x", "LD_LIBRARY_PATH=" + os.environ["STANDIN_LIB"], os.environ["FABCHECK"], "overlap", "--backend",
    "nccl", "--sizes", "64K,1M", "--iters", "4", "--json", out]
p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
print(p.stdout)
if p.returncode != 0:
    print("FAIL: exit", p.returncode, p.stderr)
    sys.exit(1)
o = json.load(open(out))["overlap"]
assert o["backend"] == "nccl" and o["nranks"] == 2, o
assert o["compute_kernel"].startswith("CUDA kernel on CUDA stand-in"), o["compute_kernel"]
assert o["library_version"].startswith("NCCL 2."), o["library_version"]
pts = [(q["coll"], q["size_bytes"]) for q in o["points"]]
assert pts == [(c, s) for c in ("allreduce", "allgather", "reducescatter") for s in (65536, 1048576)], pts
cl = lambda x: min(1.0, max(0.0, x))
for q in o["points"]:
    for k in ("t_comm_us", "t_compute_us", "t_both_us", "t_compute_device_us", "compute_during_us"):
        s = q[k]
        assert s["samples"] == 4 and 0 < s["min"] <= s["p50"] <= s["max"], (q["coll"], k, s)
    assert q["compute_units"] >= 1 and q["t_both_poll_us"] is None, q  # no polled variant on nccl
    c, m, b = (q[k]["p50"] for k in ("t_comm_us", "t_compute_us", "t_both_us"))
    assert abs(q["overlap"] - cl(1 - (b - m) / c)) < 1e-12, q
    assert abs(q["compute_slowdown"] - q["compute_during_us"]["p50"] / q["t_compute_device_us"]["p50"]) < 1e-9, q
print("PASS")
