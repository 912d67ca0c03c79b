#!/usr/bin/env python3
"""Benchmark (not a test): are fabcheck's small-message figures as low as a bare MPI loop's?

Runs interleaved pairs of process launches — fabcheck's own measurement and bench_bare_mpi's bare loop (MPI_Init,
as IMB and OSU initialise MPI) — alternating which goes first, and prints per case the median of the per-pair ratios
fabcheck/bare (and their spread). Cases: 8 B float allreduce on 2 and 4 ranks (`fabcheck sweep`, time per op of
`-n` back-to-back ops, mean over ranks, as nccl-tests `-a 1`), 8 B ping-pong p50 on 2 ranks (`fabcheck latency`,
half round trip per iteration, as osu_latency), and 1 MiB / 16 MiB allreduce on 2 ranks (the large-message check).
A control case runs the bare loop under MPI_THREAD_MULTIPLE against itself under MPI_Init: what that level costs.
On one host the 8 B allreduce of a bare loop is ~10 % slower after an odd number of earlier point-to-point messages
than after an even one (Open MPI's shared-memory BTL; bench_bare_mpi prep=N): every allreduce and ping-pong pair
therefore runs the bare loop twice, fresh (prep=0) and after one message (prep=1), and prints the ratio to each.
Targets: 8 B ratios <= 1.05, 1 MiB / 16 MiB <= 1.02.

Usage: bench/small_messages.py [--build build] [--pairs 9] [--rt] [--cases ar2_8,ar4_8,pp2_8,ar2_1M,ar2_16M,ctl_mt]
--rt runs every launch under `chrt -f 20` (root): on a shared machine the measured ranks then preempt other work
(the kernel still keeps 5 % for the rest, sched_rt_runtime_us), which makes the ratios repeatable.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

MPIRUN = ["mpirun", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1", "--mca", "btl", "self,vader,tcp"]

# name: (nranks, kind, bytes, iters)
CASES = {
    "ar2_8": (2, "allreduce", 8, 20000),
    "ar4_8": (4, "allreduce", 8, 10000),
    "pp2_8": (2, "pingpong", 8, 10000),
    "ar2_1M": (2, "allreduce", 1 << 20, 300),
    "ar2_16M": (2, "allreduce", 16 << 20, 30),
    "ctl_mt": (2, "allreduce", 8, 20000),
}


RT = []


def median_ci95(xs):
    """Distribution-free 95 % confidence interval of the median (order statistics of the binomial(n, 1/2)):
    (x_(k), x_(n-k+1)) with the largest k such that P(B < k) <= 0.025. None below 6 values."""
    n = len(xs)
    if n < 6:
        return None
    ys = sorted(xs)
    cdf, k = 0.0, 0
    for j in range(n + 1):
        p = 1.0
        for t in range(j):
            p = p * (n - t) / (t + 1)
        if cdf + p / 2 ** n > 0.025:
            break
        cdf += p / 2 ** n
        k = j + 1
    return (ys[k - 1], ys[n - k]) if k >= 1 else None


def run(cmd, env):
    cmd = RT + cmd
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, timeout=600)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout[-2000:]}")
    return p.stdout


def bare(build, n, kind, size, iters, env, level="single", prep=0):
    out = run(MPIRUN + ["-np", str(n), f"{build}/bench/bench_bare_mpi", kind, str(size), str(iters)]
              + ([level] if level != "single" else []) + [f"prep={prep}"], env)
    m = re.search(r"time_us=([0-9.]+).*thread_level=(\w+)", out)
    if not m:
        sys.exit(f"no figure in: {out}")
    return float(m.group(1)), m.group(2)


def fabcheck(build, n, kind, size, iters, env, tmp):
    rep = os.path.join(tmp, "r.json")
    exe = f"{build}/apps/fabcheck/fabcheck"
    if kind == "allreduce":
        cmd = [exe, "sweep", "--coll", "allreduce", "-b", str(size), "-e", str(size), "-d", "float", "-o", "sum",
               "-n", str(iters), "-w", str(max(1, iters // 10)), "--per-iter-iters", "0", "--json", rep]
    else:
        cmd = [exe, "latency", "--sizes", str(size), "--iters", str(iters), "--passes", "1", "--json", rep]
    run(MPIRUN + ["-np", str(n)] + cmd, env)
    d = json.load(open(rep))
    level = d["run"].get("mpi_thread_level", "?")
    if kind == "allreduce":
        pts = [p for p in d["sweeps"][0]["points"] if p["placement"] == "out_of_place"]
        return pts[0]["time_us"], level
    return [x for x in d["latency"] if x["kind"] == "p2p"][0]["p50_us"], level


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--pairs", type=int, default=9)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--rt", action="store_true")
    a = ap.parse_args()
    if a.rt:
        RT.extend(["chrt", "-f", "20"])
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    print(f"# small_messages: {a.pairs} interleaved pairs of launches per case; ratio = fabcheck / bare (MPI_Init)"
          f"{'; under chrt -f 20' if a.rt else ''}; load average {os.getloadavg()[0]:.2f}")
    print(f"# {'case':8} {'ranks':>5} {'bytes':>9} {'fabcheck_us':>12} {'bare_us':>10} {'ratio_p50':>9} "
          f"{'ratio_min':>9} {'ratio_max':>9} {'ci95_ratio':>13} {'bare1_us':>9} {'ratio1_p50':>10}  levels")
    print("#   bare = fresh bare loop (prep=0); bare1/ratio1 = bare loop after one point-to-point message (prep=1)")
    print("#   ci95_ratio = distribution-free 95 % confidence interval of the median ratio (order statistics)")
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.cases.split(","):
            n, kind, size, iters = CASES[name]
            ratios, ratios1, fs, bs, b1s, levels = [], [], [], [], [], set()
            both = name != "ctl_mt"
            order = [0, 1, 2] if both else [0, 1]
            for i in range(a.pairs):
                for k in order[i % len(order):] + order[:i % len(order)]:  # rotate who goes first
                    if k == 0:
                        if name == "ctl_mt":
                            t, lv = bare(a.build, n, kind, size, iters, env, "multiple")
                        else:
                            t, lv = fabcheck(a.build, n, kind, size, iters, env, tmp)
                        fs.append(t)
                    elif k == 1:
                        t, lv = bare(a.build, n, kind, size, iters, env)
                        bs.append(t)
                    else:
                        t, lv = bare(a.build, n, kind, size, iters, env, prep=1)
                        b1s.append(t)
                    levels.add(("bare " if k else "") + lv)
                ratios.append(fs[-1] / bs[-1])
                if both:
                    ratios1.append(fs[-1] / b1s[-1])
            c = median_ci95(ratios)
            ci = f"{c[0]:6.3f}-{c[1]:.3f}" if c else f"{'-':>13}"
            b1 = f"{statistics.median(b1s):9.3f} {statistics.median(ratios1):10.3f}" if both else f"{'-':>9} {'-':>10}"
            print(f"  {name:8} {n:5} {size:9} {statistics.median(fs):12.3f} {statistics.median(bs):10.3f} "
                  f"{statistics.median(ratios):9.3f} {min(ratios):9.3f} {max(ratios):9.3f} {ci} {b1}  "
                  f"{','.join(sorted(levels))}", flush=True)


if __name__ == "__main__":
    main()
