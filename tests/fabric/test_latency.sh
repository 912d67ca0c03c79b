#!/usr/bin/env bash
# fabcheck latency on a 4-host virtual fabric, LAT_RUNS times (default 3):
#  clean fabric  -> no pair's p50 is a DESIGN §4 outlier, and over the runs the median of (max pair p99 / median
#                   pair p99) stays <= 3 (runs where fabcheck measured the step's CPUs busy, HOST_CPU_BUSY, are
#                   printed, not judged);
#  one host's link throttled to 20mbit with iperf3 pushing bulk data into it for the whole measurement
#                -> that host's pairs rank first in the straggler ranking and their p99 is >= 3x the median p99
#                   of the other pairs.
# All pairs (circle method, 3 rounds of 2 pairs, measured one pair at a time: 2 cores here), 8 B, its two ends
# pinned to CPUs 0 and 1 (--pin-cpus 0,1; swapped in odd passes); clean runs 10000 samples per pair in 50 passes over the schedule
# (--passes 50), throttled runs 300 in 10 passes with --duration 2 (whichever ends first) so that the throttled
# pairs stay bounded in time (each later pass starts with an untimed exchange, ~100 ms through the full queue). Teardown leaves nothing behind.
source "$(dirname "$0")/lib.sh"
fab_init ftlat 270
: "${FABCHECK:?FABCHECK (the fabcheck binary) must be set; ctest sets it}"
command -v iperf3 >/dev/null || {
  echo "skipped: iperf3 not installed (ci/setup)" >&2
  exit 77
}
RUNS=${LAT_RUNS:-3}

"$VF" up --hosts 4 "${VFN[@]}"
mapfile -t hosts < <("$VF" hosts "${VFN[@]}")
victim=${hosts[2]}
# --pin-cpus 0,1: the two ends of the measured pair on different cores (the 4 hosts share 2 CPUs here). Without
# it a pair whose ends the scheduler put on one core measured a context switch per hop: clean p50s split into
# 12-16 us and 24-63 us by placement (2 of 3 runs had an outlier, 2026-12-01); pinned: 11.3-15.7 us.
lat=(latency --kind p2p --pattern all-pairs --serial --sizes 8 --duration 2 --warmup 20 --pin-cpus 0,1)
# Clean: 10000 samples per pair (~300 ms, osu_latency's default): with 300 (~10 ms) a momentary disturbance moved a whole pair's p50 by
# 12 % (1 of 6 runs flagged). Throttled: 300 per pair, since the straggler ranking pools the samples of all pairs
# and a throttled pair gets only ~50 within --duration (with 10000 per clean pair their 1 % tails outnumbered it).

measure() { # NAME ITERS PASSES: one fabcheck latency run across the hosts, report in $FAB_TMP/NAME.json
  local t0=$(date +%s)
  timeout 90 "$VF" mpirun "${VFN[@]}" -- -q "$FABCHECK" "${lat[@]}" --iters "$2" --passes "$3" -J "$FAB_TMP/$1.json" >"$FAB_TMP/$1.txt" ||
    { cat "$FAB_TMP/$1.txt" >&2; fail "$1: fabcheck latency failed"; }
  note "$1: $(($(date +%s) - t0)) s"
}

for ((run = 1; run <= RUNS; run++)); do
  "$VF" clear "${VFN[@]}"
  measure "clean$run" 10000 50

  "$VF" throttle "$victim" 20mbit "${VFN[@]}"
  "$VF" exec "$victim" "${VFN[@]}" -- iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
  FAB_BG+=($!)
  sleep 0.5
  "$VF" exec "${hosts[0]}" "${VFN[@]}" -- iperf3 -c "$("$VF" addr "$victim" "${VFN[@]}")" -p 5201 -P 4 -t 60 \
    >"$FAB_TMP/iperf$run.txt" 2>&1 &
  FAB_BG+=($!)
  sleep 2 # the queue into the victim is full
  measure "throttled$run" 300 10
  kill "${FAB_BG[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  FAB_BG=()
done

"$PY" - "$FAB_TMP" "$RUNS" "$victim" <<'PYEOF' || fail "report checks failed"
import json, statistics, sys
tmp, runs, victim = sys.argv[1], int(sys.argv[2]), sys.argv[3]
import os
load, cores = float(open("/proc/loadavg").read().split()[0]), os.cpu_count() or 1
# With the machine oversubscribed (other builds, > 2 runnable tasks per core) an idle-looking pair's p50 swings
# between ~15 us and ~2 ms with the scheduler; the clean-fabric p50 outlier test is then not about the fabric.
# On 2 cores the 4 hosts' ping-pong processes share cores: without --pin-cpus, clean pairs sat at 12-16 us or at
# 24-63 us depending on whether both ends shared a core (3 of 3 runs had one such pair flagged). With the ends
# pinned to CPUs 0 and 1 and each pair in one go, 8 of 9 clean runs passed (the first round's pairs 20 % above the
# rest once: a drift in time); with 10 passes spreading every pair over the run, 9 of 9 (p50s 12.5-16.1 us, no
# pair more than 8 % above its run's median; 2026-12-01). Earlier attempts, recorded for the next person
# (3 runs each, load 10-15): every rank pinned to one CPU (taskset -c 0):
# clean p50s 29-123 us, outliers and a failed p99 check in 2 of 3 runs (a context switch per hop, on a CPU
# shared with other builds); every rank SCHED_FIFO (chrt -f 1, each pair's ends on the two cores): clean p50s
# 14.7-17.3 us, one flagged in 3 runs (17.28 us against a 10 % limit of 17.27), but the real-time pollers starve
# iperf3, so the throttled host's queue no longer stays full and its pairs failed the 3x p99 check in 2 of 3 runs.
# Pinned + 10 passes: 12 of 13 clean runs passed, but a clean-clone CI run (2026-12-01) had three pairs at
# 13.3-13.6 us against 12.0-12.1 us (11-12 % above the median with a MAD of ~0.1 us), so the check was judged
# only on request for a while. Then, same day (worst pair p50 / median pair p50 per run): 10 passes 1.002-1.095
# over 20 runs in a noisy hour; 50 passes 1.002-1.020 over 10 quiet runs, 1.002-1.055 over 10 with a foreign
# CPU hog, pairs sitting at ~12.3 or ~13.3 us for the whole run: a state of the pair, not a drift in time. The
# pairs of h1 (initiator in all its pairs, so always on CPU 0) and h4 (always the responder, CPU 1) were the
# fastest: ranks that never changed CPU. --pin-cpus now swaps the two CPUs in odd passes. Interleaved, one hog,
# fastest / slowest pair p50 over 8 runs each: fixed roles 1.012-1.067, swapped 1.005-1.026; with two hogs no
# difference (1.015-1.080 either way, 4 + 4 runs x 2). This test with the swap: 6 clean runs, <= 1.03. Judged.
ok = True
def check(cond, msg):
    global ok
    print(("ok:   " if cond else "FAIL: ") + msg, file=sys.stderr)
    ok = ok and cond
def median(v):  # DESIGN §4 nearest rank
    v = sorted(v)
    return v[max(0, min(len(v) - 1, (5000 * len(v) + 9999) // 10000 - 1))]
def outliers_high(v):  # DESIGN §4: worse than the median by > 3 robust z and > 10 %
    m = median(v)
    mad = median([abs(x - m) for x in v])
    out = []
    for x in v:
        z = (x - m) / (1.4826 * mad) if mad > 0 else (float("inf") if x > m else 0.0)
        out.append(z > 3 and x > 1.1 * m)
    return out
def section(doc):
    s = [s for s in doc["latency"] if s["kind"] == "p2p"]
    assert len(s) == 1, "one p2p section"
    return s[0]
spread99 = []  # clean runs' max pair p99 / median pair p99, runs fabcheck did not measure busy
for run in range(1, runs + 1):
    c = section(json.load(open(f"{tmp}/clean{run}.json")))
    check(c["fabric_crossed"] is True and len(c["per_pair"]) == 6, f"run {run} clean: 6 host pairs, fabric crossed")
    check(sum(b[2] for b in c["histogram"]) == c["samples"], f"run {run} clean: histogram adds up to {c['samples']}")
    p50 = [p["p50_us"] for p in c["per_pair"]]
    p99 = [p["p99_us"] for p in c["per_pair"]]
    fl = outliers_high(p50)
    m99 = median(p99)
    print(f"run {run} clean: p50 {c['p50_us']:.1f} us, p99 {c['p99_us']:.1f} us; per pair p50 "
          + ", ".join(f"{p['pair']} {p['p50_us']:.1f}" for p in c["per_pair"])
          + "; per pair p99 " + ", ".join(f"{x:.1f}" for x in p99), file=sys.stderr)
    cl = json.load(open(f"{tmp}/clean{run}.json"))["run"]["sections"].get("latency", {}).get("cpu_load") or {}
    # p50 spread of clean pairs: > 10 % above the median pair is an outlier (DESIGN §4). When fabcheck itself
    # measured the step's CPUs busy (HOST_CPU_BUSY), a clean pair reached 1.10x (20.5 vs 18.6 us, one hog beside a
    # CI's fuzz label, load 5.0 on 2 cores, 2026-12-05): then the bound is 1.25x — a throttled link's pairs are
    # 1000x — and the figure is printed.
    if cl.get("busy"):
        worst = max(p50) / median(p50)
        check(worst <= 1.25, f"run {run} clean: slowest pair p50 {worst:.3f} x the median pair <= 1.25 (CPUs busy: "
              f"{cl.get('excess_per_core', 0.0):.2f} other work per core; load average {load:.1f} on {cores} cores)")
    else:
        check(not any(fl), f"run {run} clean: no p50 outlier among pairs ({[p for p, f in zip(p50, fl) if f]}; "
              f"load average {load:.1f} on {cores} cores)")
    # A clean pair's p99 is the scheduler's on an oversubscribed 2-core box: with one CPU hog beside the suite it
    # stayed under 3x the median pair; with a second job running as well (load 5.7 on 2 cores) one pair reached
    # 4.8x and 3.9x, and in a CI run with one hog and two builds beside it (load 5.3) 6.5x (2026-12-02). The rule
    # follows the product's: when fabcheck itself measured the step's CPUs busy (run.sections.latency.cpu_load,
    # >= 0.1 of each core used by other processes: HOST_CPU_BUSY, which makes tail findings context), the p99 spread is
    # printed with that figure and not judged; otherwise it must stay within 3x.
    line = (f"run {run} clean: max pair p99 {max(p99):.1f} <= 3 x median {m99:.1f} (fabcheck measured "
            f"{cl.get('excess_per_core', 0.0):.2f} other work per core by {(cl.get('kernels') or [{}])[0].get('measured_by', '?')}; "
            f"load average {load:.1f} on {cores} cores)")
    # One run's p99 spread is one sample of the scheduler: in a CI run (2026-12-07, fabcheck measured 0.09 other
    # work per core, just under HOST_CPU_BUSY, load average 3.7) one clean run of three had a pair at 4.9x while
    # the other two stayed at 1.23x and 1.08x. The judged figure is the median over the runs that fabcheck did not
    # measure busy (a throttled link's pairs are 30-180x in every run); each run's figure is printed.
    print(("ok:   " if max(p99) <= 3 * m99 else "over (one run): ") + line
          + (" [CPUs busy: not judged]" if cl.get("busy") else ""), file=sys.stderr)
    if not cl.get("busy"):
        spread99.append(max(p99) / m99)

    t = section(json.load(open(f"{tmp}/throttled{run}.json")))
    check(sum(b[2] for b in t["histogram"]) == t["samples"], f"run {run} throttled: histogram adds up")
    mine = [p for p in t["per_pair"] if victim in p["hosts"]]
    others = [p for p in t["per_pair"] if victim not in p["hosts"]]
    check(len(mine) == 3 and len(others) == 3, f"run {run} throttled: 3 pairs with {victim}, 3 without")
    ranking = [s["pair"] for s in t["stragglers"]]
    pos_mine = [i for i, p in enumerate(ranking) if victim in p]
    pos_other = [i for i, p in enumerate(ranking) if victim not in p]
    check(bool(pos_mine) and pos_mine[0] == 0 and (not pos_other or max(pos_mine) < min(pos_other)),
          f"run {run} throttled: {victim}'s pairs rank first: "
          f"{[(s['pair'], round(s['share'], 3)) for s in t['stragglers']]}")
    mo = median([p["p99_us"] for p in others])
    print(f"run {run} throttled: p50 {t['p50_us']:.1f} us, p99 {t['p99_us']:.1f} us; "
          + ", ".join(f"{p['pair']} p50 {p['p50_us']:.1f} p99 {p['p99_us']:.1f} n={p['samples']}" for p in t["per_pair"]),
          file=sys.stderr)
    for p in mine:
        check(p["p99_us"] >= 3 * mo, f"run {run} throttled: {p['pair']} p99 {p['p99_us']:.1f} >= 3 x {mo:.1f} (others' median)")
if spread99:
    m = median(spread99)
    check(m <= 3, f"clean runs: median over {len(spread99)} run(s) of max pair p99 / median pair p99 = {m:.2f} <= 3 "
          f"(per run {', '.join(f'{x:.2f}' for x in spread99)})")
else:
    print("not judged: every clean run measured its CPUs busy (HOST_CPU_BUSY)", file=sys.stderr)
sys.exit(0 if ok else 1)
PYEOF

"$VF" down "${VFN[@]}"
fab_assert_clean
echo PASS
