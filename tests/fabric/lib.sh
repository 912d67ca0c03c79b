# shellcheck shell=bash
# Shared helpers for the fabric tests (sourced). Usage in a test:
#   source "$(dirname "$0")/lib.sh"; fab_init NAME LIMIT_S   # instance NAME, whole test bounded to LIMIT_S
# Gives: $VF (the vfabric script), $VFN (--name NAME), fail MSG, note MSG, and a trap that tears the instance down
# on every exit (success, failure, timeout). Exits 77 (ctest: skipped) when namespaces cannot be used here.
set -euo pipefail

FAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VF=$FAB_DIR/vfabric
PY=${PYTHON:-python3}

note() { echo "[$FAB_NAME $(date +%H:%M:%S)] $*" >&2; }
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

_fab_cleanup() {
  local rc=$?
  [ "$BASHPID" = "$FAB_PID" ] || exit $rc # a background subshell inherits the trap: only the test itself cleans up
  trap - EXIT INT TERM
  local p
  for p in "${FAB_BG[@]:-}"; do
    [ -z "$p" ] || kill "$p" 2>/dev/null || true
  done
  for p in "${FAB_SLURM[@]:-}"; do # Slurm's daemons live in the instance's namespaces: stop them first
    [ -z "$p" ] || "$FAB_DIR/vslurm" down --name "$p" || rc=1
  done
  for p in "$FAB_NAME" "${FAB_EXTRA[@]:-}"; do
    [ -z "$p" ] || "$VF" down --name "$p" || rc=1
  done
  # FAB_KEEP=DIR keeps this test's reports and console outputs (DIR/NAME) for a look after the run
  [ -z "${FAB_KEEP:-}" ] || [ -z "${FAB_TMP:-}" ] || { mkdir -p "$FAB_KEEP" && cp -r "$FAB_TMP" "$FAB_KEEP/$FAB_NAME.$$"; }
  [ -z "${FAB_TMP:-}" ] || rm -rf "$FAB_TMP"
  note "done, exit $rc, $(($(date +%s) - FAB_T0)) s"
  exit $rc
}

fab_init() {
  FAB_NAME=$1
  # bound our own time below the ctest TIMEOUT (timeout sends TERM, so the cleanup trap still runs)
  if [ -z "${_FAB_BOUNDED:-}" ]; then
    _FAB_BOUNDED=1 exec timeout -s TERM -k 20 "$2" bash "$0"
  fi
  VFN=(--name "$FAB_NAME")
  FAB_T0=$(date +%s)
  FAB_PID=$BASHPID
  FAB_BG=()
  FAB_EXTRA=()
  FAB_SLURM=()
  if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
    echo "skipped: the virtual fabric needs root, ip and tc" >&2
    exit 77
  fi
  if ! ip netns add "vf-probe-$$" 2>/dev/null; then
    echo "skipped: cannot create network namespaces here" >&2
    exit 77
  fi
  ip netns delete "vf-probe-$$"
  FAB_TMP=$(mktemp -d)
  # the interpreter itself, not a launcher shim (a pyenv shim costs seconds per start on a loaded machine)
  PY=$("$PY" -c 'import sys; print(sys.executable)')
  "$VF" down --name "$FAB_NAME" # leftovers of an earlier run that was killed
  trap _fab_cleanup EXIT
  trap '_fab_timed_out' INT TERM
}

# fab_init_fabcheck NAME LIMIT_S: fab_init for a test of the fabcheck binary ($FABCHECK, which ctest sets); $SRC is
# the source tree.
fab_init_fabcheck() {
  fab_init "$@"
  : "${FABCHECK:?FABCHECK (the fabcheck binary) must be set; ctest sets it}"
  SRC=${FABCHECK_SOURCE_DIR:-$FAB_DIR/../..}
}

# on a timeout, what the test's background jobs printed last: the line that says where a run stood
_fab_timed_out() {
  echo "FAIL: interrupted or over the time limit" >&2
  local f
  for f in "${FAB_TMP:-/nonexistent}"/*.out; do
    [ -f "$f" ] || continue
    echo "--- last lines of $(basename "$f"):" >&2
    tail -n 15 "$f" >&2
  done
  exit 124
}
# fab_slurm_up: a Slurm cluster on this test's instance (vslurm), torn down with it; exports SLURM_CONF and the
# ranks' Open MPI transport. Exits 77 (skipped) when Slurm is not installed.
fab_slurm_up() {
  local t
  for t in slurmctld slurmd srun sbatch munged; do
    command -v "$t" >/dev/null || {
      echo "skipped: Slurm is not installed ($t; ci/setup installs slurmctld slurmd slurm-client munge)" >&2
      exit 77
    }
  done
  FAB_SLURM+=("$FAB_NAME")
  "$FAB_DIR/vslurm" up --name "$FAB_NAME"
  eval "$("$FAB_DIR/vslurm" env --name "$FAB_NAME")"
}

# fab_init_crash REPORT OUT: whether a launch died inside MPI_Init, before fabcheck wrote anything: no REPORT,
# and OUT shows a rank's segmentation fault or Open MPI's TCP wireup failure. Debian's Open MPI 4.1.4 does that
# under srun --mpi=pmix on a loaded 2-core machine (core: SIGSEGV at address 0 from mca_btl_tcp.so inside
# opal_progress <- ompi_mpi_init; 2 of 12 direct launches with both cores busy, 0 of 12 with one; the message
# "connect() ... failed: Operation now in progress (115)" is open-mpi/ompi#10734's). The Slurm tests launch such a
# run once more, and say so.
fab_init_crash() {
  [ ! -s "$1" ] && grep -qE "Segmentation fault|Open MPI failed to TCP connect" "$2"
}

# fab_assert_clean: no namespace, veth, bridge or state of the instance is left
fab_assert_clean() {
  local left
  left=$( (ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^(vf-$FAB_NAME-[0-9]+|vfb-$FAB_NAME|vfm-$FAB_NAME-[0-9]+|vfm-$FAB_NAME)\$" || true
    ip netns list | awk '{print $1}' | grep -E "^vf-$FAB_NAME-h[0-9]+\$" || true) | tr '\n' ' ')
  [ -z "${left// /}" ] || fail "teardown left: $left"
  [ ! -e "/run/vfabric/$FAB_NAME" ] || fail "teardown left /run/vfabric/$FAB_NAME"
  note "teardown clean: no namespace, veth, bridge or state left"
}

# fab_xfer FROM TO BYTES [PORT]: one TCP transfer FROM -> TO; prints the rate in bytes/s
fab_xfer() {
  local from=$1 to=$2 bytes=$3 port=${4:-5301} sp out addr
  addr=$("$VF" addr "$to" "${VFN[@]}")
  "$VF" exec "$to" "${VFN[@]}" -- "$PY" "$FAB_DIR/xfer.py" serve "$port" --timeout 60 >/dev/null &
  sp=$!
  out=$("$VF" exec "$from" "${VFN[@]}" -- "$PY" "$FAB_DIR/xfer.py" send "$addr" "$port" "$bytes" --timeout 60) ||
    fail "transfer $from -> $to failed"
  wait "$sp" || fail "receiver on $to failed"
  sed -E 's/.*rate_Bps=([0-9]+).*/\1/' <<<"$out"
}

# fab_mbs BYTES_PER_S: "123.4 MB/s"
fab_mbs() { awk -v r="$1" 'BEGIN { printf "%.1f MB/s", r / 1e6 }'; }

# fab_has REGEX CMD...: CMD's output matches REGEX (no `| grep -q`, which trips pipefail with SIGPIPE)
fab_has() {
  local re=$1 out
  shift
  out=$("$@" 2>&1) || true
  grep -Eq -- "$re" <<<"$out"
}
