#!/usr/bin/env bash
# `fabcheck run --html` on a 4-host virtual fabric: a short suite (tests/data/run-html-short.json) whose
# gate fails on purpose (exit 1); the page is written anyway, renders in headless Chromium with every section,
# one busBw point per measured size, the pairs heatmap of 4 hosts, incast and scaling points, and says FAILED.
# `fabcheck report` renders the same page from the report file offline.
source "$(dirname "$0")/lib.sh"
fab_init_fabcheck fhtml 150
CHECK=$SRC/tests/cli/html_check.py

"$VF" up --hosts 4 "${VFN[@]}"
t0=$(date +%s)
rc=0
timeout 100 "$VF" mpirun "${VFN[@]}" -- "$FABCHECK" run --config "$SRC/tests/data/run-html-short.json" \
  --json "$FAB_TMP/r.json" --html "$FAB_TMP/r.html" --timeout 45 -q >"$FAB_TMP/run.out" 2>&1 || rc=$?
note "fabcheck run --html: exit $rc in $(($(date +%s) - t0)) s"
[ "$rc" = 1 ] || { cat "$FAB_TMP/run.out" >&2; fail "run: exit $rc, expected 1 (the config's gate fails on purpose)"; }
[ -s "$FAB_TMP/r.html" ] || fail "run --html wrote no page"
! compgen -G "$FAB_TMP/*.tmp.*" >/dev/null || fail "a temporary file was left next to the page"
"$PY" - "$FAB_TMP/r.json" <<'PY' || fail "the run's report is not the full suite"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["topology"]["hosts"]) == 4, d["topology"]
for s in ["sweeps", "latency", "incast", "pairs", "scaling", "gate"]:
    assert d["run"]["sections"][s]["status"] == "ok", (s, d["run"]["sections"][s])
assert d["gate"]["passed"] is False
PY
t1=$(date +%s)
"$PY" "$CHECK" "$FAB_TMP/r.json" "$FAB_TMP/r.html" --expect-gate failed --expect-text GATE_CHECK_FAILED ||
  fail "the run's page does not match its report in the browser"
note "browser checks: $(($(date +%s) - t1)) s"
# offline: the same report through `fabcheck report` gives the same page
"$FABCHECK" report "$FAB_TMP/r.json" --html "$FAB_TMP/offline.html" || fail "fabcheck report failed"
cmp -s "$FAB_TMP/r.html" "$FAB_TMP/offline.html" || fail "fabcheck report renders a different page from the same report"
note "run --html and report --html agree"
if [ -n "${HTML_KEEP_DIR:-}" ]; then # keep the report and the page for a look (debugging, docs)
  cp "$FAB_TMP/r.json" "$FAB_TMP/r.html" "$HTML_KEEP_DIR"/
fi
