#!/usr/bin/env bash
# End to end: 4 hosts, `fabcheck sweep` across them. The report's topology shows 4 distinct hostnames (those of the
# fabric), one rank each, and the data check passes; then one host is throttled to 100mbit and the 16 MiB allreduce
# busBw must fall by more than 5x; teardown leaves no namespace, veth or bridge behind.
source "$(dirname "$0")/lib.sh"
fab_init ftsweep 230
: "${FABCHECK:?FABCHECK (the fabcheck binary) must be set; ctest sets it}"

"$VF" up --hosts 4 "${VFN[@]}"
mapfile -t hosts < <("$VF" hosts "${VFN[@]}")
sweep=(sweep --coll allreduce -b 16M -e 16M -w 1 --per-iter-iters 0)

t0=$(date +%s)
timeout 90 "$VF" mpirun "${VFN[@]}" -- "$FABCHECK" "${sweep[@]}" -n 2 -c 1 --json "$FAB_TMP/clean.json" \
  >"$FAB_TMP/clean.txt" || { cat "$FAB_TMP/clean.txt"; fail "clean sweep failed"; }
note "clean sweep: $(($(date +%s) - t0)) s"
grep -v '^#' "$FAB_TMP/clean.txt" | grep -E '^ +16777216' >&2 || true

"$VF" throttle "${hosts[1]}" 100mbit "${VFN[@]}"
t0=$(date +%s)
timeout 120 "$VF" mpirun "${VFN[@]}" -- "$FABCHECK" "${sweep[@]}" -n 1 -c 0 --json "$FAB_TMP/slow.json" \
  >"$FAB_TMP/slow.txt" || { cat "$FAB_TMP/slow.txt"; fail "throttled sweep failed"; }
note "throttled sweep (${hosts[1]} at 100mbit): $(($(date +%s) - t0)) s"
grep -v '^#' "$FAB_TMP/slow.txt" | grep -E '^ +16777216' >&2 || true

"$PY" - "$FAB_TMP/clean.json" "$FAB_TMP/slow.json" "${hosts[@]}" <<'PYEOF' || fail "report checks failed"
import json, sys
clean, slow = (json.load(open(p)) for p in sys.argv[1:3])
want = sorted(sys.argv[3:])
ok = True
def check(cond, msg):
    global ok
    print(("ok:   " if cond else "FAIL: ") + msg, file=sys.stderr)
    ok = ok and cond
for name, doc in (("clean", clean), ("throttled", slow)):
    topo = doc["topology"]
    names = sorted(h["host"] for h in topo["hosts"])
    check(topo["nranks"] == 4, f"{name}: topology.nranks = {topo['nranks']} (want 4)")
    check(names == want, f"{name}: topology hosts {names} (want the fabric's {want})")
    check(all(len(h["ranks"]) == 1 for h in topo["hosts"]), f"{name}: one rank per host {[h['ranks'] for h in topo['hosts']]}")
def point(doc, placement):
    for s in doc["sweeps"]:
        if s["collective"] == "allreduce":
            for p in s["points"]:
                if p["size_bytes"] == 16 << 20 and p["placement"] == placement:
                    return p
    raise SystemExit(f"no 16 MiB allreduce {placement} point in the report")
for placement in ("out_of_place", "in_place"):
    c, s = point(clean, placement), point(slow, placement)
    if placement == "out_of_place":
        check(c["wrong"] == 0, f"clean: #wrong = {c['wrong']} at 16 MiB")
    ratio = c["busbw_gbps"] / s["busbw_gbps"] if s["busbw_gbps"] > 0 else float("inf")
    check(ratio > 5, f"16 MiB allreduce {placement} busBw clean {c['busbw_gbps']:.4f} GB/s, "
          f"throttled {s['busbw_gbps']:.4f} GB/s: fell {ratio:.1f}x (want > 5x)")
sys.exit(0 if ok else 1)
PYEOF

"$VF" down "${VFN[@]}"
fab_assert_clean
echo PASS
