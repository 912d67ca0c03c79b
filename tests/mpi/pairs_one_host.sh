#!/usr/bin/env bash
# Usage: pairs_one_host.sh NP. Env from fabcheck_script_test: FABCHECK, MPIEXEC, MPI_FLAGS.
set -uo pipefail
np=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# One host: exit 2, exactly one fabcheck error line naming the reason, no report and no hostfile written.
# shellcheck disable=SC2086
$MPIEXEC -np "$np" $MPI_FLAGS "$FABCHECK" pairs --size 1M --json "$tmp/r.json" --exclude-hostfile "$tmp/hosts" \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] || { cat "$tmp/err"; fail "one host: exit $rc, want 2"; }
n=$(grep -c '^fabcheck: error:' "$tmp/err")
[ "$n" = 1 ] || { cat "$tmp/err"; fail "one host: $n error lines, want 1"; }
grep -q 'pairs needs two hosts' "$tmp/err" || fail "one host: reason not named"
[ ! -e "$tmp/r.json" ] || fail "one host: report written"
[ ! -e "$tmp/hosts" ] || fail "one host: hostfile written"

# Bad input: --size 0 and --size smaller than --window, one line naming the flag, exit 2.
for args in "--size 0" "--size 8 --window 64" "--window 0"; do
  # shellcheck disable=SC2086
  $MPIEXEC -np "$np" $MPI_FLAGS "$FABCHECK" pairs $args --json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" = 2 ] || { cat "$tmp/err"; fail "$args: exit $rc, want 2"; }
  [ "$(grep -c '^fabcheck: error:' "$tmp/err")" = 1 ] || { cat "$tmp/err"; fail "$args: not one error line"; }
  flag=${args%% *}
  grep -q -- "$flag" "$tmp/err" || { cat "$tmp/err"; fail "$args: flag not named"; }
  [ ! -e "$tmp/r.json" ] || fail "$args: report written"
done
echo "PASS pairs one host np=$np"
