#!/usr/bin/env bash
# Reports at scale: generates N-host x 8-rank reports from the real 4-host report in tests/data
# (bench/scale_report.py), R and R2 (R with 5 links 30 % slower), and times `report --html`, `compare R R2`
# and `gate R` with /usr/bin/time -v: wall time, max RSS, page size, console lines, the changed links named.
#   bench/scale_reports.sh build/apps/fabcheck/fabcheck 512 2048      (work files in ${WORK:-/tmp/fabcheck-scale})
# A benchmark, not a test: it prints figures and asserts nothing but that the commands ran.
set -euo pipefail
FAB=$(realpath "$1")
shift
SRC=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp/fabcheck-scale}
mkdir -p "$WORK"
# A 2048-host report is ~180 MB, a 4096-host one ~660 MB: within the default 1 GiB report cap (DESIGN §6).
measure() { # label, command...: one line "label: wall s, max RSS MiB"
  local label=$1
  shift
  /usr/bin/time -v "$@" >"$WORK/out.txt" 2>"$WORK/time.txt" || true
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/{print $2}' "$WORK/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/{printf "%.0f", $2/1024}' "$WORK/time.txt")
  echo "$label: wall $wall, max RSS ${rss} MiB, exit $(awk -F': ' '/Exit status/{print $2}' "$WORK/time.txt")"
}
# The page opened in headless Chromium (a 512-host page renders within 10 s): wall time to a screenshot.
screenshot() { # page: one line "chromium screenshot: N s, PNG bytes" (or why not)
  local exe profile t0 t1
  exe=$(command -v chromium || command -v chromium-browser || true)
  [ -n "$exe" ] || { echo "  chromium screenshot: skipped: no chromium (ci/setup installs it)"; return; }
  profile=$(mktemp -d)
  t0=$(date +%s.%N)
  timeout 60 "$exe" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --disable-extensions --user-data-dir="$profile" --window-size=1400,4000 \
    --screenshot="$WORK/shot.png" "file://$1" >/dev/null 2>&1 || true
  t1=$(date +%s.%N)
  rm -rf "$profile"
  echo "  chromium screenshot: $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}') s, PNG $(stat -c %s "$WORK/shot.png" 2>/dev/null || echo none) bytes"
  rm -f "$WORK/shot.png"
}
for n in "$@"; do
  R=$WORK/r$n.json R2=$WORK/r$n-changed.json
  [ -s "$R" ] || python3 "$SRC/bench/scale_report.py" "$SRC/tests/data/reports/vfabric-4x2.json" --hosts "$n" \
    --ranks-per-host 8 --out "$R"
  [ -s "$R2" ] || python3 "$SRC/bench/scale_report.py" "$SRC/tests/data/reports/vfabric-4x2.json" --hosts "$n" \
    --ranks-per-host 8 --change-links 5 --out "$R2"
  echo "== $n hosts x 8 ranks: R $(du -m "$R" | cut -f1) MB"
  measure "report --html" "$FAB" report "$R" --html "$WORK/r$n.html"
  echo "  page $(stat -c %s "$WORK/r$n.html") bytes, $(grep -c '<rect class="cell' "$WORK/r$n.html" || true) SVG cells, $(grep -o '<img class="heat-raster"' "$WORK/r$n.html" | wc -l) raster images"
  screenshot "$WORK/r$n.html"
  measure "compare R R2" "$FAB" compare "$R" "$R2" --json "$WORK/cmp$n.json" --html "$WORK/cmp$n.html"
  echo "  console $(wc -l <"$WORK/out.txt") lines; compare page $(stat -c %s "$WORK/cmp$n.html") bytes"
  python3 - "$WORK/cmp$n.json" "$R2.changed.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["compare"]
if "links" not in c:  # an older fabcheck: one row per link
    rows = [m for m in c["metrics"] if m["section"] == "pairs" and "from" in m["key"] and abs(m["delta_pct"] or 0) >= 10]
    print(f"  no compare.links (one row per link: {len(c['metrics'])} rows); pairs rows with |delta| >= 10 %: {len(rows)}")
    sys.exit(0)
want = {(x["from"], x["to"]) for x in json.load(open(sys.argv[2]))}
got = {(x["from"], x["to"]) for l in c["links"] if l["metric"] == "bw_gbps" for x in l["changed_links"]}
other = sum(l["changed"] for l in c["links"] if l["metric"] != "bw_gbps")
print(f"  changed links named: {len(got)} (planted {len(want)}, the same: {got == want}); other matrices changed: {other}")
PY
  measure "compare R R" "$FAB" compare "$R" "$R"
  echo "  console $(wc -l <"$WORK/out.txt") lines"
  measure "gate R" "$FAB" gate "$R"
done
