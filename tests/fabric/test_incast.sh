#!/usr/bin/env bash
# Issue 7 acceptance on a 6-host virtual fabric (receiver h1, senders h2..h5, victim h6):
#   3 clean runs, then the receiver throttled to 200mbit with a short queue:
#   median-based congestion_impact >= 5 and >= 3x the largest clean one; overlap >= 0.9;
#   goodput <= 1.1x the tbf rate for every k (a timing sanity check). Clean goodput is printed, not asserted.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
VF="$here/vfabric"
FAB=${FABCHECK:?FABCHECK not set}
PY=${PYTHON:-python3}
name="ic$((RANDOM % 100000))"
work=$(mktemp -d)
cleanup() { "$VF" down --name "$name" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 1' INT TERM

"$VF" up --hosts 6 --name "$name"
mapfile -t hosts < <("$VF" hosts --name "$name")
recv=${hosts[0]}
args=(incast --fan-in 1,2,4 --sizes 1M --rounds 3 --victim-iters 400)
for i in 1 2 3; do
  timeout 60 "$VF" mpirun --name "$name" -- "$FAB" "${args[@]}" --json "$work/clean$i.json" >"$work/clean$i.txt"
done
"$VF" throttle --name "$name" "$recv" 200mbit
"$VF" queue --name "$name" "$recv" 40
timeout 90 "$VF" mpirun --name "$name" -- "$FAB" "${args[@]}" --json "$work/congested.json" | tee "$work/congested.txt"

"$PY" - "$work" "$recv" <<'PYEOF'
import json, sys
work, recv = sys.argv[1], sys.argv[2]
rate_gbps = 200e6 / 8 / 1e9  # 200 Mbit/s in GB/s
def pts(f):
    return {p["fan_in"]: p for p in json.load(open(f"{work}/{f}"))["incast"]}
clean = [pts(f"clean{i}.json") for i in (1, 2, 3)]
cong = pts("congested.json")
ok = True
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok = ok and cond
for c in clean:
    print("clean: " + ", ".join(f"k={k} goodput {p['goodput_gbps']:.3f} GB/s impact_p50 {p['congestion_impact']['p50']:.2f}"
                                for k, p in sorted(c.items())))
k = 4
p = cong[k]
check(p["receiver"] == recv, f"receiver is {recv}")
imp = p["congestion_impact"]["p50"]
clean_max = max(c[k]["congestion_impact"]["p50"] for c in clean)
print(f"victim p50 isolated {p['victim']['isolated_p50_us']:.1f} us, congested {p['victim']['congested_p50_us']:.1f} us")
check(imp >= 5, f"median congestion_impact at k=4 {imp:.2f} >= 5")
check(imp >= 3 * clean_max, f"median congestion_impact {imp:.2f} >= 3x largest clean {clean_max:.2f}")
check(p["victim"]["overlap"] >= 0.9, f"overlap {p['victim']['overlap']:.3f} >= 0.9")
for kk, q in sorted(cong.items()):
    check(q["goodput_gbps"] <= 1.1 * rate_gbps, f"k={kk} goodput {q['goodput_gbps']:.4f} GB/s <= 1.1x tbf rate {rate_gbps:.4f}")
sys.exit(0 if ok else 1)
PYEOF
