#!/usr/bin/env bash
# `fabcheck inspect --nccl-log`: offline verdict, JSON report, exit codes (0 ok; 2 missing log / unwritable --json,
# one stderr line, nothing written). Env: FABCHECK, FABCHECK_TEST_DATA, PYTHON.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
logs="$FABCHECK_TEST_DATA/nccl-logs"

# RDMA hardware present but sockets used is a fail (exit 1); the first line also says the job's control
# connection broke (issue 18: the verdict says what was attempted, the health whether it worked).
set +e
"$FABCHECK" inspect --nccl-log "$logs/06-hpcx-ibext-no-device-socket-2.18.log" --json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
test "$rc" = 1
head -1 "$tmp/out" | grep -q '^transport verdict: socket_fallback — control connection FAILED on '
"$PYTHON" - "$tmp/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["transport"]
assert t["verdict"] == "socket_fallback", t["verdict"]
assert t["network"] == "socket" and t["inter_node"] is True
assert any(f["code"] == "RDMA_FALLBACK_SOCKET" for f in d["findings"])
assert d["run"]["sections"]["transport"]["status"] == "ok"
assert t["health"]["status"] == "failed", t["health"]
assert d["run"]["status"] == "complete" and d["run"]["exit_code"] == 1
PY

# Several files of one job (one log per node) are read together; -J alias, -q quiet.
"$FABCHECK" inspect --nccl-log "$logs/02-socket-no-ib-gcp-2.7.8.log" "$logs/03-socket-aws-ring-format-2.4.log" -J "$tmp/two.json" -q >"$tmp/out2"
test ! -s "$tmp/out2"
"$PYTHON" -c "import json,sys; t=json.load(open('$tmp/two.json'))['transport']; assert len(t['logs'])==2 and t['verdict']=='no_rdma_hardware', t['verdict']"

# refused ERRFILE WORDS ARGS...: exit 2, exactly one stderr line (in ERRFILE) containing WORDS.
refused() {
  local err=$1 words=$2 rc=0
  shift 2
  "$FABCHECK" inspect "$@" >/dev/null 2>"$err" || rc=$?
  test "$rc" = 2
  test "$(wc -l <"$err")" = 1
  grep -q -- "$words" "$err"
}

# Missing log: exit 2, exactly one stderr line, no report written.
refused "$tmp/err3" 'missing.log' --nccl-log "$tmp/missing.log" --json "$tmp/m.json"
test ! -e "$tmp/m.json"

# Unwritable --json: exit 2 before anything is parsed or written.
refused "$tmp/err4" 'nodir' --nccl-log "$logs/02-socket-no-ib-gcp-2.7.8.log" --json "$tmp/nodir/r.json"
# One log twice (also under another name) would double every count: exit 2, one line, nothing written.
refused "$tmp/err5" 'same file' --nccl-log "$logs/02-socket-no-ib-gcp-2.7.8.log" \
  "$logs/../nccl-logs/02-socket-no-ib-gcp-2.7.8.log" --json "$tmp/dup.json"
test ! -e "$tmp/dup.json"
echo "inspect --nccl-log: ok"
