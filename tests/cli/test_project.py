#!/usr/bin/env python3
"""`fabcheck project` reproduces the scaling model's worked example below and refuses bad input with one line, exit 2.

Worked example, by hand (also in tests/unit/analysis/test_scaling_model.cpp):
  alpha = 20 us, beta = busBw = 10 GB/s, n = 8 ranks (8 hosts x 1), ring allreduce
  DDP: 7e9 parameters x 2 B = 14e9 B in 25 MiB buckets: 534 full + 1 of 1 510 400 B
  t(25 MiB) = 14*20 us + 1.75*26214400/1e10 s = 4867.52 us; t(rem) = 280 + 264.32 = 544.32 us
  t_comm = 534*4867.52 us + 544.32 us = 2.5998 s
  exposed = max(4.86752 ms, 2.5998 - 0.8*1.0) = 1.7998 s  -> 1.80
  efficiency = 1/(1 + 1.7998) = 0.357168...              -> 0.357
"""
import json
import os
import re
import subprocess
import sys
import tempfile

FABCHECK = os.environ["FABCHECK"]
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


def run(args):
    return subprocess.run([FABCHECK, "project"] + args, capture_output=True, text=True, timeout=30)


def sig3(x):
    return float(f"{x:.3g}")


with tempfile.TemporaryDirectory() as tmp:
    out_json = os.path.join(tmp, "project.json")
    base = ["--busbw", "10", "--hosts", "8", "--alpha-us", "20", "--workload", "llama-7b-ddp-bf16",
            "--compute-s", "1.0", "--overlap", "0.8"]
    r = run(base + ["--json", out_json])
    print(r.stdout)
    check(r.returncode == 0, f"worked example exit code {r.returncode}: {r.stderr}")
    m = re.search(r"t_comm_s ([0-9.]+) .*exposed_s ([0-9.]+)\s+efficiency ([0-9.]+)", r.stdout)
    check(m is not None, "no t_comm_s/exposed_s/efficiency line")
    if m:
        t_comm, exposed, eff = (float(g) for g in m.groups())
        check(abs(t_comm - 2.5998) < 1e-6, f"t_comm_s {t_comm} != 2.5998")
        check(sig3(exposed) == 1.80, f"exposed_s {exposed} is not 1.80 to 3 significant digits")
        check(sig3(eff) == 0.357, f"efficiency {eff} is not 0.357 to 3 significant digits")
    s = re.search(r"^For llama-7b-ddp-bf16 on 8 hosts .* delivers ([0-9.]+) % of ideal scaling; "
                  r"communication exposes ([0-9.]+) ms per step\.$", r.stdout, re.M)
    check(s is not None, "score sentence missing")
    if s:
        check(s.group(1) == "35.7", f"sentence efficiency {s.group(1)}")
        check(s.group(2) == "1799.8", f"sentence exposed {s.group(2)}")
    check("ring model, upper bound on latency terms" in r.stdout, "projection label missing")
    with open(out_json) as f:
        doc = json.load(f)
    res = doc["project"]["result"]
    check(abs(res["efficiency"] - 1 / 2.7998) < 1e-9, f"JSON efficiency {res['efficiency']}")
    check(abs(res["exposed_s"] - 1.7998) < 1e-9, f"JSON exposed_s {res['exposed_s']}")
    check(abs(res["t_last_bucket_s"] - 0.00486752) < 1e-12, f"JSON t_last_bucket_s {res['t_last_bucket_s']}")
    check(res["buckets"] == 535, f"JSON buckets {res['buckets']}")
    check([p["hosts_factor"] for p in doc["project"]["projection"]] == [2, 4, 8],
          "projection factors")
    check(all(p["label"] == "ring model, upper bound on latency terms" for p in doc["project"]["projection"]),
          "projection label in JSON")
    check(any(a.startswith("overlap = 0.8") for a in doc["project"]["assumptions"]), "overlap override not listed")

    # Bad input: one stderr line, exit 2, no file written.
    bad_cases = [
        ["--busbw", "10", "--hosts", "8", "--workload", "no-such-workload"],
        ["--busbw", "10", "--hosts", "8", "--compute-s", "0"],
        ["--busbw", "10", "--hosts", "8", "--compute-s", "-1"],
        ["--busbw", "10", "--hosts", "8", "--overlap", "1.5"],
        ["--busbw", "10", "--hosts", "8", "--overlap", "-0.2"],
        ["--busbw", "0", "--hosts", "8"],
        ["--busbw", "10", "--hosts", "1"],
    ]
    wl_file = os.path.join(tmp, "bad_workloads.json")
    with open(wl_file, "w") as f:
        json.dump({"workloads": [{
            "name": "neg", "parallelism": {"value": "ddp", "why": "t"}, "parameters": {"value": 1e6, "why": "t"},
            "bytes_per_grad": {"value": 4, "why": "t"}, "bucket_bytes": {"value": "1M", "why": "t"},
            "compute_s": {"value": -0.5, "why": "t"}, "overlap": {"value": 0.5, "why": "t"}}]}, f)
    bad_cases.append(["--busbw", "10", "--hosts", "8", "--workloads", wl_file])

    # Pipeline parallel: the worked example of tests/unit/analysis/test_pipeline.cpp, p = 4, m = 8,
    # t_f = 10 ms, t_b = 20 ms, one hop 1000 us: bubble 96 / 336 = 2/7, efficiency 240 / 336 = 5/7.
    pp_file = os.path.join(os.environ["FABCHECK_TEST_DATA"], "workloads", "pp_worked_example.json")
    pp_json = os.path.join(tmp, "pp.json")
    r = run(["--busbw", "10", "--hosts", "4", "--workloads", pp_file, "--p2p-us", "1000", "--json", pp_json])
    check(r.returncode == 0, f"pp: exit {r.returncode}: {r.stderr}")
    res = json.load(open(pp_json))["project"]["result"]
    check(abs(res["efficiency"] - 5 / 7) < 1e-9, f"pp efficiency {res['efficiency']}, want 5/7")
    pl = res["pipeline"]
    check(abs(pl["bubble_fraction_1f1b"] - 2 / 7) < 1e-9 and abs(pl["bubble_fraction_gpipe"] - 2 / 7) < 1e-9,
          f"pp bubble {pl}")
    check(pl["p2p_source"] == "--p2p-us" and pl["p2p_us"] == 1000, f"pp hop {pl}")
    check("bubble_1f1b 0.285714" in r.stdout and "efficiency 0.714286" in r.stdout, f"pp console: {r.stdout}")
    # Without --p2p-us the hop is alpha + S/busBw: 2 MiB at 10 GB/s = 209.7152 us (alpha 0):
    # bubble = 3 x (30 + 0.4194304) ms / (240 + 91.2582912) ms.
    r = run(["--busbw", "10", "--hosts", "4", "--workloads", pp_file, "--json", pp_json])
    pl = json.load(open(pp_json))["project"]["result"]["pipeline"]
    want = 3 * (0.030 + 2 * 209.7152e-6) / (0.240 + 3 * (0.030 + 2 * 209.7152e-6))
    check(abs(pl["p2p_us"] - 209.7152) < 1e-9 and abs(pl["bubble_fraction_1f1b"] - want) < 1e-12,
          f"pp from busBw: {pl}, want bubble {want}")
    bad_cases.append(["--busbw", "10", "--hosts", "4", "--workloads", pp_file, "--p2p-us", "-1"])
    bad_cases.append(["--busbw", "10", "--hosts", "4", "--workloads", pp_file, "--overlap", "0.5"])
    bad_cases.append(["--busbw", "10", "--hosts", "8", "--p2p-us", "100"])  # ddp: no hop time
    for args in bad_cases:
        bad_json = os.path.join(tmp, "bad.json")
        r = run(args + ["--json", bad_json])
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        check(r.returncode == 2, f"{args}: exit {r.returncode}, expected 2")
        check(len(lines) == 1, f"{args}: {len(lines)} stderr lines: {r.stderr!r}")
        check(not os.path.exists(bad_json), f"{args}: a JSON file was written")
        check(r.stdout == "", f"{args}: printed on stdout: {r.stdout!r}")

print("FAILED" if failures else "OK", len(failures))
sys.exit(1 if failures else 0)
