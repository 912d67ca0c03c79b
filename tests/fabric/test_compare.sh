#!/usr/bin/env bash
# `fabcheck compare` on a 4-host virtual fabric (issue 10): two clean allreduce sweeps and one with a host throttled.
# compare(clean1, clean2) flags <= 5 % of the metrics; compare(clean1, throttled) calls every busBw point >= 1 MiB
# worse (Mann-Whitney on the per-iteration samples, Holm, p < 0.01 and |delta| >= 10 %). Prints the flagged fractions.
# The per-iteration samples are taken in 10 rounds spread over each sweep (--per-iter-rounds, default 10): with the
# whole pass in one burst per point (rounds 1), a point's 20 samples shared the conditions of one ~50 ms moment, and
# on this 2-core machine those moments differ by 2x (a clean 1 MiB point: p50 3.5 ms in one sweep, 1.75 ms in the
# next), so 7-52 % of clean-vs-clean metrics were flagged. Spread in 10 rounds: 0-1 of 14 points in 6 pairs of
# clean sweeps, and 0/71 metrics in this test (4 runs, 2026-12-01); the ranks are also pinned (below). The bound
# is printed, not asserted (see the NOTE below).
source "$(dirname "$0")/lib.sh"
fab_init ftcmp 170
: "${FABCHECK:?FABCHECK (the fabcheck binary) must be set; ctest sets it}"

RATE=${FABCHECK_COMPARE_THROTTLE:-500mbit}
LOAD0=$(cut -d' ' -f1 /proc/loadavg)
"$VF" up --hosts 4 "${VFN[@]}"
mapfile -t hosts < <("$VF" hosts "${VFN[@]}")
sweep=(sweep --coll allreduce -b 64K -e 4M -f 2 -n 10 --per-iter-iters 20 -w 2 -c 0)

# Each host's rank on its own CPU, hI on CPU (I-1) mod nproc, as a real host has its own cores: left to the
# scheduler, the 4 busy-polling ranks on 2 CPUs were paired differently in every launch, and such a placement
# persists for the whole sweep, so rounds cannot average it out: in a clean-clone CI run one point (1 MiB
# out-of-place) was 46 % slower in the second sweep in all 10 rounds (5 of 71 metrics, 7 %). 6 clean sweeps each
# way, same session: unpinned 3 of 15 pairs of sweeps had a point flagged, pinned 0 of 15 (twice; 2026-12-01).
pin='i=$(hostname | sed "s/.*-h//"); exec taskset -c $(((i - 1) % $(nproc))) "$0" "$@"'
run_sweep() { # NAME
  local t0
  t0=$(date +%s)
  timeout 60 "$VF" mpirun "${VFN[@]}" -- sh -c "$pin" "$FABCHECK" "${sweep[@]}" -J "$FAB_TMP/$1.json" >"$FAB_TMP/$1.txt" ||
    { cat "$FAB_TMP/$1.txt"; fail "sweep $1 failed"; }
  note "sweep $1: $(($(date +%s) - t0)) s"
}
run_sweep clean1
run_sweep clean2
"$VF" throttle "${hosts[1]}" "$RATE" "${VFN[@]}"
run_sweep slow

"$FABCHECK" compare "$FAB_TMP/clean1.json" "$FAB_TMP/clean2.json" --label clean1 --label clean2 \
  --json "$FAB_TMP/cc.json" >"$FAB_TMP/cc.txt" || fail "compare clean1 clean2 failed"
"$FABCHECK" compare "$FAB_TMP/clean1.json" "$FAB_TMP/slow.json" --label clean --label throttled \
  --json "$FAB_TMP/cs.json" --html "$FAB_TMP/cs.html" >"$FAB_TMP/cs.txt" || fail "compare clean slow failed"
grep -E 'busbw_gbps|^#' "$FAB_TMP/cs.txt" >&2

"$PY" - "$FAB_TMP/cc.json" "$FAB_TMP/cs.json" "$FAB_TMP/cs.html" "$RATE" "$LOAD0" <<'PYEOF' || fail "compare checks failed"
import json, os, sys
cc, cs = (json.load(open(p))["compare"] for p in sys.argv[1:3])
html = open(sys.argv[3]).read()
ok = True
def check(cond, msg):
    global ok
    print(("ok:   " if cond else "FAIL: ") + msg, file=sys.stderr)
    ok = ok and cond
for name, c in (("clean1 vs clean2", cc), ("clean1 vs throttled", cs)):
    s = c["summary"]
    print(f"{name}: {s['flagged']}/{s['metrics']} metrics flagged ({100 * s['flagged'] / s['metrics']:.1f} %), "
          f"{s['worse']} worse, {s['better']} better, {s['tests']} tests, {s['noise_unknown']} noise unknown",
          file=sys.stderr)
    check(s["tests"] == 14 and s["metrics"] >= 70, f"{name}: 14 sweep points tested, >= 70 metrics ({s})")
for m in cc["metrics"]:
    if m["verdict"] in ("worse", "better"):
        print(f"  clean2 {m['verdict']}: {m['item']} {m['metric']} {m['a']:.4g} -> {m['b']:.4g} "
              f"({m['delta_pct']:+.1f} %), p_holm {m['p_holm']:.2g}", file=sys.stderr)
s = cc["summary"]
load, cores = float(sys.argv[5]), os.cpu_count() or 1
# NOT asserted (issue 10 stays open on it): besides the point shifts that rounds and pinning removed, a whole
# sweep can run ~25 % slower than the previous one on this shared 2-core VM (clean-clone CI 2026-12-01: 45/71
# metrics, every point 11-80 % slower, all significant), a between-run drift that samples within one run cannot
# show. Measured with rounds + pinning: 0/71 in 10 of 12 runs, 5/71 once, 45/71 once.
print(f"NOTE: clean1 vs clean2 flagged {s['flagged']}/{s['metrics']} "
      f"({100.0 * s['flagged'] / max(1, s['metrics']):.1f} %; issue 10 asks <= 5 %, not asserted: between-run drift; "
      f"{cores} cores, load average {load:.1f} before the sweeps)", file=sys.stderr)
big = [m for m in cs["metrics"] if m["metric"] == "busbw_gbps" and m["key"].get("size_bytes", 0) >= 1 << 20]
check(len(big) == 6, f"6 busBw points >= 1 MiB (3 sizes x 2 placements), got {len(big)}")
for m in big:
    check(m["verdict"] == "worse",
          f"throttled ({sys.argv[4]}) {m['item']}: busbw {m['a']:.4f} -> {m['b']:.4f} GB/s "
          f"({m['delta_pct']:+.1f} %), p_holm {m['p_holm']:.2g}, n {m['n_a']}/{m['n_b']}: {m['verdict']}")
check(html.count('<tr class="worse">') == cs["summary"]["worse"], "HTML has one worse row per worse metric")
sys.exit(0 if ok else 1)
PYEOF

"$VF" down "${VFN[@]}"
fab_assert_clean
echo PASS
