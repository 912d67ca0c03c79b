#!/usr/bin/env bash
# fabcheck pairs on 6 virtual hosts, --size 8M:
#   clean (PAIRS_CLEAN_RUNS times, default 3) -> no outliers, no suspects;
#   throttle-link A -> B 50mbit, --bidir -> exactly one bandwidth outlier, A -> B, no suspect host; the pair's
#     simultaneous both-way figure is bounded by its slow direction;
#   throttle one host 200mbit -> that host is a suspect, confirmed, and left out of --exclude-hostfile.
source "$(dirname "$0")/lib.sh"
fab_init fpairs 400
[ -x "${FABCHECK:-}" ] || fail "FABCHECK is not set to the fabcheck binary"

"$VF" up --hosts 6 "${VFN[@]}"
mapfile -t H < <("$VF" hosts "${VFN[@]}")
[ ${#H[@]} = 6 ] || fail "expected 6 hosts, got ${#H[@]}"
# Each direction: 1 warmup window, then as many timed windows as fit in 150 ms (at most 20): a clean 8 MiB window
# takes ~10-40 ms here, a 50mbit one ~1.3 s (so that link costs 1 timed window); 100 latency samples per pair.
FLAGS=(--size 8M --lat-iters 100 --budget-ms 150)

pairs() { # [WANT_RC=N] pairs TAG [FLAGS...]: runs fabcheck pairs (exit WANT_RC, default 0: 1 = a confirmed
  # slow host or link, a fail finding), report in $FAB_TMP/TAG.json, console in TAG.out
  local tag=$1 t0=$SECONDS rc=0 want=${WANT_RC:-0}
  shift
  timeout 200 "$VF" mpirun "${VFN[@]}" -- "$FABCHECK" pairs "${FLAGS[@]}" "$@" --json "$FAB_TMP/$tag.json" \
    --exclude-hostfile "$FAB_TMP/$tag.hosts" >"$FAB_TMP/$tag.out" 2>"$FAB_TMP/$tag.err" || rc=$?
  [ "$rc" = "$want" ] || { cat "$FAB_TMP/$tag.err" "$FAB_TMP/$tag.out" >&2; fail "$tag: fabcheck pairs exited $rc, want $want"; }
  note "$tag: pairs took $((SECONDS - t0)) s, exit $rc"
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
t = d["topology"]
assert t["nranks"] == n and [h["host"] for h in t["hosts"]] == p["hosts"], ("topology", t)
assert p["ranks"] == [h["ranks"][0] for h in t["hosts"]], ("leaders", p["ranks"], t["hosts"])
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

# Latency outliers on a clean fabric are judged only when the machine was not oversubscribed by others when the
# run started (1-minute load average <= 2 x cores): with foreign runnable tasks (other builds) on 2 cores, an
# 8 B ping-pong whose ends share a core waits for the scheduler (measured here at load 17: p50 ~1-2 ms on some
# pairs, 14 us on the rest, the split following CPU placement, and one such pair reproduced in the retest). That is
# not the fabric; it is reported, and so is a host suspected on latency alone. Bandwidth outliers and suspects on
# bandwidth evidence are judged in every run.
busy() { awk -v c="$(nproc)" '{ exit !($1 > 2 * c) }' /proc/loadavg; }
runs=${PAIRS_CLEAN_RUNS:-3} lat_judged=0
for r in $(seq 1 "$runs"); do
  judge_lat=True
  if busy; then
    judge_lat=False
    note "clean$r: load average $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores: latency outliers reported, not judged"
  fi
  pairs clean$r
  check clean$r "
assert not bw, 'clean: bandwidth outliers ' + show()
# a suspect on bandwidth evidence: most of its outgoing or incoming links flagged
bw_sus = [s for s in sus if 2 * s['out_flagged'] > s['out_links'] or 2 * s['in_flagged'] > s['in_links']]
assert not bw_sus, 'clean: suspects on bandwidth evidence ' + show()
# fabcheck's own measure of the load over the run (HOST_CPU_BUSY: other work competed for the CPUs) also sets
# latency aside: one \`yes\` beside the test (load ~3 on 2 cores) once gave a pair 97-154 us alone against
# references at 17-21 us, reported as info because of that finding.
cpu_busy = any(f['code'] == 'HOST_CPU_BUSY' for f in d.get('findings', []))
if $judge_lat and not cpu_busy:
    assert not lat, 'clean: latency outliers ' + show()
    assert not sus, 'clean: suspects ' + show()
    assert sorted(passed) == sorted(hosts), 'clean: hostfile ' + str(passed)
    open('$FAB_TMP/clean$r.lat_judged', 'w').close()
else:
    if lat or sus:
        print('  NOTE clean$r: latency outliers and latency-only suspects not judged (machine busy: %s): %s'
              % ('HOST_CPU_BUSY in the report' if cpu_busy else 'load average', show()), file=sys.stderr)
    assert set(hosts) - set(passed) <= {s['host'] for s in sus}, 'clean: hostfile ' + str(passed)"
  [ ! -e "$FAB_TMP/clean$r.lat_judged" ] || lat_judged=$((lat_judged + 1))
done
note "clean: no bandwidth outliers or bandwidth suspects in $runs of $runs runs; latency judged in $lat_judged of them"

A=${H[1]} B=${H[4]}
"$VF" throttle-link "$A" "$B" 50mbit "${VFN[@]}"
WANT_RC=1 pairs link --bidir
check link "
assert len(bw) == 1, 'link: want exactly one bandwidth outlier; ' + show()
assert (bw[0]['from'], bw[0]['to']) == ('$A', '$B'), 'link: wrong link or direction; ' + show()
assert bw[0]['confirmed'] is True, 'link: not confirmed'
assert not sus, 'link: a host was blamed; ' + show()
# --bidir: both directions at once, summed, symmetric; on the throttled pair the slow direction bounds it
# (about twice the slow one-way figure, measured 2.4-2.5 x), elsewhere it is within reach of the two one-way figures together.
bd, one = p['bidir_gbps'], p['bw_gbps']
a, b = p['hosts'].index('$A'), p['hosts'].index('$B')
cells = []
for i in range(n):
    for j in range(i + 1, n):
        assert bd[i][j] is not None and bd[i][j] > 0 and bd[i][j] == bd[j][i], ('bidir cell', i, j, bd[i][j])
        cells.append((bd[i][j] / (one[i][j] + one[j][i]), i, j))
rest = [c[0] for c in cells if (c[1], c[2]) != (min(a, b), max(a, b))]
print('  link: other pairs bidir/(sum of one-way) min %.2f max %.2f; throttled pair bidir %.4f GB/s, slow one-way '
      '%.4f GB/s' % (min(rest), max(rest), bd[a][b], one[a][b]), file=sys.stderr)
# measured 2.4-2.5 x here (tbf burst; the one-way loop also waits for an acknowledgement per window); a figure
# carried by the fast direction would be >= 30 x
assert one[a][b] < bd[a][b] <= 3.5 * one[a][b], ('throttled pair bidir not bounded by its slow direction', bd[a][b], one[a][b])
for r, i, j in cells:
    if (i, j) != (min(a, b), max(a, b)):
        assert 0.2 < r <= 1.5, ('bidir out of reach of the one-way figures', i, j, bd[i][j], one[i][j], one[j][i])"
note "throttle-link $A -> $B: exactly that bandwidth outlier, no host; bidir bounded by the slow direction"
"$VF" clear "${VFN[@]}"

# KNOWN WEAKNESS (seen 2 of 5 runs at load 5-10 from other builds): when the clean links scatter by more than ~1/3
# (robust CV), the §4 rule (> 3 robust z) cannot flag any low bandwidth, even this host's 10x slower links, since
# z >= -median / (1.4826 MAD); the throttle rate (100 or 200mbit) barely changes that.
S=${H[3]}
"$VF" throttle "$S" 200mbit "${VFN[@]}"
WANT_RC=1 pairs host
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
