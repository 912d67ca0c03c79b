#!/usr/bin/env bash
# `fabcheck gate --list-metrics` prints the metric catalogue (lib/model/src/metrics.cpp) and exits 0, with no
# report; `fabcheck gate` on a real report shows each value's unit at the end of its line, after the parts other
# tests grep; `gate` without a report is a usage error (exit 2, one line). Env: FABCHECK, FABCHECK_TEST_DATA.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# 1. The catalogue: a header, then one row per metric with section, gate path, unit, better.
"$FABCHECK" gate --list-metrics >"$tmp/list" 2>"$tmp/err" || fail "--list-metrics exit $?: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "--list-metrics wrote to stderr: $(cat "$tmp/err")"
head -1 "$tmp/list" | grep -Eq '^section +gate path +unit +better +compare +meaning$' || fail "header: $(head -1 "$tmp/list")"
grep -Eq '^sweeps +sweeps\.<collective>\.busbw_gbps@<size> +GB/s +higher +yes ' "$tmp/list" || fail "busbw row: $(cat "$tmp/list")"
grep -Eq '^latency +latency\.<kind>\.p99_us@<size> +us +lower +yes ' "$tmp/list" || fail "latency row"
grep -Eq '^incast +incast\.fan_in=<k>\.congestion_impact@<size>\.p99 +ratio +lower +yes ' "$tmp/list" || fail "incast row"
grep -Eq '^scaling +scaling\.workloads\.workload=<name>\.exposed_s +s +lower +yes ' "$tmp/list" || fail "scaling row"
grep -Eq '^findings +findings\.<key>=<value>#count +count +lower +- ' "$tmp/list" || fail "findings row"
grep -Eq '^pairs +- \(pairs\.bw_min_gbps\) +GB/s +higher +yes ' "$tmp/list" || fail "derived row"
# A report given as well is not read.
"$FABCHECK" gate /nonexistent.json --list-metrics >"$tmp/list2" 2>&1 || fail "--list-metrics with a report: exit $?"
cmp -s "$tmp/list" "$tmp/list2" || fail "--list-metrics with a report printed something else"

# 2. Units on the console lines and in JUnit; the exit code is the gate's.
cat >"$tmp/c.json" <<'J'
{"gate": {"checks": [{"metric": "sweeps.allreduce.busbw_gbps@4M", "op": ">=", "threshold": 1000},
                     {"metric": "latency.p2p.p99_us@8", "op": ">=", "threshold": 0},
                     {"metric": "findings.severity=fail#count", "op": ">=", "threshold": 0},
                     {"metric": "transport.verdict", "op": "!=", "threshold": "none"}]}}
J
expect_exit "gate" 1 "$tmp/g" \
  "$FABCHECK" gate "$FABCHECK_TEST_DATA/reports/vfabric-4x2.json" --criteria "$tmp/c.json" --junit "$tmp/j.xml"
grep -Eq '^  FAIL  sweeps\.allreduce\.busbw_gbps@4M >= 1000  value [0-9.e-]+ GB/s  \(failed: ' "$tmp/g" || fail "busbw line: $(cat "$tmp/g")"
grep -Eq '^  PASS  latency\.p2p\.p99_us@8 >= 0  value [0-9.e-]+ us$' "$tmp/g" || fail "latency line: $(cat "$tmp/g")"
grep -Eq '^  PASS  findings\.severity=fail#count >= 0  value [0-9]+ count$' "$tmp/g" || fail "count line: $(cat "$tmp/g")"
grep -Eq '^  PASS  transport\.verdict != "none"  value "[a-z_]+"$' "$tmp/g" || fail "verdict line: $(cat "$tmp/g")"
grep -Eq '<system-out>value [0-9.e-]+ us</system-out>' "$tmp/j.xml" || fail "junit: $(cat "$tmp/j.xml")"
grep -Eq '^value [0-9.e-]+ GB/s</failure>' "$tmp/j.xml" || fail "junit failure: $(cat "$tmp/j.xml")"

# 3. No report and no --list-metrics: a usage error.
refused "gate without a report" "report is required" "$tmp/no.json" "$FABCHECK" gate
echo "gate --list-metrics and units: ok"
