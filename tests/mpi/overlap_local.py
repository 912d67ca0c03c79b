#!/usr/bin/env python3
"""fabcheck overlap on 4 local ranks: every (collective, size) point, its overlap recomputed from the
medians the report holds (OSU's definition, clamped), the polled variant, the run step; bad input exits 2."""
import json, os, subprocess, sys, tempfile

FAB = os.environ["FABCHECK"]
MPI = [os.environ.get("MPIEXEC", "mpirun")] + os.environ.get("MPI_FLAGS", "").split()


def run(np, args, timeout=120):
    return subprocess.run(MPI + ["-np", str(np), FAB] + args, capture_output=True, text=True, timeout=timeout)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def clamp01(x):
    return min(1.0, max(0.0, x))


tmp = tempfile.mkdtemp()
out = os.path.join(tmp, "overlap.json")
p = run(4, ["overlap", "--sizes", "64K,512K", "--iters", "4", "--poll-us", "50", "--json", out])
print(p.stdout)
if p.returncode != 0:
    fail(f"exit {p.returncode}: {p.stderr}")
doc = json.load(open(out))
if doc["run"]["sections"]["overlap"]["status"] != "ok":
    fail("section status")
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
doc = json.load(open(out))
pt = doc["overlap"]["points"]
if q.returncode not in (0, 1) or len(pt) != 1 or pt[0]["t_both_poll_us"] is not None or pt[0]["overlap_poll"] is not None:
    fail(f"--poll-us 0: rc={q.returncode} {pt}")

# The run step: a config with only an overlap section.
cfg = os.path.join(tmp, "cfg.json")
json.dump({"overlap": {"collectives": "allgather", "sizes": "128K", "iters": 2}}, open(cfg, "w"))
q = run(4, ["run", "--config", cfg, "--json", out])
if q.returncode not in (0, 1):
    fail(f"run: rc={q.returncode} {q.stderr}")
doc = json.load(open(out))
if doc["run"]["sections"]["overlap"]["status"] != "ok" or [x["coll"] for x in doc["overlap"]["points"]] != ["allgather"]:
    fail("run step")

# The default suite leaves overlap out (its 30 s budget) and says so; configs/extended.json has it.
src = os.environ["FABCHECK_SOURCE_DIR"]
d0 = subprocess.run([FAB, "run", "--dry-run"], capture_output=True, text=True, timeout=60)
ext = subprocess.run([FAB, "run", "--dry-run", "--config", os.path.join(src, "configs", "extended.json")],
                     capture_output=True, text=True, timeout=60)
if "overlap  skipped: not in the config" not in d0.stdout or ext.returncode != 0 or "overlap  budget" not in ext.stdout:
    fail(f"dry runs: {d0.stdout!r} {ext.stdout!r} {ext.stderr!r}")

# Bad input: exit 2, exactly one fabcheck stderr line, no report written.
for args, word in ([["--coll", "broadcast"], "--coll"], [["--sizes", "0"], "--sizes"],
                   [["--iters", "0"], "--iters"], [["--poll-us", "-1"], "--poll-us"]):
    bad = os.path.join(tmp, "bad.json")
    r = run(4, ["overlap"] + args + ["--json", bad])
    lines = [l for l in r.stderr.splitlines() if l.startswith("fabcheck")]
    if r.returncode != 2 or len(lines) != 1 or word not in lines[0] or os.path.exists(bad):
        fail(f"bad input {args}: rc={r.returncode} stderr={r.stderr!r}")
r = run(1, ["overlap"])
if r.returncode != 2 or "at least 2 ranks" not in r.stderr:
    fail(f"one rank: rc={r.returncode} {r.stderr!r}")
print("PASS")
