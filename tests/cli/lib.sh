# Shared by the tests/cli shell tests (sourced): a scratch folder $tmp removed at exit, fail, and the exit-code
# checks. Env: FABCHECK.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_exit NAME CODE OUT CMD...: runs CMD with its stdout and stderr in OUT; fails the test (showing OUT) unless
# it exits CODE.
expect_exit() {
  local name=$1 want=$2 out=$3 rc=0
  shift 3
  "$@" >"$out" 2>&1 || rc=$?
  [ "$rc" = "$want" ] || fail "$name exit $rc, expected $want: $(cat "$out")"
}

# refused NAME WANT NOFILE CMD...: CMD exits 2 with exactly one stderr line, that line containing WANT (a fixed
# string), and writes no NOFILE.
refused() {
  local name=$1 want=$2 nofile=$3 rc=0
  shift 3
  "$@" >"$tmp/refused.out" 2>"$tmp/refused.err" || rc=$?
  [ "$rc" = 2 ] || fail "$name: exit $rc, expected 2 ($(cat "$tmp/refused.err"))"
  [ "$(wc -l <"$tmp/refused.err")" = 1 ] || fail "$name: stderr is not one line: $(cat "$tmp/refused.err")"
  grep -qF -- "$want" "$tmp/refused.err" || fail "$name: stderr lacks '$want': $(cat "$tmp/refused.err")"
  [ ! -e "$nofile" ] || fail "$name: wrote $nofile"
}
