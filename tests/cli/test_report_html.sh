#!/usr/bin/env bash
# `fabcheck report REPORT --html OUT` offline: checked-in reports (a real 2-rank run; the same edited to
# have failed/skipped sections, an RDMA port rate, a size-0 point and markup in its strings) render in headless
# Chromium with every section and one busBw point per measured size; bad input (not a report, a newer
# schema_version, a truncated file, a missing file, an unwritable page) is one stderr line, exit 2, nothing written.
set -euo pipefail
: "${FABCHECK:?FABCHECK (the binary) must be set}"
SRC=${FABCHECK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
D=$SRC/tests/data/reports
PY=${PYTHON:-python3}
PY=$("$PY" -c 'import sys; print(sys.executable)')
CHECK=$SRC/tests/cli/html_check.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

"$FABCHECK" report "$D/local-2ranks.json" --html "$tmp/local.html" || fail "report local-2ranks.json"
"$PY" "$CHECK" "$D/local-2ranks.json" "$tmp/local.html" || fail "local-2ranks page"

"$FABCHECK" report "$D/sections-failed-skipped.json" --html "$tmp/edited.html" || fail "report sections-failed-skipped"
"$PY" "$CHECK" "$D/sections-failed-skipped.json" "$tmp/edited.html" \
  --expect-text '<script>alert("report strings are text")</script>' --expect-text 'latency failed' ||
  fail "sections-failed-skipped page"

# bad input: exactly one stderr line naming the problem, exit 2, no page
bad() { # $1 report file, $2 regex the error line must match, [$3 html path]
  local out=${3:-$tmp/bad.html} rc=0
  "$FABCHECK" report "$1" --html "$out" >"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
  [ "$rc" = 2 ] || fail "$1: exit $rc, expected 2 ($(cat "$tmp/stderr"))"
  [ "$(wc -l <"$tmp/stderr")" = 1 ] || fail "$1: expected one stderr line, got: $(cat "$tmp/stderr")"
  grep -Eq -- "$2" "$tmp/stderr" || fail "$1: stderr '$(cat "$tmp/stderr")' does not match /$2/"
  [ ! -e "$out" ] || fail "$1: a page was written for bad input"
  ! compgen -G "$(dirname "$out")/.[!.]*" >/dev/null || fail "$1: a temporary file was left"
  [ ! -s "$tmp/stdout" ] || fail "$1: printed on stdout"
}
echo '{"hello": "world"}' >"$tmp/not-a-report.json"
bad "$tmp/not-a-report.json" 'not a fabcheck report'
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["schema_version"]=2; json.dump(d,open(sys.argv[2],"w"))' \
  "$D/local-2ranks.json" "$tmp/newer.json"
bad "$tmp/newer.json" 'schema_version 2 .*newer'
head -c 3000 "$D/local-2ranks.json" >"$tmp/truncated.json"
bad "$tmp/truncated.json" 'truncated'
bad "$tmp/does-not-exist.json" 'cannot read'
bad "$D/local-2ranks.json" '--html' "$tmp/no/such/dir/page.html"
echo "cli report --html: OK in $(($(date +%s) - t0)) s"
