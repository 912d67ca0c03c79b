#!/usr/bin/env bash
# Issue 17's first screen, with the embedded default config (`fabcheck run`, no --config) on a 4-host virtual
# fabric:
#   clean                          -> exit 0, no warn or fail finding about the fabric (HOST_CPU_BUSY, about the
#                                     hosts' CPUs, may stand: it states the load it measured);
#   one host throttled (500mbit)   -> exit 1, the first finding names that host (fail), --exclude-hostfile omits it;
#   one link direction (200mbit)   -> exit 1, the first finding names that link and direction, no host is blamed
#                                     by a fail finding, the good-hosts file keeps all 4.
# FS_CASES picks the cases (default "clean host link"). Each run is bounded to 240 s; the test to 800 s.
source "$(dirname "$0")/lib.sh"
fab_init ffirst 800
: "${FABCHECK:?FABCHECK (the binary) must be set}"
CASES=${FS_CASES:-clean host link}

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
note "first screen: cases '$CASES' passed"
