#!/usr/bin/env bash
# The first screen, with the embedded default config (`fabcheck run`, no --config) on a 4-host virtual
# fabric:
#   clean                          -> exit 0, no warn or fail finding about the fabric (HOST_CPU_BUSY, about the
#                                     hosts' CPUs, may stand: it states the load it measured);
#   one host throttled (500mbit)   -> exit 1, the first finding names that host (fail), --exclude-hostfile omits it;
#   one link direction (200mbit)   -> exit 1, the first finding names that link and direction, no host is blamed
#                                     by a fail finding, the good-hosts file keeps all 4.
# FS_CASES picks the cases (default "clean host"; "link" is also checked by fabric_run_acceptance with its config,
# and costs two minutes here). Each run is bounded to 240 s; the test to 800 s.
source "$(dirname "$0")/lib.sh"
fab_init ffirst 800
: "${FABCHECK:?FABCHECK (the binary) must be set}"
CASES=${FS_CASES:-clean host}

"$VF" up --hosts 4 "${VFN[@]}"
mapfile -t hosts < <("$VF" hosts "${VFN[@]}")

run_default() { # $1 = tag: sets rc; writes $FAB_TMP/$1.{json,out,hosts}
  local t0=$(date +%s)
  rc=0
  timeout 240 "$VF" mpirun "${VFN[@]}" -- "$FABCHECK" run --json "$FAB_TMP/$1.json" \
    --exclude-hostfile "$FAB_TMP/$1.hosts" >"$FAB_TMP/$1.out" 2>&1 || rc=$?
  note "$1: fabcheck run exit $rc in $(($(date +%s) - t0)) s; load $(cut -d' ' -f1-4 /proc/loadavg)"
  sed -n '/^# fabcheck run: [A-Z]* -/,/^# fabcheck run: .*report/p' "$FAB_TMP/$1.out" >&2
}

check() { # TAG KIND [HOST | FROM TO]: the first screen's promises (first_screen_check.py)
  local tag=$1
  shift
  "$PY" "$FAB_DIR/first_screen_check.py" "$FAB_TMP/$tag.json" "$FAB_TMP/$tag.hosts" "$@"
}

for c in $CASES; do
  "$VF" clear "${VFN[@]}"
  case $c in
  clean)
    run_default clean
    [ "$rc" = 0 ] || { tail -40 "$FAB_TMP/clean.out" >&2; fail "clean fabric: exit $rc, expected 0"; }
    check clean clean || fail "clean fabric: the first screen is not quiet"
    ;;
  host)
    "$VF" throttle "${hosts[2]}" 500mbit "${VFN[@]}"
    run_default host
    [ "$rc" = 1 ] || { tail -40 "$FAB_TMP/host.out" >&2; fail "host ${hosts[2]} throttled: exit $rc, expected 1"; }
    check host host "${hosts[2]}" || fail "host ${hosts[2]} throttled: not the first finding or still a good host"
    ;;
  link)
    "$VF" throttle-link "${hosts[1]}" "${hosts[3]}" 200mbit "${VFN[@]}"
    run_default link
    [ "$rc" = 1 ] || { tail -40 "$FAB_TMP/link.out" >&2; fail "link ${hosts[1]} -> ${hosts[3]}: exit $rc, expected 1"; }
    check link link "${hosts[1]}" "${hosts[3]}" || fail "link ${hosts[1]} -> ${hosts[3]}: not named first, or a host blamed"
    ;;
  *) fail "FS_CASES: unknown case $c (clean, host, link)" ;;
  esac
done
# compare of the clean run and the throttled-host run, default config, one run each: a busBw point of
# 1 MiB or more that fell by half or more is "worse" (or "not testable" when its samples cannot reach the
# rule's significance, or "inconclusive" when its samples overlap), never "within noise", and most such points
# are called worse.
if [ -f "$FAB_TMP/clean.json" ] && [ -f "$FAB_TMP/host.json" ]; then
  "$FABCHECK" compare "$FAB_TMP/clean.json" "$FAB_TMP/host.json" --label clean --label host \
    --json "$FAB_TMP/ch.json" >"$FAB_TMP/ch.txt" || fail "compare clean host failed"
  "$PY" - "$FAB_TMP/ch.json" <<'PYEOF' || fail "compare of clean and throttled-host default runs"
import json, sys
c = json.load(open(sys.argv[1]))["compare"]
big = [m for m in c["metrics"] if m["metric"] == "busbw_gbps" and m["key"].get("size_bytes", 0) >= 1 << 20
       and m.get("delta_pct") is not None and m["delta_pct"] <= -50]
verdicts = {}
for m in big:
    verdicts[m["verdict"]] = verdicts.get(m["verdict"], 0) + 1
s = c["summary"]
print(f"  compare clean vs host: {len(big)} busBw points >= 1 MiB fell by >= 50 %: {verdicts}; summary "
      f"{s['worse']} worse, {s['better']} better, {s.get('not_testable')} not testable, {s.get('inconclusive')} "
      f"inconclusive of {s['metrics']}",
      file=sys.stderr)
bad = [(m["item"], m["key"].get("size_bytes"), round(m["delta_pct"], 1), m["verdict"]) for m in big
       if m["verdict"] not in ("worse", "not_testable", "inconclusive")]
assert big, "no busBw point >= 1 MiB fell by half: the throttle did not show"
assert not bad, f"a halved busBw point called within noise: {bad[:5]}"
assert verdicts.get("worse", 0) * 2 > len(big), f"not most halved busBw points are worse: {verdicts}"
PYEOF
fi
note "first screen: cases '$CASES' passed"
