#!/usr/bin/env python3
"""MPI tests of `fabcheck sweep`. Usage: sweep_check.py MODE NP

MODE rows     -b 8 -e 64M -f 2: recomputes every printed row (algbw from size/time, busbw from the busBw factor),
              and the JSON's unrounded values to 1e-9; 24 rows per placement, #wrong 0, footers.
MODE all      every collective, dtype, op and root on small sizes: #wrong 0 everywhere, geometry and factors of
              each block recomputed here from the nccl-tests rules.
MODE avg      -o avg: #wrong 0 in every dtype for allreduce, reducescatter and reduce (every root); a corrupted
              element shows as 1.
MODE agg      -m 4: every collective, op, dtype and root aggregated, each of the 4 results checked; corrupt -> 1.
MODE corrupt  FABCHECK_TEST_FAULT=corrupt:rank=1:elems=1: #wrong exactly 1 in every checked row, exit 1, the
              finding and the console name rank 1.
MODE delay    FABCHECK_TEST_FAULT=delay:rank=2:us=U:every=E: rank 2 is the straggler of >= 90 % of the delayed
              iterations and first in the JSON stragglers.
MODE bad      bad input: exit 2, one fabcheck stderr line naming the flag, no file written.
"""
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

FAB = os.environ["FABCHECK"]
MPI = [os.environ.get("MPIEXEC", "mpirun")] + os.environ.get("MPI_FLAGS", "").split()
# The nccl-standin label runs the same checks on the nccl backend over the CUDA/NCCL stand-ins (tests/standin):
# SWEEP_ARGS="--backend nccl", and mpirun exports LD_LIBRARY_PATH=$STANDIN_LIB to the ranks.
SWEEP_ARGS = os.environ.get("SWEEP_ARGS", "").split()
BACKEND = "nccl" if "nccl" in SWEEP_ARGS else "mpi"
if os.environ.get("STANDIN_LIB"):
    MPI += ["-x", "LD_LIBRARY_PATH=" + os.environ["STANDIN_LIB"]]

# busBw factors and geometry, written here independently of the C++ (nccl-tests src/<coll>.cu).
RING = {"allgather", "reducescatter", "alltoall", "gather", "scatter"}
SPLIT = RING
ELT = {"int8": 1, "uint8": 1, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8, "half": 2, "float": 4, "double": 8,
       "bfloat16": 2, "f8e4m3": 1, "f8e5m2": 1}
# nccl-tests' -d all (10 types) and the fp8 types, which fabcheck runs when named (nccl-tests: on sm90 GPUs only).
DTYPES = "int8,uint8,int32,uint32,int64,uint64,half,float,double,bfloat16,f8e4m3,f8e5m2"


def factor(coll, n):
    if coll == "allreduce":
        return 2.0 * (n - 1) / n
    if coll in RING:
        return (n - 1) / n
    return 1.0


def geometry(coll, dtype, requested, n):
    elt = ELT[dtype]
    count = requested // elt
    if coll in SPLIT:
        base = (count // n) & ~((16 // elt) - 1)
        return base, base * n * elt
    return count, count * elt


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(np, args, env=None, timeout=600):
    e = dict(os.environ)
    e.pop("FABCHECK_TEST_FAULT", None)
    if env:
        e.update(env)
    cmd = MPI + ["-np", str(np), FAB, "sweep"] + SWEEP_ARGS + args
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=e)


def rows_of(stdout):
    """Whitespace-split table rows (13 tokens), as a log parser would read them."""
    rows = []
    for line in stdout.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        t = line.split()
        if len(t) != 13:
            fail(f"row with {len(t)} tokens: {line!r}")
        rows.append(t)
    return rows


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b)) or (a == 0 and b == 0)


def json_points(doc, block):
    pts = {}
    for p in doc["sweeps"][block]["points"]:
        pts[(p["size_bytes"], p["cycle"], p["placement"])] = p
    return pts


def check_row_arith(t, coll, n):
    size = int(t[0])
    for off in (5, 9):
        time_us, alg, bus = float(t[off]), float(t[off + 1]), float(t[off + 2])
        if time_us <= 0:
            fail(f"time {time_us} in {t}")
        if abs(size / time_us / 1e3 - alg) > max(0.011, 0.02 * alg):
            fail(f"algbw {alg} != size/time {size / time_us / 1e3} in {t}")
        if abs(alg * factor(coll, n) - bus) > max(0.011, 0.02 * bus):
            fail(f"busbw {bus} != algbw*factor {alg * factor(coll, n)} in {t}")


def check_json_point(p, coll, n):
    t = p["time_us"]
    if not (t > 0):
        fail(f"time_us {t}")
    alg = p["size_bytes"] / t / 1e3
    if not close(p["algbw_gbps"], alg):
        fail(f"json algbw {p['algbw_gbps']} != {alg}")
    if not close(p["busbw_gbps"], p["algbw_gbps"] * factor(coll, n)):
        fail(f"json busbw {p['busbw_gbps']} != algbw*factor")


def mode_rows(np):
    tmp = tempfile.mkdtemp()
    out = os.path.join(tmp, "rows.json")
    p = run(np, ["-b", "8", "-e", "64M", "-f", "2", "-n", "1", "-w", "0", "--per-iter-iters", "2", "--json", out])
    print(p.stdout)
    if p.returncode != 0:
        fail(f"exit {p.returncode}: {p.stderr}")
    rows = rows_of(p.stdout)
    if len(rows) != 24:
        fail(f"{len(rows)} rows, expected 24 per placement")
    doc = json.load(open(out))
    for key in ("schema_version", "tool", "conventions", "run", "topology", "sweeps"):
        if key not in doc:
            fail(f"JSON lacks {key}")
    topo = doc["topology"]
    if topo["nranks"] != np or sum(len(h["ranks"]) for h in topo["hosts"]) != np or topo["backend"] != BACKEND:
        fail(f"topology {topo}")
    if not isinstance(topo["clock_offset_us_max"], (int, float)):
        fail("clock_offset_us_max")
    pts = json_points(doc, 0)
    busbws = []
    for i, t in enumerate(rows):
        requested = 8 << i
        count, size = geometry("allreduce", "float", requested, np)
        if int(t[0]) != size or int(t[1]) != count or t[2:5] != ["float", "sum", "-1"]:
            fail(f"row {i} geometry {t[:5]}")
        check_row_arith(t, "allreduce", np)
        for off, placement in ((5, "out_of_place"), (9, "in_place")):
            if t[off + 3] != "0":
                fail(f"#wrong {t[off + 3]} in {t}")
            jp = pts[(size, 0, placement)]
            check_json_point(jp, "allreduce", np)
            if jp["wrong"] != 0 or jp["count"] != count:
                fail(f"json point {jp}")
            # printed values are the JSON's, rounded
            if abs(float(t[off]) - jp["time_us"]) > max(0.006, 0.001 * jp["time_us"]):
                fail(f"printed time {t[off]} vs json {jp['time_us']}")
            if abs(float(t[off + 2]) - jp["busbw_gbps"]) > max(0.006, 0.001 * jp["busbw_gbps"]):
                fail(f"printed busbw {t[off + 2]} vs json {jp['busbw_gbps']}")
            pi = jp["per_iter"]
            # 2 samples in min(10, 2) = 2 rounds spread over the sweep (--per-iter-rounds default 10)
            if pi["samples"] != 2 or len(pi["samples_us"]) != 2 or not (pi["p50_us"] > 0) or pi["rounds"] != 2:
                fail(f"per_iter {pi}")
            busbws.append(jp["busbw_gbps"])
    lines = p.stdout.splitlines()
    if "# Out of bounds values : 0 OK" not in lines:
        fail("out-of-bounds footer")
    avg = [l for l in lines if l.startswith("# Avg bus bandwidth    : ")]
    if len(avg) != 1:
        fail("avg footer")
    printed = float(avg[0].split(":")[1])
    mean = sum(busbws) / len(busbws)
    if not close(printed, mean, 1e-5):
        fail(f"Avg bus bandwidth {printed} != mean of busbw {mean}")
    if not close(doc["sweeps"][0]["avg_busbw_gbps"], mean, 1e-12):
        fail("avg_busbw_gbps")
    if "# Collective test concluded: all_reduce_perf" not in lines:
        fail("concluded line")


def mode_all(np):
    tmp = tempfile.mkdtemp()
    out = os.path.join(tmp, "all.json")
    p = run(np, ["--coll", "all", "-d", DTYPES, "-o", "all", "-r", "-1", "-b", "8", "-e", "4K", "-f", "8", "-n", "2",
                 "--per-iter-iters", "2", "--json", out])
    if p.returncode != 0:
        print(p.stdout)
        fail(f"exit {p.returncode}: {p.stderr}")
    doc = json.load(open(out))
    seen = set()
    for b, blk in enumerate(doc["sweeps"]):
        coll, dtype = blk["collective"], blk["dtype"]
        seen.add(coll)
        if blk["nranks"] != np:
            fail("nranks")
        rooted = coll in ("broadcast", "reduce", "gather", "scatter")
        if rooted != (blk["root"] is not None):
            fail(f"root of {coll}")
        if (blk["redop"] is not None) != (coll in ("allreduce", "reducescatter", "reduce")):
            fail(f"redop of {coll}")
        for q in blk["points"]:
            requested = 8
            while True:
                c, s = geometry(coll, dtype, requested, np)
                if s == q["size_bytes"] and c == q["count"]:
                    break
                requested *= 8
                if requested > 4096:
                    fail(f"{coll} {dtype}: point {q['size_bytes']}/{q['count']} matches no requested size")
            if q["size_bytes"] > 0:
                check_json_point(q, coll, np)
            unchecked = q["placement"] == "in_place" and coll in ("alltoall", "sendrecv")
            if unchecked:
                if q["wrong"] is not None:
                    fail(f"{coll} in-place should be N/A")
            elif q["wrong"] != 0:
                fail(f"{coll} {dtype} {blk['redop']} root {blk['root']} {q['size_bytes']} {q['placement']}: "
                     f"#wrong {q['wrong']}")
    if len(seen) != 9:
        fail(f"collectives {seen}")
    # 9 collectives: 3 with 5 ops (sum prod min max avg: nccl-tests' -o all), x 12 dtypes (nccl-tests' -d all,
    # half and bfloat16 included, and the two fp8 types); rooted ones x np roots. blocks: allreduce, reducescatter
    # 5 ops; reduce 5 ops x np roots; broadcast, gather, scatter np roots; allgather, alltoall, sendrecv one; all
    # x 12 dtypes.
    expect = 12 * (5 + 5 + 5 * np + 3 * np + 3)
    if len(doc["sweeps"]) != expect:
        fail(f"{len(doc['sweeps'])} blocks, expected {expect}")
    lines = p.stdout.splitlines()
    if sum(1 for l in lines if l == "# Out of bounds values : 0 OK") != 9:
        fail("one OK footer per collective")


def mode_avg(np):
    """-o avg: the exact data check holds in every dtype for every reducing collective and root, and
    it is not vacuous: one corrupted element per rank-1 result shows as exactly 1 wrong."""
    tmp = tempfile.mkdtemp()
    out = os.path.join(tmp, "avg.json")
    args = ["--coll", "allreduce,reducescatter,reduce", "-o", "avg", "-d", DTYPES, "-r", "-1", "-b", "8", "-e", "64K",
            "-f", "8", "-n", "2", "-w", "1", "--per-iter-iters", "0"]
    p = run(np, args + ["--json", out])
    if p.returncode != 0:
        print(p.stdout)
        fail(f"exit {p.returncode}: {p.stderr}")
    doc = json.load(open(out))
    points = 0
    for blk in doc["sweeps"]:
        if blk["redop"] != "avg":
            fail(f"redop {blk['redop']}")
        for q in blk["points"]:
            points += 1
            if q["wrong"] != 0:
                fail(f"{blk['collective']} {blk['dtype']} root {blk['root']} {q['size_bytes']} {q['placement']}: "
                     f"#wrong {q['wrong']}")
    # allreduce and reducescatter once, reduce once per root; 12 dtypes; sizes 8..32K by 8x (6, fewer where
    # reducescatter's count rounds to 0), 2 placements.
    expect_blocks = 12 * (2 + np)
    if len(doc["sweeps"]) != expect_blocks:
        fail(f"{len(doc['sweeps'])} blocks, expected {expect_blocks}")
    print(f"avg on {np} ranks: {len(doc['sweeps'])} blocks, {points} points, #wrong 0 everywhere")
    expect_one_wrong(np, ["--coll", "allreduce", "-o", "avg", "-d", "int8,half,float,f8e4m3,f8e5m2"], 15,
                     "corrupt avg")


def expect_one_wrong(np, args, nrows, what):
    """With one element corrupted on rank 1, each of the `nrows` rows (64 B..4K) shows #wrong 1 and exit 1."""
    p = run(np, args + ["-b", "64", "-e", "4K", "-f", "8", "-n", "2", "-w", "1", "--per-iter-iters", "0"],
            env={"FABCHECK_TEST_FAULT": "corrupt:rank=1:elems=1"})
    if p.returncode != 1:
        fail(f"{what}: exit {p.returncode}, expected 1: {p.stderr}")
    rows = [t for t in rows_of(p.stdout) if int(t[0]) > 0]
    if len(rows) != nrows or any(t[8] != "1" or t[12] != "1" for t in rows):
        fail(f"{what}: expected #wrong 1 in {nrows} rows: {rows}")


def mode_agg(np):
    """-m 4: every collective, op (avg included), dtype and root aggregated 4 ops per iteration
    (nonblocking collectives + MPI_Waitall, each on its own buffers) passes the exact data check of every one
    of the 4 results; the preamble and the JSON record agg iters 4; a corrupted element still shows as 1."""
    tmp = tempfile.mkdtemp()
    out = os.path.join(tmp, "agg.json")
    p = run(np, ["--coll", "all", "-d", DTYPES, "-o", "all", "-r", "-1", "-m", "4", "-b", "8", "-e", "4K", "-f", "8",
                 "-n", "2", "-w", "1", "--per-iter-iters", "0", "--json", out])
    if p.returncode != 0:
        print(p.stdout)
        fail(f"exit {p.returncode}: {p.stderr}")
    if not any("agg iters: 4 " in l for l in p.stdout.splitlines()):
        fail("preamble without 'agg iters: 4'")
    doc = json.load(open(out))
    if doc["run"]["config"]["sweep"].get("agg_iters") != 4:
        fail(f"run.config.sweep.agg_iters {doc['run']['config']['sweep'].get('agg_iters')}")
    points = 0
    for blk in doc["sweeps"]:
        for q in blk["points"]:
            unchecked = q["placement"] == "in_place" and blk["collective"] in ("alltoall", "sendrecv")
            if unchecked:
                continue
            points += 1
            if q["wrong"] != 0:
                fail(f"-m 4 {blk['collective']} {blk['dtype']} {blk['redop']} root {blk['root']} {q['size_bytes']} "
                     f"{q['placement']}: #wrong {q['wrong']}")
    expect = 12 * (5 + 5 + 5 * np + 3 * np + 3)
    if len(doc["sweeps"]) != expect:
        fail(f"{len(doc['sweeps'])} blocks, expected {expect}")
    print(f"-m 4 on {np} ranks: {len(doc['sweeps'])} blocks, {points} checked points, #wrong 0 everywhere")
    expect_one_wrong(np, ["--coll", "allreduce,allgather", "-m", "4"], 6, "corrupt -m 4")


def mode_corrupt(np):
    tmp = tempfile.mkdtemp()
    out = os.path.join(tmp, "corrupt.json")
    p = run(np, ["--coll", "allreduce,allgather,reducescatter,sendrecv", "-b", "64", "-e", "64K", "-f", "4", "-n", "2",
                 "--per-iter-iters", "0", "--json", out], env={"FABCHECK_TEST_FAULT": "corrupt:rank=1:elems=1"})
    print(p.stdout)
    if p.returncode != 1:
        fail(f"exit {p.returncode}, expected 1: {p.stderr}")
    rows = rows_of(p.stdout)
    checked = 0
    for t in rows:
        if int(t[0]) == 0:
            continue
        for off in (8, 12):
            if t[off] == "N/A":
                continue
            checked += 1
            if t[off] != "1":
                fail(f"#wrong {t[off]}, expected exactly 1: {t}")
    if checked < 20:
        fail(f"only {checked} checked rows")
    fails = [l for l in p.stdout.splitlines() if l.startswith("# Out of bounds values : ")]
    if len(fails) != 4 or not all(l.endswith("FAILED") for l in fails):
        fail(f"footers {fails}")
    doc = json.load(open(out))
    codes = [(f["severity"], f["code"]) for f in doc["findings"]]
    if ("fail", "WRONG_DATA") not in codes or doc["run"]["exit_code"] != 1:
        fail(f"findings {codes}, exit_code {doc['run']['exit_code']}")
    # The console names the rank that received wrong data, and so does the finding.
    host1 = [h["host"] for h in doc["topology"]["hosts"] if 1 in h["ranks"]][0]
    lines = [l for l in p.stdout.splitlines() if l.startswith("#   [fail] WRONG_DATA:")]
    if len(lines) != 1 or f"received on rank 1 ({host1})" not in lines[0]:
        fail(f"console WRONG_DATA line naming rank 1: {lines}")
    wd = [f for f in doc["findings"] if f["code"] == "WRONG_DATA"][0]
    if wd["evidence"].get("ranks") != [{"rank": 1, "host": host1}]:
        fail(f"WRONG_DATA evidence ranks {wd['evidence'].get('ranks')}")
    for b in doc["sweeps"]:
        for pt in b["points"]:
            if pt.get("wrong"):
                if pt.get("wrong_ranks") != [1]:
                    fail(f"point wrong_ranks {pt.get('wrong_ranks')} at {b['collective']} {pt['size_bytes']}")


def mode_delay(np):
    every = int(os.environ.get("SWEEP_DELAY_EVERY", "2"))
    us = int(os.environ.get("SWEEP_DELAY_US", "5000"))
    problem, p50_us = delay_attempt(np, every, us)
    if problem and p50_us > us / 4:
        # Under load an iteration itself takes milliseconds (4 ranks on 2 cores beside other work), and a 5 ms
        # delay no longer stands out: the property holds only for a delay well above the iteration time. Say so,
        # with the load, and plant a delay 8x the measured median instead.
        big = int(max(20000, 8 * p50_us))
        print(f"loaded machine: load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs, median iteration "
              f"{p50_us / 1000:.1f} ms against the {us / 1000:.0f} ms delay ({problem}); again with {big / 1000:.0f} ms")
        problem, _ = delay_attempt(np, every, big)
    if problem:
        fail(problem)


def delay_attempt(np, every, us):
    """One delayed sweep; returns (the first failed property or None, the median iteration time in µs)."""
    tmp = tempfile.mkdtemp()
    out = os.path.join(tmp, "delay.json")
    # On a shared, oversubscribed machine other ranks are descheduled for milliseconds now and then (they are
    # then rightly the straggler of that iteration); a 5 ms delay every 2nd iteration keeps the planted straggler
    # well above that noise. (us=500:every=10 works the same on a quiet machine.)
    p = run(np, ["-b", "1K", "-e", "1K", "-n", "5", "--per-iter-iters", "100", "--json", out],
            env={"FABCHECK_TEST_FAULT": f"delay:rank=2:us={us}:every={every}"})
    if p.returncode != 0:
        fail(f"exit {p.returncode}: {p.stderr}")
    doc = json.load(open(out))
    delayed = hit = 0
    problem = None
    p50 = 0.0
    for q in doc["sweeps"][0]["points"]:
        pi = q["per_iter"]
        sr = pi["straggler_ranks"]
        p50 = max(p50, pi["p50_us"])
        # 100 samples in 10 rounds of 10: the fault counts iterations across rounds
        if pi["samples"] != 100 or len(sr) != 100 or pi["rounds"] != 10:
            fail(f"samples {pi['samples']} in {pi['rounds']} rounds")
        for i, r in enumerate(sr):
            if i % every == every - 1:
                delayed += 1
                hit += r == 2
        if not pi["stragglers"] or pi["stragglers"][0]["rank"] != 2:
            problem = problem or f"{q['placement']}: stragglers {pi['stragglers']}"
        elif pi["stragglers"][0]["share"] < 0.9 / every:
            problem = problem or f"share {pi['stragglers'][0]['share']}"
        print(q["placement"], "stragglers", pi["stragglers"], "p50", pi["p50_us"], "max", pi["max_us"])
    print(f"rank 2 straggler of {hit}/{delayed} delayed iterations (delay {us} us)")
    if hit < 0.9 * delayed:
        problem = problem or f"rank 2 straggler of only {hit}/{delayed} delayed iterations"
    return problem, p50


def mode_bad(np):
    tmp = tempfile.mkdtemp()
    out = os.path.join(tmp, "bad.json")
    cases = [
        (["-b", "64M", "-e", "8"], "-b/--minbytes"),
        (["-o", "avg2"], "-o/--op"),
        (["-m", "100000", "-e", "1G"], "-m/--agg_iters"),
        (["-d", "float7"], "-d/--datatype"),
        (["-n", "0"], "-n/--iters"),
        (["-b", "-3"], "-b/--minbytes"),
        (["-b", "1X"], "-b/--minbytes"),
        (["-e", "99999999999G"], "-e/--maxbytes"),
        (["-t", "2"], "-t/--nthreads"),
        (["-g", "4"], "-g/--ngpus"),
        (["--coll", "allreduce,bogus"], "--coll"),
        (["--coll", "reduce", "-r", str(np)], "-r/--root"),
        (["--per-iter-rounds", "0"], "--per-iter-rounds"),
    ]
    launches = []
    for args, flag in cases:
        sizes = [] if ("-b" in args or "-e" in args) else ["-b", "8", "-e", "8"]
        if args[0] == "-b" and "-e" not in args:
            sizes = ["-e", "8"]
        launches.append((args + sizes + ["--json", out], flag, out))
    missing = os.path.join(tmp, "missing", "x.json")
    launches.append((["-b", "8", "-e", "8", "--json", missing], "--json", missing))
    ro = os.path.join(tmp, "ro")
    os.mkdir(ro)
    os.chmod(ro, 0o500)
    if os.access(ro, os.W_OK):  # root ignores permissions: use a path under a regular file instead
        ro = os.path.join(tmp, "afile")
        open(ro, "w").close()
    launches.append((["-b", "8", "-e", "8", "--json", os.path.join(ro, "x.json")], "--json", os.path.join(ro, "x.json")))
    # Independent refusals, nothing timed: three launches at a time, checked in order.
    with ThreadPoolExecutor(max_workers=3) as pool:
        for (args, flag, path), p in zip(launches, pool.map(lambda l: run(np, l[0], timeout=120), launches)):
            check_bad(p, flag, path)
    # NCCL asked for explicitly where it cannot run: exit 2 and one line (or it runs, on a GPU machine).
    p = run(np, ["-b", "8", "-e", "8", "--backend", "nccl", "--json", out], timeout=300)
    if p.returncode != 0:
        check_bad(p, "--backend nccl", out)
        line = [l for l in p.stderr.splitlines() if l.startswith("fabcheck:")][0]
        if "no usable CUDA device" not in line and "not compiled in" not in line:
            fail(f"nccl line {line!r}")
    else:
        print("nccl backend ran (GPU present)")


def check_bad(p, flag, path):
    lines = [l for l in p.stderr.splitlines() if l.startswith("fabcheck:")]
    if p.returncode != 2:
        fail(f"{flag}: exit {p.returncode}, expected 2; stderr {p.stderr!r}")
    if len(lines) != 1:
        fail(f"{flag}: {len(lines)} fabcheck stderr lines: {p.stderr!r}")
    if flag not in lines[0]:
        fail(f"{flag}: line does not name the flag: {lines[0]!r}")
    if p.stdout.strip():
        fail(f"{flag}: printed a table: {p.stdout!r}")
    if os.path.exists(path):
        fail(f"{flag}: wrote {path}")
    print("ok", flag, "->", lines[0])


if __name__ == "__main__":
    mode, np = sys.argv[1], int(sys.argv[2])
    {"rows": mode_rows, "all": mode_all, "avg": mode_avg, "agg": mode_agg, "corrupt": mode_corrupt, "delay": mode_delay, "bad": mode_bad}[mode](np)
    print("PASS", mode, np)
