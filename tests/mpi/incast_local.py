#!/usr/bin/env python3
"""fabcheck incast on 4 local ranks: report structure and hand-checkable relations; bad input exits 2."""
import json, os, subprocess, sys, tempfile

FAB = os.environ["FABCHECK"]
MPI = [os.environ.get("MPIEXEC", "mpirun")] + os.environ.get("MPI_FLAGS", "").split()


def run(np, args, timeout=90):
    cmd = MPI + ["-np", str(np), FAB, "incast"] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


tmp = tempfile.mkdtemp()
out = os.path.join(tmp, "incast.json")
p = run(4, ["--rounds", "3", "--victim-iters", "100", "--sizes", "64K,1M", "--json", out])
print(p.stdout)
if p.returncode != 0:
    fail(f"exit {p.returncode}: {p.stderr}")
doc = json.load(open(out))
if doc["schema_version"] != 1 or doc["run"]["sections"]["incast"]["status"] != "ok":
    fail("schema/section")
pts = doc["incast"]
# 4 local ranks: receiver rank0, victim rank3, senders rank1, rank2 -> k = 1, 2 for each of 2 sizes.
got = sorted((q["size_bytes"], q["fan_in"]) for q in pts)
if got != [(65536, 1), (65536, 2), (1048576, 1), (1048576, 2)]:
    fail(f"points {got}")
for q in pts:
    k = q["fan_in"]
    if q["receiver"] != doc["incast_meta"]["endpoints"][0]:
        fail("receiver is not rank 0's endpoint")
    if len(q["senders"]) != k or q["rounds"] != 3:
        fail("senders/rounds")
    if not (q["goodput_gbps"] > 0):
        fail("goodput")
    if not (1.0 / k - 1e-9 <= q["fairness"] <= 1.0 + 1e-9):
        fail(f"Jain index {q['fairness']} outside [1/k, 1]")
    if q["completion_p50_us"] > q["completion_p99_us"]:
        fail("p50 > p99")
    v = q["victim"]
    if v is None or v["host"] != doc["incast_meta"]["endpoints"][3] or v["isolated_samples"] != 100:
        fail(f"victim {v}")
    if not (0.0 <= v["overlap"] <= 1.0):
        fail("overlap")
    imp = q["congestion_impact"]
    if abs(imp["p50"] - v["congested_p50_us"] / v["isolated_p50_us"]) > 1e-9 * imp["p50"]:
        fail("impact p50 is not congested/isolated")
    one = [r for r in pts if r["size_bytes"] == q["size_bytes"] and r["fan_in"] == 1][0]
    eff = q["goodput_gbps"] / one["goodput_gbps"]
    if abs(q["incast_efficiency"] - eff) > 1e-9 * eff:
        fail("efficiency is not goodput(k)/goodput(1)")
    if abs(q["offered_load_gbps"] - k * one["goodput_gbps"]) > 1e-9 * k * one["goodput_gbps"]:
        fail("offered load")
if doc["incast_meta"]["fabric_crossed"] is not False or "fabric is not exercised" not in p.stdout:
    fail("one-host note missing")
if not any(f["code"] == "INCAST_NOT_FABRIC" for f in doc["findings"]):
    fail("INCAST_NOT_FABRIC finding missing")

# Bad input: exit 2, exactly one fabcheck stderr line, no report written.
for args, word in ([["--fan-in", "3"], "--fan-in"], [["--receiver", "nosuchhost"], "--receiver"],
                   [["--sizes", "0"], "--sizes"], [["--rounds", "0"], "--rounds"]):
    bad = os.path.join(tmp, "bad.json")
    q = run(4, args + ["--json", bad])
    lines = [l for l in q.stderr.splitlines() if l.startswith("fabcheck")]
    if q.returncode != 2 or len(lines) != 1 or word not in lines[0] or os.path.exists(bad):
        fail(f"bad input {args}: rc={q.returncode} stderr={q.stderr!r}")
q = run(1, [])
if q.returncode != 2 or "at least 2 ranks" not in q.stderr:
    fail(f"one rank: rc={q.returncode} {q.stderr!r}")
print("PASS")
