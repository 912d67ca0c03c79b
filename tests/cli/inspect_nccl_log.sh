#!/usr/bin/env bash
# `fabcheck inspect --nccl-log`: offline verdict, JSON report, exit codes (0 ok; 2 missing log / unwritable --json,
# one stderr line, nothing written). Env: FABCHECK, FABCHECK_TEST_DATA, PYTHON.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
logs="$FABCHECK_TEST_DATA/nccl-logs"

# RDMA hardware present but sockets used is a fail (exit 1); the first line also says the job's control
# connection broke (the verdict says what was attempted, the health whether it worked).
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
# Log x host: one recorded host, unnamed (the log's only host) or named; several hosts by name.
sysfs="$FABCHECK_TEST_DATA/sysfs"
lh="$logs/log-host"
"$FABCHECK" inspect --nccl-log "$lh/lh01-roce-gid-default-0-2.18.3.log" --sysfs-root "$sysfs/h-roce-bond-gid0-linklocal" \
  --json "$tmp/lh1.json" >"$tmp/lh1.out"
grep -q 'GID_INDEX_NOT_ROCEV2' "$tmp/lh1.out"
"$PYTHON" - "$tmp/lh1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["code"] == "GID_INDEX_NOT_ROCEV2"]
assert len(f) == 1 and f[0]["evidence"]["host"] == "gpu-a", f
assert f[0]["remedy"].startswith("set NCCL_IB_GID_INDEX=3"), f[0]["remedy"]
assert len(d["inventory"]["hosts"]) == 1
PY
"$FABCHECK" inspect --nccl-log "$lh/lh02-roce-gid-auto-2.23.4.log" --sysfs-root "gpu-a=$sysfs/h-roce-bond-gid0-linklocal" \
  --json "$tmp/lh2.json" -q
"$PYTHON" -c "import json; d=json.load(open('$tmp/lh2.json')); assert not [f for f in d['findings'] if f['code'].startswith('GID_')], d['findings']"
set +e
"$FABCHECK" inspect --nccl-log "$lh/lh04-macvlan-job-wide-gid7-2.18.6.log" --sysfs-root "pod-a=$sysfs/b3-roce-sparse-gid-pod" \
  --sysfs-root "pod-b=$sysfs/b5-roce-sparse-gid-pod-at-11" --json "$tmp/lh4.json" -q
rc=$?
set -e
test "$rc" = 1
"$PYTHON" -c "import json; d=json.load(open('$tmp/lh4.json')); f=[x for x in d['findings'] if x['code']=='GID_TABLES_DIFFER' and x['severity']=='fail']; assert len(f)==1 and f[0]['evidence']['hosts_wrong']==['pod-b'], d['findings']"
# Bad roots: one line naming --sysfs-root and the fix, exit 2, nothing written.
refused "$tmp/e1" '--sysfs-root: .*not a directory' --nccl-log "$lh/lh01-roce-gid-default-0-2.18.3.log" \
  --sysfs-root "gpu-a=$tmp/none" --json "$tmp/e1.json"
refused "$tmp/e2" 'no line of the logs comes from host gpu-z' --nccl-log "$lh/lh01-roce-gid-default-0-2.18.3.log" \
  --sysfs-root "gpu-z=$sysfs/b-roce-2nic" --json "$tmp/e2.json"
refused "$tmp/e3" 'names no host and the logs show hosts pod-a, pod-b' \
  --nccl-log "$lh/lh04-macvlan-job-wide-gid7-2.18.6.log" --sysfs-root "$sysfs/b-roce-2nic" --json "$tmp/e3.json"
refused "$tmp/e4" 'given twice' --nccl-log "$lh/lh04-macvlan-job-wide-gid7-2.18.6.log" \
  --sysfs-root "pod-a=$sysfs/b3-roce-sparse-gid-pod" --sysfs-root "pod-a=$sysfs/b-roce-2nic" --json "$tmp/e4.json"
refused "$tmp/e5" '--sysfs-root: given 2 times' --sysfs-root "$sysfs/b-roce-2nic" --sysfs-root "$sysfs/b3-roce-sparse-gid-pod"
for n in 1 2 3 4; do test ! -e "$tmp/e$n.json"; done
echo "inspect --nccl-log: ok"
