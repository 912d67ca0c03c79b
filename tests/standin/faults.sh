#!/usr/bin/env bash
# Faults injected into the CUDA/NCCL stand-ins (STANDIN_FAULT, tests/standin/nccl_standin.cpp) under
# `fabcheck sweep --backend nccl` on 2 local ranks. Each ends the job with the documented exit code (DESIGN §7:
# 2 usage — no usable GPU —, 3 runtime failure, 1 a fail finding) and one fabcheck stderr line naming the rank,
# host, GPU and call (the watchdog's line names the operation: every rank is inside it), within --timeout +
# grace, with no fabcheck process of the job left running.
set -uo pipefail
[ -d "${STANDIN_LIB:-}" ] || { echo "FAIL: STANDIN_LIB is not set"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
host=$(hostname | cut -d. -f1)
timeout_s=5

# case FAULT WANT_RC MAX_S PATTERN...: every PATTERN in the one fabcheck line
case_() {
  local fault=$1 want=$2 max_s=$3 t0 rc line left
  shift 3
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  timeout 120 $MPIEXEC $MPI_FLAGS -np 2 -x LD_LIBRARY_PATH="$STANDIN_LIB" -x STANDIN_FAULT="$fault" -x "${CASE_ENV:-X=}" \
    -x TMPDIR="$tmp" "$FABCHECK" sweep --backend nccl -b 8 -e 4K -f 8 -n 3 -w 1 --timeout $timeout_s ${CASE_ARGS:-} \
    --json "$tmp/$fault.json" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  local took_ms=$((($(date +%s%N) - t0) / 1000000))
  mapfile -t lines < <(grep '^fabcheck:' "$tmp/err")
  [ "$rc" = "$want" ] || fail "$fault: exit $rc, want $want; stderr: $(cat "$tmp/err")"
  if [ "$want" = 1 ]; then
    line=$(grep -m1 '\[fail\] WRONG_DATA' "$tmp/out") || fail "$fault: no WRONG_DATA finding: $(tail "$tmp/out")"
  else
    [ ${#lines[@]} = 1 ] || fail "$fault: ${#lines[@]} fabcheck lines: $(cat "$tmp/err")"
    line=${lines[0]}
  fi
  for p in "$@"; do
    [[ $line == *"$p"* ]] || fail "$fault: line lacks '$p': $line"
  done
  ((took_ms < max_s * 1000)) || fail "$fault: took $took_ms ms, want < $max_s s"
  left=$(pgrep -f "$tmp/$fault.json" || true)
  [ -z "$left" ] || fail "$fault: processes left running: $left"
  printf 'ok %-12s exit %s in %d ms: %s\n' "$fault" "$rc" "$took_ms" "$line"
}

# the device of rank 1 missing: every rank agrees before NCCL is touched (no hang in ncclCommInitRank)
case_ nodevice@1 2 30 "--backend nccl" "no usable CUDA device on 1 of 2 ranks" "rank 1 on host $host" cudaErrorNoDevice
# two ranks on a host with one GPU (one rank per GPU), every rank agreeing on the refusal ("one-gpu" is no
# STANDIN_FAULT kind: only the case's label)
CASE_ENV=CUDA_STANDIN_DEVICES=1 case_ one-gpu 2 30 "--backend nccl" "no usable CUDA device on 2 of 2 ranks" \
  "2 ranks on this host but 1 visible GPU"
# the communicator's init failing on rank 1 (rank 0 waits in its bootstrap until mpirun ends the job)
case_ init@1 3 30 "rank 1 (host $host, GPU 1)" "ncclCommInitRankConfig failed" ncclSystemError
# asynchronous errors at the 5th NCCL operation: polled by ncclCommGetAsyncError while waiting on the stream;
# the peer's consequent ncclRemoteError waits for the origin's line (one line per job)
case_ remote@1:5 3 30 "rank 1 (host $host, GPU 1)" "NCCL operation (async error) failed" ncclRemoteError
case_ system@0:5 3 30 "rank 0 (host $host, GPU 0)" "NCCL operation (async error) failed" ncclSystemError
# the same inside CUDA graphs (-G): NCCL's abort waits until no graph holds a call of the communicator, so the
# graphs go first (else the job waits for the watchdog; op 12 is the first one launched from a graph)
CASE_ARGS="-G 2" case_ remote@1:12 3 30 "rank 1 (host $host, GPU 1)" "NCCL operation (async error) failed" \
  ncclRemoteError
# an operation that never completes: the watchdog ends the job after --timeout
case_ hang@1:5 3 $((timeout_s + 10)) "watchdog" "made no progress for" "(--timeout $timeout_s s)" "sweep allreduce"
# a wrong result from rank 1's GPU: WRONG_DATA naming rank 1, exit 1
case_ corrupt@1:3 1 30 "WRONG_DATA" "received on rank 1 ($host)"
echo PASS
