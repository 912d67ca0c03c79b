#!/usr/bin/env bash
# fabcheck run on a 4-host virtual fabric with configs/acceptance/vfabric.json: every section filled (or skipped with a
# reason), the gate passes on the clean fabric (exit 0) and fails with exit 1, naming the failing checks, with one
# host throttled to 100mbit (both busBw floors named as failing, in the console and in JUnit). One virtual fabric for
# both runs; the acceptance config keeps each run near 15 s clean and 30 s throttled (measured on 2 busy cores).
# The first screen with this config (first_screen_check.py): clean is quiet; the throttled host is the first
# finding and is left out of the good-hosts file; one link direction at 100mbit is the first finding, no host blamed.
source "$(dirname "$0")/lib.sh"
fab_init_fabcheck frun 280
CFG=$SRC/configs/acceptance/vfabric.json

"$VF" up --hosts 4 "${VFN[@]}"
mapfile -t hosts < <("$VF" hosts "${VFN[@]}")

run_gate() { # $1 = tag; sets rc and writes $FAB_TMP/$1.json, $1.out, $1.xml, $1.hosts
  local t0=$(date +%s)
  rc=0
  timeout 90 "$VF" mpirun "${VFN[@]}" -- "$FABCHECK" run --config "$CFG" --json "$FAB_TMP/$1.json" \
    --junit "$FAB_TMP/$1.xml" --exclude-hostfile "$FAB_TMP/$1.hosts" -T 30 -q >"$FAB_TMP/$1.out" 2>&1 || rc=$?
  note "$1: fabcheck run exit $rc in $(($(date +%s) - t0)) s"
  sed -n '/^# gate (/,$p' "$FAB_TMP/$1.out" >&2
}

check_sections() { # every section present, ok or skipped with a reason; report complete
  "$PY" - "$FAB_TMP/$1.json" <<'PY' || fail "$1: report sections"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["run"]["status"] == "complete", d["run"]["status"]
assert len(d["topology"]["hosts"]) == 4
for s in ["inventory", "sweeps", "latency", "incast", "pairs", "scaling", "gate"]:
    e = d["run"]["sections"][s]
    assert e["status"] in ("ok", "skipped"), (s, e)
    assert e["status"] == "ok" or e["reason"], (s, e)
    assert s in d, s
for s in ["sweeps", "incast", "pairs"]:
    assert d["run"]["sections"][s]["status"] == "ok", (s, d["run"]["sections"][s])
PY
}

run_gate clean
[ "$rc" = 0 ] || { cat "$FAB_TMP/clean.out" >&2; fail "clean fabric: exit $rc, expected 0 (gate passes)"; }
check_sections clean
[ "$(grep -vc '^#' "$FAB_TMP/clean.hosts")" = 4 ] || fail "clean: exclude-hostfile should list all 4 hosts"

slow=${hosts[2]}
"$VF" throttle "$slow" 100mbit "${VFN[@]}"
run_gate slow
[ "$rc" = 1 ] || { cat "$FAB_TMP/slow.out" >&2; fail "throttled $slow: exit $rc, expected 1 (gate fails)"; }
check_sections slow
grep -q '^  FAIL  sweeps.allreduce.busbw_gbps@2M' "$FAB_TMP/slow.out" || fail "the busBw check is not named as failing"
grep -q 'GATE_CHECK_FAILED' "$FAB_TMP/slow.out" || fail "no GATE_CHECK_FAILED finding in the summary"
[ "$(grep -c '<failure ' "$FAB_TMP/slow.xml")" -ge 2 ] || fail "JUnit lacks the failures"
grep -q '^  FAIL  sweeps.allgather.busbw_gbps@2M' "$FAB_TMP/slow.out" || fail "the allgather busBw check is not named as failing"
note "throttled $slow: gate failed with: $(grep '^  FAIL' "$FAB_TMP/slow.out" | awk '{print $2}' | tr '\n' ' ')"
# the first screen holds with this config too: the throttled host is the first finding (fail, confirmed by
# the pairs retest) and is not in the good-hosts file, whatever the criteria check
"$PY" "$FAB_DIR/first_screen_check.py" "$FAB_TMP/clean.json" "$FAB_TMP/clean.hosts" clean ||
  fail "clean: the first screen is not quiet"
"$PY" "$FAB_DIR/first_screen_check.py" "$FAB_TMP/slow.json" "$FAB_TMP/slow.hosts" host "$slow" ||
  fail "throttled $slow: not the first finding, or still a good host"

# one link direction: that link first, no host blamed, all 4 hosts stay good
"$VF" clear "${VFN[@]}"
"$VF" throttle-link "${hosts[1]}" "${hosts[3]}" 100mbit "${VFN[@]}"
run_gate link
[ "$rc" = 1 ] || { cat "$FAB_TMP/link.out" >&2; fail "link ${hosts[1]} -> ${hosts[3]}: exit $rc, expected 1"; }
"$PY" "$FAB_DIR/first_screen_check.py" "$FAB_TMP/link.json" "$FAB_TMP/link.hosts" link "${hosts[1]}" "${hosts[3]}" ||
  fail "link ${hosts[1]} -> ${hosts[3]}: not named first, or a host blamed"
