#!/usr/bin/env python3
"""Writes the synthetic_* fixtures of this folder: layouts of nccl-tests' output that the saved real
outputs do not cover, printed with nccl-tests' own printf formats (util.cu HEAD; legacy/2.13 forms where named)
and numbers that follow its formulas (algbw = size/1e9/t, busbw = algbw * factor(n)). Deterministic; run it
from this folder to regenerate. The real outputs (allreduce_*.txt) are saved runs."""
import json
import math

def getfloat(v, width):
    """nccl-tests HEAD getFloatStr."""
    power, val = 0, 1
    while v >= val:
        power += 1
        val *= 10
    if power < width - 2:
        return "%*.2f" % (width, v)
    if power < width - 1:
        return "%*.1f" % (width, v)
    if power < width + 1:
        return "%*.0f" % (width, v)
    return "%*.1e" % (width, v) if width >= 7 else "%*.0e" % (width, v)

FACTOR = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
          "reduce_scatter": lambda n: (n - 1) / n, "sendrecv": lambda n: 1.0, "broadcast": lambda n: 1.0}

def times(size, lat_us, bw_gbps):
    return lat_us + size / (bw_gbps * 1e3)

def devices(n, per_host, hosts, prefix=""):
    out = []
    for r in range(n):
        h = hosts[r // per_host]
        out.append(prefix + "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s" %
                   (r, 0, 4000 + r, h, r % per_host, 0, 0x1b + r % per_host, 0, "NVIDIA H100 80GB HBM3"))
    return out

def table(coll, n, sizes, dtype="float", elt=4, redop="sum", root=-1, check=True, per_iter=False,
          timestamp=False, prefix="", lat=20.0, bw=40.0, inplace_checked=True):
    rows, bws = [], []
    for size in sizes:
        count = size // elt if coll in ("all_reduce", "sendrecv", "broadcast") else size // elt // n
        line = "%12li  %12li  %8s  %6s  %6s" % (size, count, dtype, redop, "%6i" % root)
        for place in (0, 1):
            t = times(size, lat + place * 0.3, bw)
            alg = size / 1e9 / (t * 1e-6)
            bus = alg * FACTOR[coll](n)
            bws.append(float(getfloat(bus, 6)))
            ts, al, bs = getfloat(t, 7), getfloat(alg, 6), getfloat(bus, 6)
            if check and (place == 0 or inplace_checked):
                line += "  %7s  %6s  %6s  %6g" % (ts, al, bs, 0)
            else:
                line += "  %7s  %6s  %6s    N/A" % (ts, al, bs)
            if per_iter:
                line += "  %7s  %7s  %7s  %7s" % (getfloat(t * 0.97, 7), getfloat(t * 1.2, 7),
                                                  getfloat(t * 1.18, 7), getfloat(3.5, 7))
        if timestamp:
            line += "%21s" % ("2026-06-01 12:00:%02d" % (len(rows) % 60))
        rows.append(prefix + line)
    return rows, bws

def header(per_iter=False, timestamp=False, prefix=""):
    ts_lbl, ts_fmt, pad = ("timestamp", "%Y-%m-%d %H:%M:%S", 19) if timestamp else ("", "", 0)
    if per_iter:
        h = ["# %10s  %12s  %8s  %6s  %6s              out-of-place (+ per-iteration)                                in-place (+ per-iteration)" % ("", "", "", "", ""),
             "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s %*s" % (
                 "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%",
                 "time", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%", pad, ts_lbl),
             "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s %*s" % (
                 "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)",
                 "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)", pad, ts_fmt)]
    else:
        h = ["# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          " % ("", "", "", "", ""),
             "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s" % (
                 "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw",
                 "#wrong", pad, ts_lbl),
             "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s" % (
                 "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", pad, ts_fmt)]
    return ["#"] + [prefix + x for x in h] if not prefix else [prefix + "#"] + [prefix + x for x in h]

def footer(bws, name, prefix=""):
    avg = sum(bws) / len(bws)
    return [prefix + x for x in ["# %-20s : %d %s" % ("Out of bounds values", 0, "OK"),
                                 "# %-20s : %g %s" % ("Avg bus bandwidth", avg, ""), "#",
                                 "# Collective test concluded: %s" % name, "#", ""]]

def preamble(name, minb, maxb, iters=20, prefix="", extra=()):
    return [prefix + x for x in [
        "# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803",
        "# Collective test starting: %s" % name,
        "# nThread 1 nGpus 1 minBytes %d maxBytes %d step: 2(factor) warmup iters: 1 iters: %d agg iters: 1 validation: 1 graph: 0 unalign: 0" % (minb, maxb, iters),
        *extra, "#", "# Using devices"]]

def sizes(lo, hi):
    out, s = [], lo
    while s <= hi:
        out.append(s)
        s *= 2
    return out

def write(name, lines):
    with open(name, "w") as f:
        f.write("\n".join(lines) + "\n")

# 1. HEAD layout, all_gather, 4 ranks on 2 hosts, -S timestamps, srun --label prefixes, a ssh warning.
szs = sizes(1024, 64 << 20)
rows, bws = table("all_gather", 4, szs, redop="none", timestamp=True, bw=20.0)
lines = ["Warning: Permanently added 'node03' (ED25519) to the list of known hosts."]
lines += ["0: " + x for x in preamble("all_gather_perf_mpi", 1024, 64 << 20)]
lines += ["0: " + x for x in devices(4, 2, ["node03", "node04"])]
lines += ["0: " + x for x in header(timestamp=True)] + ["0: " + r for r in rows]
lines += ["0: " + x for x in footer(bws, "all_gather_perf_mpi")]
write("synthetic_allgather_4rank_v2.19_timestamps_srun.txt", lines)

# 2. -I per-iteration columns, reduce_scatter, 8 ranks on 1 host, bf16.
szs = sizes(8192, 128 << 20)
rows, bws = table("reduce_scatter", 8, szs, dtype="bfloat16", elt=2, per_iter=True, bw=150.0, lat=12.0)
lines = preamble("reduce_scatter_perf", 8192, 128 << 20,
                 extra=["# Per-Iteration Report: CUDA event timing; i_* uses max over process rows "])
lines += devices(8, 8, ["gpu-a"]) + header(per_iter=True) + rows + footer(bws, "reduce_scatter_perf")
write("synthetic_reducescatter_8rank_per_iter.txt", lines)

# 3. sendrecv (in-place N/A), 2 ranks, 2.13-era header (single-space #wrong), NCCL WARN noise, no program line,
#    and a run that died: a partial row, no footer, a failure line.
szs = sizes(1 << 20, 256 << 20)
rows, bws = table("sendrecv", 2, szs, inplace_checked=False, bw=11.0)
lines = ["# nThread 1 nGpus 1 minBytes 1048576 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
         "#", "# Using devices"] + devices(2, 1, ["node05", "node06"])
lines += ["#",
          "#                                                              out-of-place                       in-place          ",
          "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
          "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       "]
lines += rows[:4] + ["node05:311:319 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 192.0.2.6<43211> with error 12"]
lines += rows[4:] + ["   536870912     134217728     float     sum      -1",
                     "node05: Test NCCL failure common.cu:1005 'remote process exited or there was a network error / '",
                     " .. node05 pid 4000: Test failure common.cu:891"]
write("synthetic_sendrecv_2rank_crashed.txt", lines)

# 4. A non-MPI build launched twice: two interleaved tagged tables of 1 rank each (busbw 0, nccl-tests#182).
szs = sizes(1 << 20, 16 << 20)
lines = []
tabs = []
for r in (0, 1):
    p = "[1,%d]<stdout>:" % r
    rows, bws = table("all_reduce", 1, szs, bw=200.0, prefix=p)
    pre = preamble("all_reduce_perf", 1 << 20, 16 << 20, prefix=p)
    dev = [p + "#  Rank  0 Group  0 Pid %6d on %10s device  0 [0000:1b:00] NVIDIA H100 80GB HBM3" % (5000 + r, "node0%d" % (7 + r))]
    tabs.append(pre + dev + header(prefix=p) + rows + footer(bws, "all_reduce_perf", prefix=p))
for a, b in zip(tabs[0], tabs[1]):
    lines += [a, b]
write("synthetic_allreduce_nonmpi_duplicated.txt", lines)

# 5. nccl-tests -J JSON version 3, all_reduce, 8 ranks on 2 hosts, with its quirks.
szs = sizes(8, 1 << 30)
n = 8
results = []
for size in szs:
    res = {"size": size, "count": size // 4, "type": "float", "redop": "sum", "root": "%6i" % -1}
    for place, key in ((0, "out_of_place"), (1, "in_place")):
        t = times(size, 30.0 + place * 0.5, 90.0)
        alg = size / 1e9 / (t * 1e-6)
        res[key] = {"time": float("%lf" % t), "alg_bw": float("%lf" % alg),
                    "bus_bw": float("%lf" % (alg * 2 * (n - 1) / n)), "nwrong": 0.0 if place == 0 else None}
    res["actual_iterations"] = 20
    res["experiment_name"] = ""
    results.append(res)
avg = sum(r[k]["bus_bw"] for r in results for k in ("out_of_place", "in_place")) / (2 * len(results))
doc = {"version": 3, "start_time": "2026-06-01 12:00:00", "args": ["./build/all_reduce_perf", "-b", "8", "-e", "1G", "-f", "2", "-J", "ar.json"],
       "env": ["NCCL_DEBUG=WARN", "NCCL_IB_HCA=mlx5"], "nccl_version": 22803,
       "config": {"nthreads": 1, "ngpus": 1, "minimum_bytes": 8, "maximum_bytes": 1 << 30, "step_factor": 2,
                  "warmup_iters": 1, "iterations": 20, "aggregated_iterations": 1, "validation": 1, "graph": 0,
                  "blocking_collectives": "false", "per_iter_timing": "false", "per_iter_skip": 0, "parallel_init": "false",
                  "devices": [{"rank": r, "group": 0, "pid": 7000 + r, "hostname": "node1%d" % (r // 4), "device": r % 4,
                               "device_hex": "0000:%02x:00" % (0x1b + r % 4), "device_info": "NVIDIA H100 80GB HBM3"} for r in range(n)]},
       "results": results, "out_of_bounds": {"count": 0, "okay": "true"},
       "average_bus_bandwidth": {"bandwidth": float("%lf" % avg), "okay": "unchecked"}, "errors": [], "end_time": "2026-06-01 12:00:09"}
with open("synthetic_allreduce_8rank_v3.json", "w") as f:
    json.dump(doc, f, indent=1)
