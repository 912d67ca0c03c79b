#!/usr/bin/env bash
# fabcheck pairs on 6 virtual hosts (issue 6), --size 8M:
#   clean (PAIRS_CLEAN_RUNS times, default 1) -> no outliers, no suspects;
#   throttle-link A -> B 50mbit -> exactly one bandwidth outlier, A -> B, no suspect host;
#   throttle one host 100mbit -> that host is a suspect, confirmed, and left out of --exclude-hostfile.
source "$(dirname "$0")/lib.sh"
fab_init fpairs 400
[ -x "${FABCHECK:-}" ] || fail "FABCHECK is not set to the fabcheck binary"

"$VF" up --hosts 6 "${VFN[@]}"
mapfile -t H < <("$VF" hosts "${VFN[@]}")
[ ${#H[@]} = 6 ] || fail "expected 6 hosts, got ${#H[@]}"
FLAGS=(--size 8M --lat-iters 200 --budget-ms 300)

pairs() { # pairs TAG: runs fabcheck pairs, report in $FAB_TMP/TAG.json, console in TAG.out
  local tag=$1 t0=$SECONDS
  timeout 200 "$VF" mpirun "${VFN[@]}" -- "$FABCHECK" pairs "${FLAGS[@]}" --json "$FAB_TMP/$tag.json" \
    --exclude-hostfile "$FAB_TMP/$tag.hosts" >"$FAB_TMP/$tag.out" 2>"$FAB_TMP/$tag.err" ||
    { cat "$FAB_TMP/$tag.err" >&2; fail "$tag: fabcheck pairs exited $?"; }
  note "$tag: pairs took $((SECONDS - t0)) s"
}

# check TAG PYTHON-ASSERTIONS: evaluates assertions on p = report["pairs"]; prints the console on failure
check() {
  local tag=$1 code=$2
  "$PY" - "$FAB_TMP/$tag.json" "$FAB_TMP/$tag.hosts" "${H[@]}" <<PYEOF || { cat "$FAB_TMP/$tag.out" >&2; fail "$tag"; }
import json, sys
d = json.load(open(sys.argv[1])); p = d["pairs"]; hosts = sys.argv[3:]
passed = open(sys.argv[2]).read().split()
bw = [o for o in p["outliers"] if o["kind"] == "bw"]
lat = [o for o in p["outliers"] if o["kind"] == "lat"]
sus = p["suspects"]
assert p["hosts"] == hosts or sorted(p["hosts"]) == sorted(hosts), p["hosts"]
n = len(hosts)
assert len(p["schedule"]) == n - 1, "schedule rounds"
for i in range(n):
    for j in range(n):
        v = p["bw_gbps"][i][j]
        assert (v is None) == (i == j), ("bw cell", i, j, v)
        if i != j: assert v > 0 and p["lat_p50_us"][i][j] > 0
def show():
    return "bw outliers %s lat outliers %s suspects %s refuted %s" % (
        [(o["from"], o["to"], round(o["value"], 4)) for o in bw], [(o["from"], o["to"], round(o["value"], 1)) for o in lat],
        [(s["host"], s["confirmed"]) for s in sus], [s["host"] for s in p["refuted_suspects"]])
print("  $tag:", show(), "median bw %.3f GB/s" % p["bw_median_gbps"], file=sys.stderr)
$code
PYEOF
}

runs=${PAIRS_CLEAN_RUNS:-1}
for r in $(seq 1 "$runs"); do
  pairs clean$r
  check clean$r '
assert not p["outliers"], "clean: outliers " + show()
assert not sus, "clean: suspects " + show()
assert sorted(passed) == sorted(hosts), "clean: hostfile " + str(passed)'
done
note "clean: no outliers, no suspects in $runs of $runs runs"

A=${H[1]} B=${H[4]}
"$VF" throttle-link "$A" "$B" 50mbit "${VFN[@]}"
pairs link
check link "
assert len(bw) == 1, 'link: want exactly one bandwidth outlier; ' + show()
assert (bw[0]['from'], bw[0]['to']) == ('$A', '$B'), 'link: wrong link or direction; ' + show()
assert bw[0]['confirmed'] is True, 'link: not confirmed'
assert not sus, 'link: a host was blamed; ' + show()"
note "throttle-link $A -> $B: exactly that bandwidth outlier, no host"
"$VF" clear "${VFN[@]}"

S=${H[3]}
"$VF" throttle "$S" 100mbit "${VFN[@]}"
pairs host
check host "
names = [s['host'] for s in sus]
assert '$S' in names, 'host: $S not a suspect; ' + show()
s = [s for s in sus if s['host'] == '$S'][0]
assert s['confirmed'] is True, 'host: $S not confirmed'
assert names == ['$S'], 'host: other hosts blamed; ' + show()
assert '$S' not in passed and len(passed) == n - 1, 'host: hostfile ' + str(passed)"
note "throttle $S: named as suspect, confirmed, left out of the hostfile"
"$VF" clear "${VFN[@]}"
echo "PASS fabric pairs"
