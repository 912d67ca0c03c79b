#!/usr/bin/env python3
"""MPI tests of `fabcheck latency` on local ranks.

Usage: latency_test.py basic|duration|straggler|badinput
Environment (from fabcheck_script_test): FABCHECK, MPIEXEC, MPI_FLAGS.
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

FABCHECK = os.environ["FABCHECK"]
MPIEXEC = os.environ["MPIEXEC"]
MPI_FLAGS = shlex.split(os.environ.get("MPI_FLAGS", ""))
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what, file=sys.stderr)


def launch(n, args, env_extra=None, timeout=240):
    env = dict(os.environ)
    env.update(env_extra or {})
    cmd = [MPIEXEC, "-q", "-n", str(n)] + MPI_FLAGS + [FABCHECK, "latency"] + args
    print("+", " ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)


def hist_total(h):
    return sum(b[2] for b in h)


def check_sections(doc, want_pairs):
    """Histogram counts add up to the sample count in every section (and every pair)."""
    lat = doc["latency"]
    check(len(lat) > 0, "latency sections present")
    for s in lat:
        tag = f'{s["kind"]} {s["size_bytes"]} B'
        check(s["samples"] > 0, f"{tag}: samples > 0")
        check(hist_total(s["histogram"]) == s["samples"],
              f'{tag}: histogram total {hist_total(s["histogram"])} == samples {s["samples"]}')
        for b in s["histogram"]:
            check(b[0] < b[1] and b[2] > 0, f"{tag}: bucket {b} half-open and non-empty")
        check(s["p50_us"] <= s["p90_us"] <= s["p99_us"] <= s["p999_us"] <= s["max_us"], f"{tag}: percentiles ordered")
        check(isinstance(s["tail_ratio"], (int, float)), f"{tag}: tail_ratio is a number")
        ns = [c["n"] for c in s["tail_cost"]]
        check(64 in ns and 512 in ns and 4096 in ns, f"{tag}: tail_cost at 64, 512, 4096: {ns}")
        for c in s["tail_cost"]:
            check(c["expected_us"] >= s["p50_us"] * 0.5 and c["expected_us"] <= s["max_us"] + 1e-9,
                  f"{tag}: tail cost within the samples' range")
            check(c["low_confidence"] == (s["samples"] < 10 * c["n"]), f"{tag}: low_confidence rule at N={c['n']}")
        if s["kind"] == "p2p":
            check(len(s["per_pair"]) == want_pairs, f'{tag}: {len(s["per_pair"])} pairs, want {want_pairs}')
            check(sum(p["samples"] for p in s["per_pair"]) == s["samples"], f"{tag}: pair samples add up")
            check(s["passes"] >= 1 and isinstance(s["pin_cpus"], list), f'{tag}: passes {s.get("passes")}, pin_cpus')
            for p in s["per_pair"]:
                check(hist_total(p["histogram"]) == p["samples"], f'{tag} {p["pair"]}: pair histogram adds up')
        else:
            check(s["per_pair"] is None, f"{tag}: collective per_pair is null")
        share = sum(x["share"] for x in s["stragglers"])
        check(not s["stragglers"] or abs(share - 1.0) < 1e-9, f"{tag}: straggler shares sum to 1 ({share})")


def basic():
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "lat.json")
        r = launch(4, ["--pattern", "all-pairs", "--sizes", "8,4K", "--iters", "300", "--warmup", "20", "--json", out])
        print(r.stdout)
        print(r.stderr, file=sys.stderr)
        check(r.returncode == 0, f"exit 0 (got {r.returncode})")
        doc = json.load(open(out))
        check_sections(doc, want_pairs=6)  # all pairs of 4 local ranks
        kinds = sorted({(s["kind"], s["size_bytes"]) for s in doc["latency"]})
        check(kinds == [("collective", 8), ("collective", 4096), ("p2p", 8), ("p2p", 4096)], f"sections {kinds}")
        # 300 samples per pair taken in 10 passes (default); not pinned
        for s in doc["latency"]:
            if s["kind"] == "p2p":
                check(s["passes"] == 10 and s["pin_cpus"] == [], f'p2p passes {s["passes"]} pin {s["pin_cpus"]}')
        for s in doc["latency"]:
            want = 300 * (6 if s["kind"] == "p2p" else 1)
            check(s["samples"] == want, f'{s["kind"]} {s["size_bytes"]}: {s["samples"]} samples, want {want}')
            check(s["fabric_crossed"] is False, "one host: fabric_crossed false")
        codes = [f["code"] for f in doc["findings"]]
        check("LATENCY_FABRIC_NOT_CROSSED" in codes, "finding LATENCY_FABRIC_NOT_CROSSED")
        check(doc["run"]["sections"]["latency"]["status"] == "ok", "run.sections.latency ok")
        check(doc["topology"]["nranks"] == 4, "topology.nranks")
        check("the fabric was not crossed" in r.stdout, "console says the fabric was not crossed")
        check("at 512 ranks the tail makes each exchange" in r.stdout, "console has the tail sentence")
        check(" us |#" not in r.stdout, "no histogram without --verbose")
        v = launch(4, ["--pattern", "ring", "--sizes", "8", "--iters", "200", "--verbose"])
        check(v.returncode == 0, f"--verbose: exit {v.returncode}")
        check(" us |#" in v.stdout, "--verbose: console has an ASCII histogram")


def duration():
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "lat.json")
        r = launch(2, ["--sizes", "8", "--duration", "0.3", "--json", out])
        print(r.stdout)
        check(r.returncode == 0, f"exit 0 (got {r.returncode})")
        doc = json.load(open(out))
        check_sections(doc, want_pairs=1)
        for s in doc["latency"]:
            # 0.3 s of iterations: more than a handful, and the run stopped (no cap reached).
            check(s["samples"] >= 20, f'{s["kind"]}: {s["samples"]} samples in 0.3 s')


def straggler():
    """Rank 2 enters 100 ms late every 50th iteration: it owns the tail of both kinds."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "lat.json")
        r = launch(4, ["--sizes", "8", "--iters", "400", "--warmup", "20", "--json", out],
                   env_extra={"FABCHECK_TEST_FAULT": "delay:rank=2:us=100000:every=50"})
        print(r.stdout)
        check(r.returncode == 0, f"exit 0 (got {r.returncode})")
        doc = json.load(open(out))
        check_sections(doc, want_pairs=4)  # ring of 4 local ranks
        for s in doc["latency"]:
            top = s["stragglers"][0] if s["stragglers"] else None
            check(top is not None, f'{s["kind"]}: straggler ranking not empty')
            if top is None:
                continue
            if s["kind"] == "p2p":
                check(2 in top["ranks"], f'p2p: top straggler pair {top["pair"]} contains rank 2')
            else:
                check(top["rank"] == 2, f'collective: top straggler rank {top["rank"]} is 2')
            check(s["spikes"]["count"] >= 8, f'{s["kind"]}: spikes counted ({s["spikes"]["count"]})')


def badinput():
    cases = [
        (2, ["--sizes", ""], "--sizes"),
        (2, ["--sizes", "8,4Q"], "--sizes"),
        (2, ["--sizes", "8,,64K"], "--sizes"),
        (2, ["--iters", "0"], "--iters"),
        (2, ["--iters", "-3"], "--iters"),
        (2, ["--sizes", "8", "--sweep"], "--sweep"),
        (1, ["--iters", "10"], "2 ranks"),
        (2, ["--passes", "0"], "--passes"),
        (2, ["--pin-cpus", "0,4096"], "--pin-cpus"),
        (2, ["--pin-cpus", "1023"], "--pin-cpus"),  # a CPU number no rank here may run on (checked by every rank)
    ]
    with tempfile.TemporaryDirectory() as d, ThreadPoolExecutor(max_workers=3) as pool:
        out = os.path.join(d, "never.json")
        # Independent refusals, nothing timed: three launches at a time, checked in order.
        runs = pool.map(lambda c: launch(c[0], c[1] + ["--json", out], timeout=60), cases)
        for (n, args, needle), r in zip(cases, runs):
            lines = [l for l in r.stderr.splitlines() if l.strip()]
            tag = f"np {n} {args}"
            check(r.returncode == 2, f"{tag}: exit 2 (got {r.returncode})")
            check(len(lines) == 1, f"{tag}: one stderr line, got {lines}")
            check(bool(lines) and lines[0].startswith("fabcheck: error:") and needle in lines[0],
                  f"{tag}: line names {needle}: {lines}")
            check(r.stdout.strip() == "", f"{tag}: nothing on stdout")
            check(not os.path.exists(out), f"{tag}: no report written")


if __name__ == "__main__":
    {"basic": basic, "duration": duration, "straggler": straggler, "badinput": badinput}[sys.argv[1]]()
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("ok")
