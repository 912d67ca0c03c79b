#!/usr/bin/env python3
"""fabcheck overlap on 4 local ranks: every (collective, size) point, its overlap recomputed from the
medians the report holds (OSU's definition, clamped), the polled variant, the run step; bad input exits 2."""
import os, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
from run_common import (dry_runs, expect_one_rank_refused, expect_usage_error, fail, load, run, run_json,  # noqa: E402
                        section_ok, write_json)


def clamp01(x):
    return min(1.0, max(0.0, x))


tmp = tempfile.mkdtemp()
out = os.path.join(tmp, "overlap.json")
p, doc = run_json(4, ["overlap", "--sizes", "64K,512K", "--iters", "4", "--poll-us", "50"], out)
section_ok(doc, "overlap")
ov = doc["overlap"]
if ov["nranks"] != 4 or ov["backend"] != "mpi" or ov["poll_us"] != 50 or ov["iters"] != 4:
    fail(f"header {ov}")
got = [(q["coll"], q["size_bytes"]) for q in ov["points"]]
want = [(c, s) for c in ("allreduce", "allgather", "reducescatter") for s in (65536, 524288)]
if got != want:
    fail(f"points {got}")
for q in ov["points"]:
    for key in ("t_comm_us", "t_compute_us", "t_both_us", "compute_during_us", "t_both_poll_us"):
        s = q[key]
        if s["samples"] != 4 or not (0 < s["min"] <= s["p50"] <= s["p99"] <= s["max"]):
            fail(f"{q['coll']} {q['size_bytes']} {key}: {s}")
    c, k, b, bp = (q[x]["p50"] for x in ("t_comm_us", "t_compute_us", "t_both_us", "t_both_poll_us"))
    if abs(q["overlap"] - clamp01(1 - (b - k) / c)) > 1e-12:
        fail(f"overlap {q['overlap']} is not clamp(1 - (t_both - t_compute)/t_comm) of the medians")
    if abs(q["overlap_poll"] - clamp01(1 - (bp - k) / c)) > 1e-12:
        fail("overlap_poll")
    cm, km, bm = (q[x]["mean"] for x in ("t_comm_us", "t_compute_us", "t_both_us"))
    if abs(q["overlap_mean"] - clamp01(1 - (bm - km) / cm)) > 1e-12:
        fail("overlap_mean")
    # Post, compute, wait can never be shorter than the compute inside it.
    if q["t_both_us"]["min"] < q["compute_during_us"]["min"] - 1e-6:
        fail("t_both shorter than its compute")
    if q["compute_units"] < 1 or q["compute_target_us"] <= 0 or q["test_us_mean"] < 0:
        fail("kernel sizing")
if "overlap = clamp(1 - (t_both - t_compute) / t_comm, 0, 1)" not in p.stdout:
    fail("console states the definition")

# --poll-us 0: only the variant without MPI calls.
q = run(4, ["overlap", "--coll", "allreduce", "--sizes", "64K", "--iters", "2", "--poll-us", "0", "--json", out])
doc = load(out)
pt = doc["overlap"]["points"]
if q.returncode not in (0, 1) or len(pt) != 1 or pt[0]["t_both_poll_us"] is not None or pt[0]["overlap_poll"] is not None:
    fail(f"--poll-us 0: rc={q.returncode} {pt}")

# The run step: a config with only an overlap section.
cfg = os.path.join(tmp, "cfg.json")
write_json(cfg, {"overlap": {"collectives": "allgather", "sizes": "128K", "iters": 2}})
q, doc = run_json(4, ["run", "--config", cfg], out, "run", codes=(0, 1))
section_ok(doc, "overlap")
if [x["coll"] for x in doc["overlap"]["points"]] != ["allgather"]:
    fail("run step")

# The default suite leaves overlap out (its 30 s budget) and says so; configs/extended.json has it.
d0, ext = dry_runs()
if "overlap  skipped: not in the config" not in d0.stdout or ext.returncode != 0 or "overlap  budget" not in ext.stdout:
    fail(f"dry runs: {d0.stdout!r} {ext.stdout!r} {ext.stderr!r}")

# Bad input: exit 2, exactly one fabcheck stderr line, no report written.
for args, word in ([["--coll", "broadcast"], "--coll"], [["--sizes", "0"], "--sizes"],
                   [["--iters", "0"], "--iters"], [["--poll-us", "-1"], "--poll-us"]):
    expect_usage_error(4, ["overlap"] + args, word, os.path.join(tmp, "bad.json"))
expect_one_rank_refused("overlap")
print("PASS")
