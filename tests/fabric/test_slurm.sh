#!/usr/bin/env bash
# fabcheck under a real Slurm (vslurm: munged, slurmctld, one slurmd per virtual host, Slurm on the management
# network) on a 4-host virtual fabric, launched as cluster teams launch it:
#   srun --mpi=pmix fabcheck sweep     -> one rank on each host; run.launcher says srun with the job and step ids;
#   srun ... fabcheck run --config configs/acceptance/vfabric.json
#                                      clean -> exit 0 through srun; one host throttled to 100mbit -> exit 1
#                                      through srun, the host left out of the good-hosts file, and that file
#                                      works as `srun --nodefile` (the job runs on the other three);
#   a rank that crashes mid-run under srun (no --kill-on-bad-exit: the other ranks go on) -> the watchdog ends the
#                                      job at once (rank 0 sees its connection close without a goodbye), not after
#                                      --timeout; the report is incomplete and names the host;
#   sbatch deploy/fabcheck.sbatch      the script as shipped (FABCHECK and CONFIG by environment): the job
#                                      completes with exit 0 and leaves report, JUnit, HTML and good-hosts file.
# ~90 s; bounds itself to 300 s.
source "$(dirname "$0")/lib.sh"
fab_init fslurm 300
: "${FABCHECK:?FABCHECK (the binary) must be set}"
SRC=${FABCHECK_SOURCE_DIR:-$FAB_DIR/../..}
CFG=$SRC/configs/acceptance/vfabric.json

"$VF" up --hosts 4 --mgmt "${VFN[@]}"
mapfile -t hosts < <("$VF" hosts "${VFN[@]}")
fab_slurm_up

# srun_once_more TAG REPORT ARGS...: `srun --mpi=pmix ARGS` (90 s at most), output in $FAB_TMP/TAG.out, exit code in
# rc; launched once more when a rank died inside MPI_Init before fabcheck wrote REPORT (fab_init_crash).
srun_once_more() {
  local tag=$1 rep=$2 try
  shift 2
  for try in 1 2; do
    rc=0
    timeout 90 srun --mpi=pmix "$@" >"$FAB_TMP/$tag.out" 2>&1 || rc=$?
    [ "$try" = 1 ] && [ "$rc" != 0 ] && fab_init_crash "$rep" "$FAB_TMP/$tag.out" || break
    note "$tag: a rank died in MPI_Init (Open MPI's TCP wireup; fabcheck had not started): launched once more"
  done
}

# check_launcher REPORT: run.launcher is srun with a job id, the step's node list and PMIx
check_launcher() {
  "$PY" - "$1" "$FAB_NAME" <<'PY' || fail "$1: run.launcher"
import json, sys
d = json.load(open(sys.argv[1])); la = d["run"].get("launcher") or {}
assert la.get("kind") == "srun", la
assert la.get("slurm_job_id") and la.get("slurm_step_id") is not None, la
assert la.get("nodelist", "").startswith(sys.argv[2] + "-h"), la
assert la.get("pmi") == "pmix" and la.get("mpi_implementation") == "Open MPI", la
print(f"run.launcher: {la['kind']} job {la['slurm_job_id']} step {la['slurm_step_id']} nodes {la['nodelist']} "
      f"pmi {la['pmi']} {la['mpi_implementation']} {la['mpi_version']}")
PY
}

# -- srun sweep: one rank per host
t0=$SECONDS
srun_once_more sweep "$FAB_TMP/sweep.json" -N 4 "$FABCHECK" sweep -b 64K -e 1M -f 4 --json "$FAB_TMP/sweep.json"
[ "$rc" = 0 ] || fail "srun sweep: exit $rc: $(tail -5 "$FAB_TMP/sweep.out")"
note "srun sweep: exit 0 in $((SECONDS - t0)) s"
"$PY" - "$FAB_TMP/sweep.json" "${hosts[@]}" <<'PY' || fail "srun sweep: the report's hosts"
import json, sys
d = json.load(open(sys.argv[1])); want = sys.argv[2:]
got = [(h["host"], h["ranks"]) for h in d["topology"]["hosts"]]
assert [h for h, _ in got] == want and all(len(r) == 1 for _, r in got), got
print(f"srun sweep: one rank on each of {want}")
PY
check_launcher "$FAB_TMP/sweep.json"

# -- fabcheck run with the acceptance config: the gate's exit code comes through srun
run_gate() { # TAG [SRUN ARGS...]: sets rc; $FAB_TMP/TAG.{json,out,hosts}
  local tag=$1 t0=$SECONDS
  shift
  srun_once_more "$tag" "$FAB_TMP/$tag.json" "$@" "$FABCHECK" run --config "$CFG" --json "$FAB_TMP/$tag.json" \
    --exclude-hostfile "$FAB_TMP/$tag.hosts" -T 30 -q
  note "$tag: srun fabcheck run exit $rc in $((SECONDS - t0)) s"
}
run_gate clean -N 4
[ "$rc" = 0 ] || fail "clean: exit $rc, want 0: $(tail -20 "$FAB_TMP/clean.out")"
check_launcher "$FAB_TMP/clean.json"
slow=${hosts[2]}
"$VF" throttle "$slow" 100mbit "${VFN[@]}"
run_gate throttled -N 4
"$VF" clear "${VFN[@]}"
[ "$rc" = 1 ] || fail "throttled $slow: exit $rc, want 1: $(tail -20 "$FAB_TMP/throttled.out")"
grep -qx "$slow" "$FAB_TMP/throttled.hosts" && fail "throttled: $slow is in the good-hosts file"
[ "$(grep -cv '^#' "$FAB_TMP/throttled.hosts")" = 3 ] || fail "throttled: good-hosts file: $(cat "$FAB_TMP/throttled.hosts")"
# the good-hosts file as Slurm's node list: the next job runs on the three good hosts
ran=$(timeout 30 srun --nodefile "$FAB_TMP/throttled.hosts" -N 3 hostname | sort | tr '\n' ' ')
want=$(grep -v '^#' "$FAB_TMP/throttled.hosts" | sort | tr '\n' ' ')
[ "$ran" = "$want" ] || fail "srun --nodefile good-hosts ran on '$ran', want '$want'"
note "srun --nodefile good-hosts: ran on $ran($slow left out)"

# -- a rank that dies mid-run (test fault: SIGKILL at its 40th watched operation, as a segmentation fault ends it)
t0=$SECONDS
FABCHECK_TEST_FAULT=crash:rank=2:after=40 srun_once_more crash "$FAB_TMP/crash.json" -N 4 "$FABCHECK" run \
  --config "$CFG" --json "$FAB_TMP/crash.json" --timeout 60 -q
took=$((SECONDS - t0))
note "crash of rank 2: srun returned $rc after $took s (--timeout 60)"
[ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$took" -lt 30 ] ||
  fail "crash: srun returned $rc after $took s, want non-zero well before --timeout 60: $(tail -5 "$FAB_TMP/crash.out")"
"$PY" - "$FAB_TMP/crash.json" "${hosts[2]}" <<'PY' || fail "crash: the report"
import json, sys
d = json.load(open(sys.argv[1])); host = sys.argv[2]
run = d["run"]; wd = run.get("watchdog") or {}
assert run["status"] == "incomplete" and run["exit_code"] == 3, (run["status"], run["exit_code"])
assert "ended mid-run" in wd.get("message", ""), wd.get("message")
f = [x for x in d["findings"] if x["code"] == "WATCHDOG_TIMEOUT"]
assert f and f[0]["severity"] == "fail" and f[0]["evidence"].get("host") == host, f
print(f"crash: {wd['message']}")
PY

# -- the shipped batch script, as a user submits it
mkdir -p "$FAB_TMP/batch"
for try in 1 2; do
  job=$(FABCHECK=$FABCHECK CONFIG=$CFG sbatch --parsable --chdir "$FAB_TMP/batch" "$SRC/deploy/fabcheck.sbatch") ||
    fail "sbatch deploy/fabcheck.sbatch refused"
  t0=$SECONDS
  state=
  while ((SECONDS - t0 < 150)); do
    state=$(scontrol show job "$job" -o 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2) || true
    case $state in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) break ;; esac
    sleep 0.5
  done
  code=$(scontrol show job "$job" -o | grep -o ' ExitCode=[0-9:]*' | cut -d= -f2)
  note "sbatch job $job: $state, ExitCode $code, $((SECONDS - t0)) s"
  [ "$try" = 1 ] && [ "$state" != COMPLETED ] &&
    fab_init_crash "$FAB_TMP/batch/reports/$job/report.json" "$FAB_TMP/batch/fabcheck-$job.out" || break
  note "sbatch job $job: a rank died in MPI_Init (Open MPI's TCP wireup; fabcheck had not started): submitted once more"
done
[ "$state" = COMPLETED ] && [ "$code" = 0:0 ] ||
  fail "sbatch: job $job $state $code: $(tail -20 "$FAB_TMP/batch/fabcheck-$job.out" 2>/dev/null)"
for f in report.json gate.xml good-hosts report.html; do
  [ -s "$FAB_TMP/batch/reports/$job/$f" ] || fail "sbatch: reports/$job/$f missing"
done
check_launcher "$FAB_TMP/batch/reports/$job/report.json"
echo PASS
