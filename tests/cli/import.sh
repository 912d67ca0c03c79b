#!/usr/bin/env bash
# `fabcheck import` then `fabcheck gate` on the imported report; bad input to import and to the shared report
# loader (gate): one stderr line, exit 2, no output file. Env: FABCHECK, FABCHECK_TEST_DATA, PYTHON.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
data="$FABCHECK_TEST_DATA/nccl-tests"

# 1. The 16-rank v2.13 text output imports; its busBw values all agree with the recomputation.
"$FABCHECK" import "$data/allreduce_16rank_a100_2node_rdma_v2.13.txt" --json "$tmp/a100.json" >"$tmp/out" 2>"$tmp/err" \
  || fail "import exit $?: $(cat "$tmp/err")"
grep -q 'busBw check: 62/62 placement blocks agree' "$tmp/out" || fail "summary: $(cat "$tmp/out")"
"$PYTHON" - "$tmp/a100.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 1 and d["tool"]["name"] == "fabcheck"
s = d["sweeps"]
assert len(s) == 1 and s[0]["collective"] == "allreduce" and s[0]["nranks"] == 16, s[0]["collective"]
assert len(s[0]["points"]) == 62 and all(p["busbw_agrees"] for p in s[0]["points"])
assert d["topology"]["nranks"] == 16 and [h["host"] for h in d["topology"]["hosts"]] == ["node01", "node02"]
assert d["run"]["imported"]["format"] == "nccl-tests-text" and d["run"]["status"] == "complete"
assert not any(f["code"] == "BUSBW_MISMATCH" for f in d["findings"])
PY

# 2. gate on the imported report: 8 GiB busBw 237.94 passes >= 200, fails >= 300.
cat >"$tmp/pass.json" <<'J'
{"gate": {"checks": [{"metric": "sweeps.allreduce.busbw_gbps@8G", "op": ">=", "threshold": 200, "why": "IB line rate"},
                     {"metric": "findings.code=WRONG_DATA#count", "op": "==", "threshold": 0}]}}
J
cat >"$tmp/fail.json" <<'J'
{"gate": {"checks": [{"metric": "sweeps.allreduce.busbw_gbps@8G", "op": ">=", "threshold": 300}]}}
J
"$FABCHECK" gate "$tmp/a100.json" --criteria "$tmp/pass.json" --html "$tmp/g1.html" >"$tmp/g1" 2>&1 ||
  fail "gate should pass: $(cat "$tmp/g1")"
grep -q 'id="gate"' "$tmp/g1.html" || fail "gate --html: no gate section in the page"
# import's own page and JUnit (the findings rule: no fail finding, so no failure)
"$FABCHECK" import "$data/allreduce_16rank_a100_2node_rdma_v2.13.txt" --json "$tmp/a2.json" --html "$tmp/a2.html" \
  --junit "$tmp/a2.xml" -q || fail "import --html --junit"
grep -q 'id="sweeps"' "$tmp/a2.html" || fail "import --html: no sweeps section"
grep -q 'tests="1" failures="0"' "$tmp/a2.xml" || fail "import --junit: $(cat "$tmp/a2.xml")"
expect_exit "gate >= 300" 1 "$tmp/g2" "$FABCHECK" gate "$tmp/a100.json" --criteria "$tmp/fail.json" --junit "$tmp/j.xml"
grep -q 'failures="1"' "$tmp/j.xml" || fail "junit: $(cat "$tmp/j.xml")"

# 3. Tagged legacy-era output, the -J JSON file and a legacy table import too (exit 0); the tagged one carries
#    NCCL INFO lines, so the transport section is filled from them.
"$FABCHECK" import "$data/allreduce_2rank_t4_efa_tagged_lowbw.txt" -J "$tmp/t4.json" -q >"$tmp/q" || fail "tagged import"
test ! -s "$tmp/q" || fail "-q printed: $(cat "$tmp/q")"
"$PYTHON" -c "import json,sys; d=json.load(open('$tmp/t4.json')); assert d['transport'] is not None and d['run']['sections']['transport']['status']=='ok'; assert len(d['sweeps'][0]['points'])==62"
"$FABCHECK" import "$data/synthetic_allreduce_8rank_v3.json" --json "$tmp/j3.json" -q || fail "json import"
"$FABCHECK" import "$data/allreduce_2rank_v100_efa_legacy_lowbw.txt" --json "$tmp/legacy.json" -q || fail "legacy import"

# 4. Bad input: exit 2, exactly one stderr line naming the file, no output file.
bad() {  # bad <name> <expected stderr substring> <command...>: refused, writing no $tmp/out.json
  local name=$1 want=$2
  shift 2
  refused "$name" "$want" "$tmp/out.json" "$@"
}
: >"$tmp/empty.txt"
printf 'node01:1:1 [0] NCCL INFO Bootstrap : Using eth0:192.0.2.1<0>\nhello\n' >"$tmp/noise.txt"
head -c 3000 "$data/synthetic_allreduce_8rank_v3.json" >"$tmp/trunc-nt.json"
bad "import empty" "empty.txt: empty file" "$FABCHECK" import "$tmp/empty.txt" --json "$tmp/out.json"
bad "import unrecognised" "noise.txt: no nccl-tests result rows" "$FABCHECK" import "$tmp/noise.txt" --json "$tmp/out.json"
bad "import truncated json" "truncated JSON" "$FABCHECK" import "$tmp/trunc-nt.json" --json "$tmp/out.json"
bad "import a report" "a fabcheck report already" "$FABCHECK" import "$tmp/a100.json" --json "$tmp/out.json"
bad "import missing" "missing.txt: cannot read" "$FABCHECK" import "$tmp/missing.txt" --json "$tmp/out.json"
bad "import bad --coll" "--coll: unknown collective" "$FABCHECK" import "$data/allreduce_2rank_t4_efa_tagged_lowbw.txt" --coll allreduction --json "$tmp/out.json"

# The shared report loader behind gate (and report/compare): not a report, newer schema, truncated.
"$PYTHON" - "$tmp/a100.json" "$tmp/newer.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["schema_version"] = 2
json.dump(d, open(sys.argv[2], "w"))
PY
head -c 2000 "$tmp/a100.json" >"$tmp/trunc.json"
bad "gate not a report" "not a fabcheck report" "$FABCHECK" gate "$data/synthetic_allreduce_8rank_v3.json" --criteria "$tmp/pass.json" --json "$tmp/out.json"
bad "gate newer schema" "schema_version 2 is newer" "$FABCHECK" gate "$tmp/newer.json" --criteria "$tmp/pass.json" --json "$tmp/out.json"
bad "gate truncated" "truncated JSON" "$FABCHECK" gate "$tmp/trunc.json" --criteria "$tmp/pass.json" --json "$tmp/out.json"
echo "import + gate: ok"
