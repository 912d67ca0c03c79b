#!/usr/bin/env python3
"""fabcheck incast on 4 local ranks: report structure and hand-checkable relations; bad input exits 2."""
import os, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
from run_common import expect_one_rank_refused, expect_usage_error, fail, run_json, section_ok  # noqa: E402


tmp = tempfile.mkdtemp()
out = os.path.join(tmp, "incast.json")
p, doc = run_json(4, ["incast", "--rounds", "3", "--victim-iters", "100", "--sizes", "64K,1M"], out)
section_ok(doc, "incast")
if doc["schema_version"] != 1:
    fail("schema")
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
    expect_usage_error(4, ["incast"] + args, word, os.path.join(tmp, "bad.json"))
expect_one_rank_refused("incast")
print("PASS")
