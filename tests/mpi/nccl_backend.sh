#!/usr/bin/env bash
# `--backend nccl` where it cannot run: `sweep`, `run` and `overlap` under mpirun -np 2
# on a machine without a usable GPU write ONE fabcheck stderr line naming --backend nccl and the reason, print nothing on stdout, write
# no report, exit 2. With NCCL compiled in: the reason is the CUDA runtime's own (no driver / no device), the
# binary needs libnccl and libcudart but never libcuda, and --version lists nccl. On a GPU machine the sweep
# runs instead (exit 0) and the script says so.
set -uo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

version=$("$FABCHECK" --version)
echo "$version"
compiled=no
grep -q 'nccl=yes' <<<"$version" && compiled=yes
if [ "$compiled" = yes ]; then
  needed=$(readelf -d "$FABCHECK" | grep NEEDED)
  grep -q 'libnccl' <<<"$needed" || fail "libnccl not NEEDED: $needed"
  grep -q 'libcudart' <<<"$needed" || fail "libcudart not NEEDED: $needed"
  grep -q 'libcuda\.so' <<<"$needed" && fail "linked against the driver library libcuda: $needed"
  readelf -d "$FABCHECK" | grep -qE 'R(UN)?PATH.*cuda' || fail "no RPATH to the CUDA/NCCL library folder"
fi

check() {  # check NAME ARGS...: exit 2, one line, nothing written
  local name=$1 json=$tmp/$1.json
  shift
  # shellcheck disable=SC2086
  $MPIEXEC $MPI_FLAGS -np 2 "$FABCHECK" "$@" --json "$json" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ $rc = 0 ] && [ "$compiled" = yes ]; then
    echo "$name: ran (a usable GPU is present)"
    return
  fi
  [ $rc = 2 ] || fail "$name: exit $rc, expected 2; stderr: $(cat "$tmp/err")"
  mapfile -t lines < <(grep '^fabcheck:' "$tmp/err")
  [ ${#lines[@]} = 1 ] || fail "$name: ${#lines[@]} fabcheck stderr lines: $(cat "$tmp/err")"
  local line=${lines[0]}
  [[ $line == *"--backend nccl"* ]] || fail "$name: line does not name --backend nccl: $line"
  if [ "$compiled" = yes ]; then
    [[ $line == *"no usable CUDA device on 2 of 2 ranks"* ]] || fail "$name: $line"
    [[ $line == *cudaGetDeviceCount* ]] || fail "$name: no CUDA reason: $line"
  else
    [[ $line == *"not compiled in"* ]] || fail "$name: $line"
  fi
  [ -s "$tmp/out" ] && fail "$name: printed on stdout: $(cat "$tmp/out")"
  [ -e "$json" ] && fail "$name: wrote $json"
  echo "ok $name -> $line"
}

check sweep sweep --backend nccl -b 8 -e 8
# Nccl-tests' NCCL-only flags pass the sweep's checks and reach the backend (no GPU here: the line
# above); -D and the combinations nccl-tests disables are refused first, one line naming the flag.
check sweep-nccl-flags sweep --backend nccl -G 10 -R 1 -x 1 -M 1 -o sum,mulsum -V 8 -b 8 -e 8 -z 0
check sweep-nccl-null-stream sweep --backend nccl -y 1 -o mulsum -m 4 -b 8 -e 8
check sweep-nccl-register2 sweep --backend nccl -R 2 -G 100 -b 8 -e 8
refused() {  # refused NAME WANT ARGS...: exit 2, one fabcheck line that contains WANT, nothing written
  local name=$1 want=$2 json=$tmp/$1.json
  shift 2
  # shellcheck disable=SC2086
  $MPIEXEC $MPI_FLAGS -np 2 "$FABCHECK" "$@" --json "$json" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  mapfile -t lines < <(grep '^fabcheck:' "$tmp/err")
  [ $rc = 2 ] && [ ${#lines[@]} = 1 ] && [[ ${lines[0]} == *"$want"* ]] ||
    fail "$name: exit $rc, lines: $(cat "$tmp/err") (want one line with: $want)"
  [ -s "$tmp/out" ] && fail "$name: printed on stdout: $(cat "$tmp/out")"
  [ -e "$json" ] && fail "$name: wrote $json"
  echo "ok $name -> ${lines[0]}"
}
refused nccl-D "-D/--device_implementation: fabcheck has no kernels" sweep --backend nccl -D 1 -R 2 -b 8 -e 8
refused nccl-G-z1 "-G/--cudagraph: needs -z 0" sweep --backend nccl -G 5 -z 1 -b 8 -e 8
refused nccl-G-I "-I/--per_iter_timing: incompatible with -G" sweep --backend nccl -G 5 -I 1 -b 8 -e 8
refused nccl-G-y "-G/--cudagraph: the NULL stream" sweep --backend nccl -G 5 -y 1 -b 8 -e 8
refused mpi-mulsum "mulsum: ncclRedOpCreatePreMulSum exists on the nccl backend only" sweep -o mulsum -b 8 -e 8
check sweep-half sweep --backend nccl -d half,bfloat16 -b 8 -e 1K
check run run --backend nccl --quiet
check overlap overlap --backend nccl --sizes 8K --iters 1 --warmup 0
echo PASS
