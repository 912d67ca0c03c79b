#!/usr/bin/env bash
# Scaling score on a 4-host virtual fabric: `fabcheck scaling --workload vfabric-demo` on the clean fabric
# scores in [0.2, 0.9]; with one host throttled the score is < 0.8x the clean score (unrounded, from the JSON).
# Also: 4 distinct hosts, host groups of 2 and 4 (not intra_node_only), the score's inputs beside it.
source "$(dirname "$0")/lib.sh"
fab_init fscale 270

RATE=${FABCHECK_SCALING_THROTTLE:-300mbit}
"$VF" up --hosts 4 "${VFN[@]}"
mapfile -t hosts < <("$VF" hosts "${VFN[@]}")
args=(scaling -b 256K -e 8M --coll allreduce -n 5 -w 1 --group-iters 5 --workload vfabric-demo)

note "clean fabric"
timeout 110 "$VF" mpirun "${VFN[@]}" -- "$FABCHECK" "${args[@]}" --json "$FAB_TMP/clean.json" >"$FAB_TMP/clean.txt" ||
  fail "fabcheck scaling on the clean fabric failed"
cat "$FAB_TMP/clean.txt"

note "throttling ${hosts[2]} to $RATE"
"$VF" throttle "${hosts[2]}" "$RATE" "${VFN[@]}"
timeout 130 "$VF" mpirun "${VFN[@]}" -- "$FABCHECK" "${args[@]}" --json "$FAB_TMP/slow.json" >"$FAB_TMP/slow.txt" ||
  fail "fabcheck scaling with ${hosts[2]} throttled failed"
cat "$FAB_TMP/slow.txt"

"$PY" - "$FAB_TMP/clean.json" "$FAB_TMP/slow.json" <<'PYEOF' || fail "score checks failed"
import json, sys
clean, slow = (json.load(open(p)) for p in sys.argv[1:3])
bad = []
for name, d in (("clean", clean), ("slow", slow)):
    hosts = [h["host"] for h in d["topology"]["hosts"]]
    if len(set(hosts)) != 4:
        bad.append(f"{name}: topology hosts {hosts}")
    g = d["scaling"]["groups"]
    if [x["hosts"] for x in g] != [2, 4] or any(x["intra_node_only"] for x in g):
        bad.append(f"{name}: groups {[(x['hosts'], x['intra_node_only']) for x in g]}")
    s = d["score"]
    if s["workload"] != "vfabric-demo" or not isinstance(s["scaling_efficiency"], float) or s["hosts"] != 4:
        bad.append(f"{name}: score {s.get('scaling_efficiency')} workload {s.get('workload')}")
    for k in ("t_compute_s", "t_comm_s", "exposed_s", "overlap", "curve_points", "method"):
        if k not in (s["inputs"] or {}):
            bad.append(f"{name}: score.inputs lacks {k}")
    ar = [x for x in d["sweeps"] if x["collective"] == "allreduce"][0]
    bw16 = [p["busbw_gbps"] for p in ar["points"] if p["size_bytes"] == 8 << 20 and p["placement"] == "out_of_place"]
    print(f"{name}: scaling_efficiency {s['scaling_efficiency']!r} t_comm_s {s['inputs']['t_comm_s']!r} "
          f"exposed_s {s['inputs']['exposed_s']!r} method {s['inputs']['method']} 8M busbw_gbps {bw16} "
          f"groups busbw {[x['busbw_gbps'] for x in g]}")
c, t = clean["score"]["scaling_efficiency"], slow["score"]["scaling_efficiency"]
if not (0.2 <= c <= 0.9):
    bad.append(f"clean score {c!r} outside [0.2, 0.9]")
if not (t < 0.8 * c):
    bad.append(f"throttled score {t!r} is not < 0.8 x clean {c!r}")
print(f"ratio throttled/clean = {t / c!r}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PYEOF
note "clean and throttled scores as expected"
