#!/usr/bin/env bash
# Acceptance on a 6-host virtual fabric (receiver h1, senders h2..h5, victim h6):
#   3 clean runs (fan-in 4), then the receiver throttled to 200mbit with its queue shortened to 300 packets
#   (fan-in 1,2,4): median-based congestion_impact at k=4 >= 5 and >= 3x the largest clean one (of the clean runs
#   whose CPUs fabcheck did not find busy; the median of the three when all were); overlap >= 0.9;
#   goodput <= 1.1x the tbf rate for every k (a timing sanity check). Clean goodput is printed, not asserted.
#   The congested run's senders retransmitted (their TCP counters) and one INCAST_LOSS names the
#   receiver; the clean runs raise no loss finding.
# The victim's pings from h6 cross the same tbf queue (root-side veth egress toward h1) as the incast.
# Queue: 300 packets (450 KB, ~18 ms at 200mbit; the default limit is ~870 packets). A clean incast at 1-4 GB/s
# keeps the receiver's progress loop and the 2 cores busy, which alone raises the victim's median: measured 0.8-7.4x
# on a quiet machine and up to 25-52x with 1-2 foreign CPU hogs (only 10-20 victim samples fall inside the short
# clean incast). With 100 packets the throttled impact was 46-102x, so a loaded machine failed ">= 3x the largest
# clean" (1 of 2 runs with one hog); with 300 packets it was 133-353x, and 8 of 8 runs passed (4 quiet, 2 with one
# hog, 2 with two; 2026-12-01). With 40 packets it rose only ~22x. Both runs use the same flags (sizes, rounds,
# victim pacing) so that they differ only in the fabric.
# TCP in the namespaces is pinned to a loss-based congestion control (reno), whatever the host's default: the
# default here is bbr, which paces at the bottleneck rate and keeps the queue nearly empty, so the victim's
# latency would say which congestion control the host runs, not what an incast does to a shallow buffer.
# Slow start after idle is off so that each burst starts where the previous one left off (bursts are separated by
# barriers longer than the RTO).
source "$(dirname "$0")/lib.sh"
fab_init ftinc 150
: "${FABCHECK:?FABCHECK (the fabcheck binary) must be set; ctest sets it}"

"$VF" up --hosts 6 "${VFN[@]}"
mapfile -t hosts < <("$VF" hosts "${VFN[@]}")
recv=${hosts[0]}
for h in "${hosts[@]}"; do
  "$VF" exec "$h" "${VFN[@]}" -- sh -c 'echo reno >/proc/sys/net/ipv4/tcp_congestion_control &&
    echo 0 >/proc/sys/net/ipv4/tcp_slow_start_after_idle' || fail "cannot set TCP sysctls in $h"
done

measure() { # NAME ARGS...: one fabcheck incast run across the hosts, report in $FAB_TMP/NAME.json
  local name=$1 t0
  shift
  t0=$(date +%s)
  timeout 60 "$VF" mpirun "${VFN[@]}" -- "$FABCHECK" incast --sizes 1M --rounds 8 --victim-iters 300 "$@" \
    --json "$FAB_TMP/$name.json" >"$FAB_TMP/$name.txt" 2>&1 ||
    { cat "$FAB_TMP/$name.txt" >&2; fail "$name: fabcheck incast failed"; }
  note "$name: $(($(date +%s) - t0)) s"
}

for i in 1 2 3; do measure "clean$i" --fan-in 4; done
"$VF" throttle "$recv" 200mbit "${VFN[@]}"
"$VF" queue "$recv" "${INCAST_QUEUE:-300}" "${VFN[@]}"
measure congested --fan-in 1,2,4
cat "$FAB_TMP/congested.txt"

"$PY" - "$FAB_TMP" "$recv" <<'PYEOF' || fail "report checks failed"
import json, sys
work, recv = sys.argv[1], sys.argv[2]
rate_gbps = 200e6 / 8 / 1e9  # 200 Mbit/s in GB/s
def pts(f):
    return {p["fan_in"]: p for p in json.load(open(f"{work}/{f}.json"))["incast"]}
def busy(f):  # the CPU load fabcheck recorded beside the step: other work per core
    cl = json.load(open(f"{work}/{f}.json"))["run"]["sections"]["incast"].get("cpu_load") or {}
    return cl.get("excess_per_core", 0.0), bool(cl.get("busy"))
def victim(p):
    v, ci = p["victim"], p["congestion_impact"]
    return (f"victim p50 isolated {v['isolated_p50_us']:.1f} us, congested {v['congested_p50_us']:.1f} us "
            f"({v['congested_samples']} samples), impact_p50 {ci['p50']:.2f}, overlap {v['overlap']:.3f}")
clean = [pts(f"clean{i}")[4] for i in (1, 2, 3)]
loads = [busy(f"clean{i}") for i in (1, 2, 3)]
cong = pts("congested")
ok = True
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok = ok and cond
for i, c in enumerate(clean, 1):
    print(f"clean{i} k=4: goodput {c['goodput_gbps']:.3f} GB/s; {victim(c)}; "
          f"other work {loads[i - 1][0]:.2f} per core{' (busy)' if loads[i - 1][1] else ''}")
p = cong[4]
print(f"congested k=4: goodput {p['goodput_gbps']:.4f} GB/s; {victim(p)}")
check(p["receiver"] == recv, f"receiver is {recv}")
imp = p["congestion_impact"]["p50"]
# The reference is the largest clean impact of the runs whose CPUs were not busy: a clean victim on busy cores
# measures the scheduler (13-14 samples inside a short clean burst; measured 90x with one hog beside 6 ranks on
# 2 cores, 2026-12-02). When every clean run was busy, the median of the three stands in, and the line says so.
quiet = [c["congestion_impact"]["p50"] for c, (_, b) in zip(clean, loads) if not b]
if quiet:
    clean_max = max(quiet)
    ref = f"largest clean of {len(quiet)} not busy"
else:
    clean_max = sorted(c["congestion_impact"]["p50"] for c in clean)[1]
    ref = "median clean (all 3 clean runs on busy CPUs)"
print(f"clean impacts {[round(c['congestion_impact']['p50'], 2) for c in clean]}; reference: {ref}")
check(imp >= 5, f"median congestion_impact at k=4 {imp:.2f} >= 5")
check(imp >= 3 * clean_max, f"median congestion_impact {imp:.2f} >= 3x {ref} {clean_max:.2f}")
check(p["victim"]["overlap"] >= 0.9, f"overlap {p['victim']['overlap']:.3f} >= 0.9")
for k, q in sorted(cong.items()):
    check(q["goodput_gbps"] <= 1.1 * rate_gbps,
          f"k={k} goodput {q['goodput_gbps']:.4f} GB/s <= 1.1x tbf rate {rate_gbps:.4f}")
# Proof of loss: the senders' own TCP counters show the retransmissions the short queue caused, and
# one INCAST_LOSS names the receiver; the clean runs raise no loss finding at all.
def loss(f):
    d = json.load(open(f"{work}/{f}.json"))
    hosts = d["run"]["sections"]["incast"]["counters"]["hosts"]
    re = {h["host"]: (h["deltas"].get("Tcp.RetransSegs", 0), h["deltas"].get("Tcp.OutSegs", 0)) for h in hosts}
    codes = [x for x in d["findings"] if x["code"] in ("INCAST_LOSS", "TCP_RETRANSMITS")]
    return re, codes
for i in (1, 2, 3):
    re, codes = loss(f"clean{i}")
    print(f"clean{i} retransmitted/sent TCP segments per host: {re}")
    check(not codes, f"clean{i}: no loss finding ({[c['message'] for c in codes]})")
re, codes = loss("congested")
print(f"congested retransmitted/sent TCP segments per host: {re}")
senders = {s for q in cong.values() for s in q["senders"]}
check(sum(re[s][0] for s in senders) > 0, f"the senders {sorted(senders)} retransmitted during the incast")
il = [c for c in codes if c["code"] == "INCAST_LOSS"]
check(len(il) == 1 and il[0]["evidence"]["receiver"] == recv,
      f"one INCAST_LOSS naming {recv}: {[c['message'] for c in il]}")
sys.exit(0 if ok else 1)
PYEOF
note "pass"
