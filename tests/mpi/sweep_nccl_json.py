#!/usr/bin/env python3
"""`fabcheck sweep -J` end to end: nccl-tests' JSON layout from a real 2-rank sweep.

1. `sweep -b 8 -e 1M -f 2 -J x.json --json r.json` prints `# Writing JSON output to x.json` before its table and
   writes both files; x.json has nccl-tests' layout (util.cu v2.19.6; tests/data/nccl-tests-json/README.md):
   compact, the top-level, config, device and row keys in util.cu's order, string booleans, "%6i" root, %lf
   numbers, `errors` [""], FABCHECK_VERSION / FABCHECK_COLLECTIVE as the last env entries, secrets redacted.
2. `fabcheck import x.json --json i.json`: every point of i.json equals the sweep's own report r.json (size,
   count, placement, time, algBw, busBw at %lf's precision, #wrong), collective named by the file.
3. A second run onto the same -J path writes x.json.0 ("wx" and its fallbacks), saying so.
4. -J with two collectives: exit 2, one fabcheck line naming -J, no file.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

FAB = os.environ["FABCHECK"]
MPI = [os.environ.get("MPIEXEC", "mpirun")] + os.environ.get("MPI_FLAGS", "").split()
SECRET = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"

TOP = ["version", "start_time", "args", "env", "nccl_version", "config", "results", "out_of_bounds",
       "average_bus_bandwidth", "errors", "end_time"]
CONFIG = ["nthreads", "ngpus", "minimum_bytes", "maximum_bytes", "step_factor", "warmup_iters", "iterations",
          "aggregated_iterations", "validation", "graph", "blocking_collectives", "per_iter_timing", "per_iter_skip",
          "parallel_init", "devices"]
DEVICE = ["rank", "group", "pid", "hostname", "device", "device_hex", "device_info"]
ROW = ["size", "count", "type", "redop", "root", "out_of_place", "in_place", "actual_iterations", "experiment_name"]
BODY = ["time", "alg_bw", "bus_bw", "nwrong"]
LF = 5.0000001e-7  # half a unit in %lf's sixth decimal


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(cmd, env=None, timeout=300):
    e = dict(os.environ)
    e.pop("FABCHECK_TEST_FAULT", None)
    e.update(env or {})
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=e)


def sweep(args, env=None):
    return run(MPI + ["-np", "2", FAB, "sweep"] + args, env)


def keys(obj, want, where):
    if list(obj.keys()) != want:
        fail(f"{where}: keys {list(obj.keys())} != {want}")


def check_layout(text):
    if not text.startswith('{"version":3,"start_time":"') or "\n" in text or ": " in text or text[-1] != "}":
        fail(f"not util.cu's compact layout: {text[:80]!r} ... {text[-40:]!r}")
    doc = json.loads(text, object_pairs_hook=lambda kv: dict(kv))
    keys(doc, TOP, "top level")
    c = doc["config"]
    keys(c, CONFIG, "config")
    for k in ("blocking_collectives", "per_iter_timing", "parallel_init"):
        if c[k] not in ("true", "false"):
            fail(f"config.{k} = {c[k]!r}: nccl-tests writes the strings true/false")
    if c["minimum_bytes"] != 8 or c["maximum_bytes"] != 1 << 20 or c["step_factor"] != 2:
        fail(f"config sizes {c}")
    if len(c["devices"]) != 2:
        fail(f"{len(c['devices'])} devices for 2 ranks")
    for d in c["devices"]:
        keys(d, DEVICE, "device")
        if d["device_hex"] != "cpu" or d["device_info"] != "MPI host buffers":
            fail(f"device {d}")
    if doc["nccl_version"] != 0:
        fail(f"nccl_version {doc['nccl_version']} on the MPI backend (0: no NCCL)")
    if doc["env"][-2:] != [f"FABCHECK_VERSION={doc['env'][-2].split('=', 1)[1]}", "FABCHECK_COLLECTIVE=allreduce"]:
        fail(f"last env entries {doc['env'][-2:]}")
    if SECRET in text:
        fail("the secret reached the -J file")
    if "GITHUB_TOKEN=<redacted>" not in doc["env"]:
        fail("GITHUB_TOKEN not recorded as <redacted>")
    if len(doc["results"]) != 18:
        fail(f"{len(doc['results'])} rows for 8 B .. 1 MiB")
    for r in doc["results"]:
        keys(r, ROW, "row")
        if r["root"] != "    -1" or r["type"] != "float" or r["redop"] != "sum" or r["experiment_name"] != "":
            fail(f"row {r}")
        for b in ("out_of_place", "in_place"):
            keys(r[b], BODY, b)
            if r[b]["nwrong"] != 0.0:
                fail(f"nwrong {r[b]['nwrong']!r}")
    if doc["errors"] != [""] or doc["out_of_bounds"] != {"count": 0, "okay": "true"}:
        fail(f"footer {doc['errors']} {doc['out_of_bounds']}")
    if doc["average_bus_bandwidth"]["okay"] != "unchecked":
        fail(f"average_bus_bandwidth {doc['average_bus_bandwidth']}")
    # %lf: every time, algBw and busBw prints six decimals.
    for k in ("time", "alg_bw", "bus_bw"):
        n = len(re.findall(r'"%s":-?[0-9]+\.[0-9]{6}[,}]' % k, text))
        if n != 36:
            fail(f"{n} of 36 {k} values printed %lf")
    return doc


def points(report):
    out = []
    for s in report["sweeps"]:
        for p in s["points"]:
            out.append((s["collective"], s["dtype"], p))
    return out


def main():
    tmp = tempfile.mkdtemp(prefix="fab-ncclj-")
    x, rep = os.path.join(tmp, "x.json"), os.path.join(tmp, "r.json")
    p = sweep(["-b", "8", "-e", "1M", "-f", "2", "-n", "5", "-w", "1", "--per-iter-iters", "0", "-J", x, "--json",
               rep], env={"GITHUB_TOKEN": SECRET})
    if p.returncode != 0:
        fail(f"sweep exit {p.returncode}: {p.stderr}")
    lines = p.stdout.splitlines()
    if not lines or lines[0] != f"# Writing JSON output to {x}":
        fail(f"first stdout line {lines[:1]}")
    with open(x) as f:
        doc = check_layout(f.read())
    own = json.load(open(rep))
    # 2. import reads the -J file back as the sweep's own report.
    imp = os.path.join(tmp, "i.json")
    q = run([FAB, "import", x, "--json", imp, "-q"])
    if q.returncode != 0:
        fail(f"import exit {q.returncode}: {q.stderr}")
    back = json.load(open(imp))
    a, b = points(own), points(back)
    if len(a) != len(b) or len(a) != 36:
        fail(f"{len(b)} imported points, {len(a)} in the report")
    for (ca, da, pa), (cb, db, pb) in zip(a, b):
        if (ca, da) != (cb, db):
            fail(f"series {ca}/{da} imported as {cb}/{db}")
        for k in ("size_bytes", "count", "placement", "wrong"):
            if pa[k] != pb[k]:
                fail(f"{k}: report {pa[k]} import {pb[k]} at {pa['size_bytes']} {pa['placement']}")
        for k in ("time_us", "algbw_gbps", "busbw_gbps"):
            if abs(pa[k] - pb[k]) > LF:
                fail(f"{k}: report {pa[k]} import {pb[k]} at {pa['size_bytes']} {pa['placement']}")
    if back["sweeps"][0]["imported"]["collective_source"] != "file":
        fail(f"collective source {back['sweeps'][0]['imported']}")
    print(f"import: {len(b)} points equal the sweep's report; avg busbw {doc['average_bus_bandwidth']['bandwidth']}")
    # 3. "wx": the name exists, so x.json.0.
    p = sweep(["-b", "8", "-e", "8", "-n", "1", "--per-iter-iters", "0", "-J", x])
    if p.returncode != 0 or f"# Writing JSON output to {x}.0" not in p.stdout or not os.path.exists(x + ".0"):
        fail(f"second run: exit {p.returncode}, {p.stdout[:200]!r}")
    second = json.load(open(x + ".0"))
    if len(second["results"]) != 1:
        fail("x.json.0 rows")
    # 4. one collective per file.
    y = os.path.join(tmp, "y.json")
    p = sweep(["--coll", "allreduce,allgather", "-b", "8", "-e", "8", "-J", y])
    err = [l for l in p.stderr.splitlines() if l.startswith("fabcheck:")]
    if p.returncode != 2 or len(err) != 1 or "-J" not in err[0] or os.path.exists(y):
        fail(f"two collectives: exit {p.returncode}, {p.stderr!r}")
    print("PASS")


main()
