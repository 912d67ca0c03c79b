#!/usr/bin/env bash
# `fabcheck import` of perftest / OSU / IMB outputs: a directory of perftest outputs, one per link,
# gated "ib_write_bw >= 90 % of 400 Gbit/s on every link"; an OSU latency import compared with itself lines
# up the sizes; errors exit 1 with their finding; a foreign file is one stderr line, exit 2, nothing written.
# Env: FABCHECK, FABCHECK_TEST_DATA.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
data="$FABCHECK_TEST_DATA/peers"

# 1. One perftest output per link (hosts from the file names), one report, a gate on every link.
mkdir "$tmp/links"
cp "$data/perftest/ib_write_bw_gbits_perftest342.txt" "$tmp/links/ib_write_bw_node1_to_node2.txt"
cp "$data/perftest/ib_write_bw_postlist_gbits_perftest273.txt" "$tmp/links/ib_write_bw_node2_to_node3.txt"
"$FABCHECK" import "$tmp"/links/*.txt --json "$tmp/links.json" >"$tmp/out" 2>&1 || fail "import: $(cat "$tmp/out")"
grep -q 'ib_write_bw (Gb/s): 1 row(s) -> pairs.links' "$tmp/out" || fail "summary: $(cat "$tmp/out")"
cat >"$tmp/gate400.json" <<'J'
{"gate": {"checks": [{"metric": "pairs.links.test=ib_write_bw.bw_gbps", "op": ">=", "threshold": 45,
                      "why": "ib_write_bw >= 90 % of 400 Gbit/s on every link"}]}}
J
expect_exit "gate at 400G" 1 "$tmp/g" "$FABCHECK" gate "$tmp/links.json" --criteria "$tmp/gate400.json"
grep -q '(2 of 2 values failed)' "$tmp/g" || fail "gate: $(cat "$tmp/g")"
sed 's/"threshold": 45/"threshold": 0.05/' "$tmp/gate400.json" >"$tmp/gate_low.json"
"$FABCHECK" gate "$tmp/links.json" --criteria "$tmp/gate_low.json" >"$tmp/g2" 2>&1 || fail "low gate: $(cat "$tmp/g2")"
"$FABCHECK" report "$tmp/links.json" --html "$tmp/links.html" >/dev/null 2>&1 || fail "report --html"

# 2. compare of two latency imports lines the sizes up (key kind/pattern/size as fabcheck latency writes).
"$FABCHECK" import "$data/local/osu74_latency.txt" --json "$tmp/osu.json" -q
"$FABCHECK" import "$data/local/imb2021_pingpong.txt" --json "$tmp/imb.json" -q
"$FABCHECK" compare "$tmp/osu.json" "$tmp/imb.json" >"$tmp/cmp" 2>&1 || fail "compare: $(cat "$tmp/cmp")"
grep -q 'latency  p2p ring 8B .*mean_us' "$tmp/cmp" || fail "compare: $(cat "$tmp/cmp")"

# 3. A completion error is a fail finding (exit 1) with the decoded status.
expect_exit "completion error" 1 "$tmp/e" \
  "$FABCHECK" import "$data/perftest/ib_send_bw_completion_error_softiwarp27.txt" --json "$tmp/err.json"
grep -q 'status 12 = transport retry counter exceeded' "$tmp/e" || fail "finding: $(cat "$tmp/e")"

# 4. Foreign or mixed input: one stderr line, exit 2, nothing written.
refused "foreign" "not_a_benchmark.txt: no nccl-tests result rows" "$tmp/no.json" \
  "$FABCHECK" import "$data/constructed/not_a_benchmark.txt" --json "$tmp/no.json"
refused "mixed" "not_a_benchmark.txt: not a perftest, OSU or IMB output" "$tmp/no.json" \
  "$FABCHECK" import "$data/local/osu74_latency.txt" "$data/constructed/not_a_benchmark.txt" --json "$tmp/no.json"
refused "bad link" "--link: 'a' is not FROM:TO" "$tmp/no.json" \
  "$FABCHECK" import "$data/local/osu74_bw_nodeA_to_nodeB.txt" --link a --json "$tmp/no.json"
echo "import_peers: ok"
