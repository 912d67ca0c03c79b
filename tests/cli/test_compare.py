#!/usr/bin/env python3
"""`fabcheck compare` end to end on small synthetic reports: verdicts in console, JSON and HTML; bad input -> exit 2
with one stderr line and nothing written. Env: FABCHECK."""
import json
import os
import subprocess
import sys
import tempfile

FAB = os.environ["FABCHECK"]
tmp = tempfile.mkdtemp()
failures = []


def check(cond, msg):
    print(("ok:   " if cond else "FAIL: ") + msg)
    if not cond:
        failures.append(msg)


def point(size, placement, t_us, base_us, n=25):
    algbw = size / 1e3 / t_us
    return {"size_bytes": size, "count": size // 4, "placement": placement, "time_us": t_us,
            "algbw_gbps": algbw, "busbw_gbps": algbw * 1.5, "wrong": 0,
            "per_iter": {"samples": n, "p50_us": base_us, "p99_us": base_us * 1.1,
                         "samples_us": [base_us * (1 + k / 200) for k in range(n)]}}


def report(points, extra=None):
    d = {"schema_version": 1, "tool": {"name": "fabcheck", "version": "test"},
         "run": {"started": "2026-12-01T00:00:00Z"}, "topology": {"nranks": 4, "hosts": [{}, {}, {}, {}]},
         "sweeps": [{"collective": "allreduce", "dtype": "float", "redop": "sum", "root": None,
                     "avg_busbw_gbps": 1.0, "points": points}]}
    d.update(extra or {})
    return d


def write(name, obj):
    p = os.path.join(tmp, name)
    with open(p, "w") as f:
        f.write(obj if isinstance(obj, str) else json.dumps(obj))
    return p


def run(*args):
    return subprocess.run([FAB, "compare", *args], capture_output=True, text=True, timeout=30)


# A: 64 KiB and 1 MiB; B: 1 MiB twice as slow (samples too), 64 KiB identical.
a = write("a.json", report([point(65536, "out_of_place", 100, 100), point(1 << 20, "out_of_place", 1000, 1000)]))
b = write("b.json", report([point(65536, "out_of_place", 100, 100), point(1 << 20, "out_of_place", 2000, 2000)]))
out_json, out_html = os.path.join(tmp, "c.json"), os.path.join(tmp, "c.html")
r = run(a, b, "--label", "roce", "--label", "ib", "--json", out_json, "--html", out_html)
print(r.stdout)
check(r.returncode == 0, f"compare exits 0 (got {r.returncode}, stderr {r.stderr.strip()!r})")
rows = [l for l in r.stdout.splitlines() if l.startswith("sweeps")]
bw1m = [l for l in rows if "1MiB" in l and "busbw_gbps" in l]
check(len(bw1m) == 1 and bw1m[0].rstrip().endswith("ib worse") and "-50.0" in bw1m[0],
      f"console: 1 MiB busbw row says -50.0 and 'ib worse': {bw1m}")
bw64 = [l for l in rows if "64KiB" in l and "busbw_gbps" in l]
check(len(bw64) == 1 and bw64[0].rstrip().endswith("within noise"), f"console: 64 KiB busbw within noise: {bw64}")
avg = [l for l in rows if "avg_busbw_gbps" in l]
check(len(avg) == 1 and avg[0].rstrip().endswith("noise unknown"), f"console: avg_busbw_gbps noise unknown: {avg}")
d = json.load(open(out_json))
check(d["schema_version"] == 1 and d["run"]["status"] == "complete" and d["run"]["exit_code"] == 0,
      "JSON: versioned report, run complete")
c = d["compare"]
check(c["a"]["label"] == "roce" and c["b"]["label"] == "ib" and c["a"]["path"] == a, "JSON: sides with labels")
check(c["rule"]["alpha"] == 0.01 and c["rule"]["min_delta_pct"] == 10, "JSON: rule alpha 0.01, 10 %")
s = c["summary"]
check(s["worse"] == 5 and s["better"] == 0 and s["noise_unknown"] == 1 and s["tests"] == 2,
      f"JSON: summary 5 worse (1 MiB: time, algbw, busbw, p50, p99), 1 noise unknown, 2 tests: {s}")
m = [x for x in c["metrics"] if x["metric"] == "busbw_gbps" and x["key"]["size_bytes"] == 1 << 20][0]
check(m["verdict"] == "worse" and m["better"] == "a" and m["method"] == "exact" and m["n_a"] == 25
      and m["p_holm"] < 1e-10 and abs(m["delta_pct"] + 50) < 1e-9, f"JSON: 1 MiB busbw row {m}")
check(any(f["code"] == "COMPARE_B_WORSE" for f in d["findings"]), "JSON: COMPARE_B_WORSE finding")
html = open(out_html).read()
# Self-contained: no script, no external reference (the inline SVGs' xmlns is a name, not a fetch).
bare = html.replace("http://www.w3.org/2000/svg", "")
check(html.startswith("<!DOCTYPE html>") and "<script" not in html and "http" not in bare
      and html.count("<tr class=\"worse\">") == 5, "HTML: self-contained page, 5 worse rows")
check(html.find('<figure class="curve"') < html.find('id="regressions"') < html.find('<details id="all">'),
      "HTML: busBw curves, then the top regressions, then the collapsed table")

# Default labels A/B, no files written.
r = run(a, b)
check(r.returncode == 0 and "B worse" in r.stdout, "default labels A and B")

# Several runs per side (comma-separated): B's second run drifted 25 % slower at 1 MiB as a whole. One run
# against one run calls it worse; with two runs per side it is within 3x the run-to-run spread.
a2 = write("a2.json", report([point(65536, "out_of_place", 100, 100), point(1 << 20, "out_of_place", 1000, 1000)]))
b1 = write("b1.json", report([point(65536, "out_of_place", 100, 100), point(1 << 20, "out_of_place", 1000, 1000)]))
b2 = write("b2.json", report([point(65536, "out_of_place", 100, 100), point(1 << 20, "out_of_place", 1250, 1250)]))
r = run(a, b2)
check(r.returncode == 0 and [l for l in r.stdout.splitlines() if "1MiB" in l and "busbw_gbps" in l][0].rstrip()
      .endswith("B worse"), "one run each: the drifted 1 MiB point is B worse")
out_runs = os.path.join(tmp, "runs.json")
r = run(f"{a},{a2}", f"{b1},{b2}", "--json", out_runs)
print(r.stdout)
bw1m = [l for l in r.stdout.splitlines() if "1MiB" in l and "busbw_gbps" in l]
check(r.returncode == 0 and "(2 runs:" in r.stdout and len(bw1m) == 1
      and bw1m[0].rstrip().endswith("within run spread"), f"two runs each: 1 MiB busbw within run spread: {bw1m}")
c = json.load(open(out_runs))["compare"]
m = [x for x in c["metrics"] if x["metric"] == "busbw_gbps" and x["key"]["size_bytes"] == 1 << 20][0]
check(c["a"]["runs"] == 2 and c["b"]["runs"] == 2 and c["summary"]["flagged"] == 0
      and c["summary"]["within_run_spread"] == 5 and abs(m["run_spread_pct"] - 25) < 1e-9
      and len(m["b_runs"]) == 2 and m["p_holm"] < 0.01 and "run-to-run spread" in m["noise_reason"],
      f"JSON: runs 2/2, nothing flagged, 5 rows within the run spread, 1 MiB busbw row {m}")
# A real difference still stands out: B twice as slow in both runs.
b3 = write("b3.json", report([point(65536, "out_of_place", 100, 100), point(1 << 20, "out_of_place", 2100, 2100)]))
r = run(f"{a},{a2}", f"{b},{b3}")
bw1m = [l for l in r.stdout.splitlines() if "1MiB" in l and "busbw_gbps" in l]
check(r.returncode == 0 and len(bw1m) == 1 and bw1m[0].rstrip().endswith("B worse"),
      f"two runs each, B twice as slow: B worse: {bw1m}")


def bad(name, args, want):
    out = [os.path.join(tmp, f"bad-{name}.json"), os.path.join(tmp, f"bad-{name}.html")]
    r = run(*args, "--json", out[0], "--html", out[1])
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 2 and len(lines) == 1 and want in r.stderr and not any(map(os.path.exists, out)),
          f"{name}: exit 2 (got {r.returncode}), one stderr line containing {want!r}, nothing written: {lines}")


bad("not-a-report", [a, write("cfg.json", {"sweep": {"max_bytes": "64M"}})], "not a fabcheck report")
bad("not-json-object", [write("arr.json", [1, 2]), b], "not a fabcheck report")
bad("newer-schema", [a, write("new.json", dict(json.load(open(b)), schema_version=2))], "newer than this fabcheck")
text = open(b).read()
bad("truncated", [a, write("trunc.json", text[: len(text) // 2])], "truncated JSON")
bad("missing-file", [a, os.path.join(tmp, "nope.json")], "cannot read")
lat = {"schema_version": 1, "tool": {"name": "fabcheck", "version": "test"}, "latency": [{"kind": "p2p", "pattern": "pingpong", "size_bytes": 8, "p50_us": 12.0}]}
bad("nothing-in-common", [a, write("lat.json", lat)], "no metric in common")
bad("one-label", [a, b, "--label", "x"], "--label")
bad("empty-run-name", [f"{a},", b], "empty file name")
bad("run-twice", [f"{a},{a}", b], "given twice")
bad("runs-of-two-sizes", [f"{a},{write('a8.json', report([point(1 << 20, 'out_of_place', 1000, 1000)], {'topology': {'nranks': 8}}))}", b],
    "topology.nranks")
# A file whose name holds a comma is still one report.
comma = write("a,1.json", json.load(open(a)))
r = run(comma, b)
check(r.returncode == 0 and "B worse" in r.stdout, f"a report named 'a,1.json' is read whole (exit {r.returncode}, {r.stderr.strip()!r})")
bad("bad-second-run", [a, f"{b},{os.path.join(tmp, 'nope.json')}"], "cannot read")

sys.exit(1 if failures else 0)
