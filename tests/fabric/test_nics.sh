#!/usr/bin/env bash
# fabcheck nics on 4 virtual hosts x 2 rails + a management network, NICS_RUNS (default 2) runs each:
#   clean rail-only fabric       -> NICS_RAIL_ONLY, no other warn or fail finding, exit 0;
#   cross-rail on                -> no finding at all;
#   host 2's rail 1 throttled    -> NICS_SLOW_NIC naming that host and eth1 (not NICS_SLOW_HOST), confirmed, exit 1;
#   host 3's rail 1 link down    -> NICS_NIC_DOWN naming that host and eth1, exit 1;
#   MPI's btl_tcp_if_include on the management subnet -> NICS_MGMT_IN_USE naming mgmt0;
# every run: n-1 = 3 rounds, 48 directed NIC pairs, under 30 s of probe time. Then one rail, every link held to
# 200mbit (the link, not the CPUs, is the bottleneck): nics and pairs agree on the median bandwidth within 10 %.
source "$(dirname "$0")/lib.sh"
fab_init fnics 600
[ -x "${FABCHECK:-}" ] || fail "FABCHECK is not set to the fabcheck binary"
RUNS=${NICS_RUNS:-2}

"$VF" up --hosts 4 --rails 2 --mgmt "${VFN[@]}"
mapfile -t H < <("$VF" hosts "${VFN[@]}")
FLAGS=(--ifaces eth --budget-ms 100 --lat-iters 100 --connect-timeout-ms 500)

nics() { # [WANT_RC=N] nics TAG [MPIRUN ARGS...] : report in $FAB_TMP/TAG.json, console in TAG.out
  local tag=$1 t0=$SECONDS rc=0 want=${WANT_RC:-0}
  shift
  timeout 120 "$VF" mpirun "${VFN[@]}" -- "$@" "$FABCHECK" nics "${FLAGS[@]}" --json "$FAB_TMP/$tag.json" \
    >"$FAB_TMP/$tag.out" 2>"$FAB_TMP/$tag.err" || rc=$?
  [ "$rc" = "$want" ] || { cat "$FAB_TMP/$tag.err" "$FAB_TMP/$tag.out" >&2; fail "$tag: fabcheck nics exited $rc, want $want"; }
  note "$tag: nics took $((SECONDS - t0)) s, exit $rc"
}

# check TAG PYTHON: assertions on d (report), n = d["nics"], codes (warn/fail codes), f(code) -> findings
check() {
  local tag=$1 code=$2
  "$PY" - "$FAB_TMP/$tag.json" "${H[@]}" <<PYEOF || { cat "$FAB_TMP/$tag.out" >&2; fail "$tag"; }
import json, sys
d = json.load(open(sys.argv[1])); n = d["nics"]; hosts = sys.argv[2:]
# HOST_CPU_BUSY is the step's measured CPU load, not a NIC finding: under a CPU hog it is right to say so.
codes = sorted(x["code"] for x in d["findings"] if x["severity"] in ("warn", "fail") and x["code"] != "HOST_CPU_BUSY")
busy = [x for x in d["findings"] if x["code"] == "HOST_CPU_BUSY"]
def f(c): return [x for x in d["findings"] if x["code"] == c]
assert sorted(n["hosts"]) == sorted(hosts), n["hosts"]
assert len(n["schedule"]) == len(hosts) - 1, ("rounds", n["schedule"])
assert len(n["links"]) == 48, ("NIC pairs", len(n["links"]))
assert len(n["rails"]) == 2, n["rails"]
assert n["duration_s"] < 30, ("probe time", n["duration_s"])
assert all(l["bound_device"] for l in n["links"]), "SO_BINDTODEVICE refused"
$code
print("ok %.1f s %s" % (n["duration_s"], codes))
PYEOF
}

for k in $(seq 1 "$RUNS"); do
  nics "clean$k"
  check "clean$k" '
assert codes == ["NICS_RAIL_ONLY"], codes
r = f("NICS_RAIL_ONLY")[0]; e = r["evidence"]
assert r["severity"] == "warn" and e["cross_rail_reachable"] == 0 and e["same_rail_reachable"] == e["same_rail_attempted"] == 24, r
assert [[c["reachable"] for c in row] for row in n["reachability"]] == [[12, 0], [0, 12]], n["reachability"]'
done

"$VF" cross-rail on "${VFN[@]}"
for k in $(seq 1 "$RUNS"); do
  nics "cross$k"
  check "cross$k" '
assert codes == [], codes
assert [[c["reachable"] for c in row] for row in n["reachability"]] == [[12, 12], [12, 12]], n["reachability"]'
done
"$VF" cross-rail off "${VFN[@]}"

"$VF" throttle "${H[1]}" --rail 1 200mbit "${VFN[@]}"
for k in $(seq 1 "$RUNS"); do
  WANT_RC=1 nics "slow$k"
  check "slow$k" "
assert codes == ['NICS_RAIL_ONLY', 'NICS_SLOW_NIC'], codes
s = f('NICS_SLOW_NIC')[0]
assert s['severity'] == 'fail' and s['evidence']['host'] == '${H[1]}' and s['evidence']['ifaces'] == ['eth1'], s
assert s['evidence']['confirmed'] is True and s['evidence']['other_nics_fine'] == ['eth0'], s
assert not f('NICS_SLOW_HOST'), 'blamed the host'"
done
"$VF" clear "${VFN[@]}"

"$VF" link-down "${H[2]}" --rail 1 "${VFN[@]}"
for k in $(seq 1 "$RUNS"); do
  WANT_RC=1 nics "down$k"
  check "down$k" "
d_ = f('NICS_NIC_DOWN')
assert len(d_) == 1 and d_[0]['severity'] == 'fail', d_
assert d_[0]['evidence']['host'] == '${H[2]}' and d_[0]['evidence']['iface'] == 'eth1' and d_[0]['evidence']['carrier'] is False, d_
assert [c for c in codes if c.startswith('NICS_')] == ['NICS_NIC_DOWN', 'NICS_RAIL_ONLY'], codes
assert not f('NICS_UNREACHABLE'), 'the dead NIC explains its pairs'"
done
"$VF" clear "${VFN[@]}"

MSUB=$(cat "/run/vfabric/$FAB_NAME/mgmt_subnet")
for k in $(seq 1 "$RUNS"); do
  nics "mgmt$k" --mca btl_tcp_if_include "$MSUB"
  check "mgmt$k" "
m = f('NICS_MGMT_IN_USE')
assert len(m) == 1 and m[0]['evidence']['selects'] == ['mgmt0'] and m[0]['evidence']['data_nics'] == ['eth0', 'eth1'], m
assert m[0]['evidence']['value'] == '$MSUB' and 'btl_tcp_if_include eth0,eth1' in m[0]['remedy'], m
assert codes == ['NICS_MGMT_IN_USE', 'NICS_RAIL_ONLY'], codes"
done
"$VF" down "${VFN[@]}"

# One rail, the links the bottleneck: nics (raw TCP) and pairs (MPI over TCP) measure the same links.
"$VF" up --hosts 4 "${VFN[@]}"
for i in 1 2 3 4; do "$VF" throttle "$i" 200mbit "${VFN[@]}"; done
timeout 120 "$VF" mpirun "${VFN[@]}" -- "$FABCHECK" nics --json "$FAB_TMP/one.json" >"$FAB_TMP/one.out" 2>&1 ||
  { cat "$FAB_TMP/one.out" >&2; fail "one-rail nics"; }
timeout 120 "$VF" mpirun "${VFN[@]}" -- "$FABCHECK" pairs --size 8M --lat-iters 100 --budget-ms 150 \
  --json "$FAB_TMP/pairs.json" >"$FAB_TMP/pairs.out" 2>&1 || { cat "$FAB_TMP/pairs.out" >&2; fail "one-rail pairs"; }
"$PY" - "$FAB_TMP/one.json" "$FAB_TMP/pairs.json" <<'PYEOF' || { cat "$FAB_TMP/one.out" >&2; fail "nics vs pairs"; }
import json, statistics, sys
n = json.load(open(sys.argv[1]))["nics"]; p = json.load(open(sys.argv[2]))["pairs"]
assert all(len([x for x in h if x["data"]]) == 1 for h in n["nics"]), n["nics"]
nm = n["rails"][0]["bw_median_gbps"]
pm = statistics.median(v for row in p["bw_gbps"] for v in row if v is not None)
print("one rail at 200mbit: nics median %.4f GB/s, pairs median %.4f GB/s, ratio %.3f" % (nm, pm, nm / pm))
assert 0.9 < nm / pm < 1.1, (nm, pm)
PYEOF
note "all cases passed"
