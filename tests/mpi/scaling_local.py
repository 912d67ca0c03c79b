#!/usr/bin/env python3
"""fabcheck scaling on 2 and 4 local ranks: report structure, the score recomputed by hand from the report's own
allreduce sweep (DESIGN §5), groups divided by the 2-rank value; bad input exits 2 with one line and no file."""
import math, os, re, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
from run_common import fail, run, run_json, section_ok, write_json  # noqa: E402


def loglog(pts, s):
    """Time at size s from sorted (size, time) points: exact, or log-log interpolation (s inside the range)."""
    for (s0, t0), (s1, t1) in zip(pts, pts[1:]):
        if s0 <= s <= s1:
            if s == s0:
                return t0
            if s == s1:
                return t1
            f = (math.log(s) - math.log(s0)) / (math.log(s1) - math.log(s0))
            return math.exp(math.log(t0) + f * (math.log(t1) - math.log(t0)))
    fail(f"size {s} outside the measured range")


tmp = tempfile.mkdtemp()
# A profile whose buckets fall inside the swept range (64K..1M): 1e5 params x 4 B = 400000 B in 256K buckets.
wl = os.path.join(tmp, "wl.json")
write_json(wl, {"workloads": [{
    "name": "tiny", "parallelism": {"value": "ddp", "why": "test"}, "parameters": {"value": 1e5, "why": "test"},
    "bytes_per_grad": {"value": 4, "why": "test"}, "bucket_bytes": {"value": "256K", "why": "test"},
    "compute_s": {"value": 0.002, "why": "test"}, "overlap": {"value": 0.5, "why": "test"}}]})

for np in (2, 4):
    out = os.path.join(tmp, f"scaling{np}.json")
    p, doc = run_json(np, ["scaling", "-b", "64K", "-e", "1M", "--coll", "allreduce", "-n", "5", "--workloads", wl],
                      out, f"np {np}")
    section_ok(doc, "scaling")
    groups = doc["scaling"]["groups"]
    want = [2] if np == 2 else [2, 4]
    if [g["nranks"] for g in groups] != want:
        fail(f"groups {[g['nranks'] for g in groups]} != {want}")
    if not all(g["intra_node_only"] for g in groups) or doc["scaling"]["intra_node_only"] is not True:
        fail("one host: groups must be intra_node_only")
    for g in groups:
        if g["size_bytes"] != 1048576 or not g["busbw_gbps"] > 0:
            fail(f"group {g}")
        if abs(g["vs_2host"] - g["busbw_gbps"] / groups[0]["busbw_gbps"]) > 1e-12:
            fail("vs_2host is not busbw / busbw(2)")
    # The score by hand from the report's own allreduce curve (out-of-place times).
    sw = [s for s in doc["sweeps"] if s["collective"] == "allreduce"][0]
    pts = sorted((q["size_bytes"], q["time_us"]) for q in sw["points"] if q["placement"] == "out_of_place")
    grad = 400000
    bucket = 262144
    t_b = loglog(pts, bucket) * 1e-6
    t_r = loglog(pts, grad - bucket) * 1e-6
    t_comm = t_b + t_r
    exposed = max(t_b, t_comm - 0.5 * 0.002)
    eff = 0.002 / (0.002 + exposed)
    sc = doc["score"]
    if sc["workload"] != "tiny" or not isinstance(sc["scaling_efficiency"], float):
        fail(f"score {sc}")
    if abs(sc["scaling_efficiency"] - eff) > 1e-9 * eff:
        fail(f"score {sc['scaling_efficiency']} != hand {eff}")
    if abs(sc["inputs"]["t_comm_s"] - t_comm) > 1e-9 * t_comm or abs(sc["inputs"]["exposed_s"] - exposed) > 1e-9:
        fail("score inputs")
    if sc["inputs"]["t_compute_s"] != 0.002 or sc["inputs"]["overlap"] != 0.5 or not sc["assumptions"]:
        fail("inputs/assumptions")
    if not sc["inputs"]["curve_points"] or sc["intra_node_only"] is not True:
        fail("curve points / intra_node_only")
    m = re.search(r"^For tiny on 1 host this fabric delivers ([0-9.]+) % of ideal scaling; communication exposes "
                  r"([0-9.]+) ms per step\.$", p.stdout, re.M)
    if not m or abs(float(m.group(1)) - eff * 100) > 0.051:
        fail("console sentence")
    if len(doc["scaling"]["projection"]) != 3 or doc["scaling"]["projection"][0]["label"] != \
            "ring model, upper bound on latency terms":
        fail("projection")

# Bad input: one stderr line, exit 2, no report.
for args in (["--workload", "no-such"], ["--workloads", wl, "--workload", "llama-7b-ddp-bf16"],
             ["--coll", "alltoall"]):
    bad = os.path.join(tmp, "bad.json")
    p = run(2, ["scaling", "-b", "64K", "-e", "64K"] + args + ["--json", bad])
    lines = [l for l in p.stderr.splitlines() if l.startswith("fabcheck")]
    if p.returncode != 2 or len(lines) != 1 or os.path.exists(bad):
        fail(f"bad input {args}: exit {p.returncode}, stderr {p.stderr!r}")
print("OK")
