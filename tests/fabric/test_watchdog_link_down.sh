#!/usr/bin/env bash
# A data link pulled while `fabcheck run` measures — during the sweep, and during the pairs step — ends
# the job: mpirun returns 3 within (link-down + --timeout + 20 s), the report is
# `incomplete` and names the unreachable host (run.watchdog.silent and missing_hosts; WATCHDOG_TIMEOUT with
# evidence.host). The hosts have a management network beside the data network (vfabric up --mgmt), as a cluster's
# Ethernet is beside its fabric: mpirun's own traffic keeps its path, as it does when an IB/RoCE link fails. ~25 s;
# bounds itself to 200 s. WD_LAUNCHER=srun: the same under Slurm (vslurm, its daemons on the management network),
# `srun --mpi=pmix` returning fabcheck's exit code 3.
source "$(dirname "$0")/lib.sh"
LAUNCHER=${WD_LAUNCHER:-mpirun}
if [ "$LAUNCHER" = srun ]; then fab_init fwds 200; else fab_init fwd 200; fi

"$VF" up --hosts 3 --mgmt "${VFN[@]}"
mapfile -t hosts < <("$VF" hosts "${VFN[@]}")
launch=("$VF" mpirun "${VFN[@]}" --)
if [ "$LAUNCHER" = srun ]; then
  fab_slurm_up
  launch=(srun -N 3 --mpi=pmix)
fi
victim=${hosts[2]}
timeout_s=6
slack_s=20  # start of the watchdog's count, the report, mpirun ending the job
printf '{"name": "pairs-only", "inspect": {}, "pairs": {}}\n' >"$FAB_TMP/pairs.json"

# case NAME [RUN ARGS...]: starts the run, pulls the victim's data link once the inspect step is done (the next
# step is measuring), and checks how the job ends.
run_case() {
  local name=$1 delay=$2
  shift 2
  local rep=$FAB_TMP/$name.json
  "${launch[@]}" "$FABCHECK" run --timeout $timeout_s --json "$rep" -q "$@" >"$FAB_TMP/$name.out" 2>&1 &
  local p=$! t0=$SECONDS retried=0
  FAB_BG+=("$p")
  until [ -s "$rep" ] && "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["run"]["sections"]["inventory"]["status"] != "ok")' "$rep" 2>/dev/null; do
    if ! kill -0 "$p" 2>/dev/null && [ $retried = 0 ] && fab_init_crash "$rep" "$FAB_TMP/$name.out"; then
      note "$name: a rank died in MPI_Init (Open MPI's TCP wireup; fabcheck had not started): launched once more"
      retried=1
      "${launch[@]}" "$FABCHECK" run --timeout $timeout_s --json "$rep" -q "$@" >"$FAB_TMP/$name.out" 2>&1 &
      p=$!
      FAB_BG+=("$p")
    fi
    kill -0 "$p" 2>/dev/null || fail "$name: the run ended before its inspect step finished: $(tail -5 "$FAB_TMP/$name.out")"
    ((SECONDS - t0 < 60)) || fail "$name: the inspect step had not finished after 60 s: $(tail -5 "$FAB_TMP/$name.out")"
    sleep 0.1
  done
  note "$name: inspect done after $((SECONDS - t0)) s"
  sleep "$delay"
  "$VF" link-down "$victim" "${VFN[@]}"
  note "$name: $victim's data link is down"
  local t_down rc=0
  t_down=$(date +%s.%N)
  wait "$p" || rc=$?
  local took
  took=$(awk -v a="$t_down" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  note "$name: $LAUNCHER returned $rc, $took s after link-down (limit --timeout $timeout_s + $slack_s)"
  "$VF" clear "${VFN[@]}"
  [ "$rc" = 3 ] || fail "$name: $LAUNCHER returned $rc, want 3: $(tail -5 "$FAB_TMP/$name.out")"
  awk -v t="$took" -v l=$((timeout_s + slack_s)) 'BEGIN { exit !(t <= l) }' ||
    fail "$name: $LAUNCHER took $took s after link-down"
  "$PY" - "$rep" "$victim" "$name" "$LAUNCHER" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); victim, name, launcher = sys.argv[2], sys.argv[3], sys.argv[4]
run = d["run"]; wd = run.get("watchdog") or {}
la = run.get("launcher") or {}
assert la.get("kind") == launcher, (name, "run.launcher", la)
assert (la.get("slurm_job_id") is not None) == (launcher == "srun"), (name, "run.launcher.slurm_job_id", la)
assert run["status"] == "incomplete" and run["exit_code"] == 3, (name, run["status"], run["exit_code"])
assert victim in wd.get("missing_hosts", []), (name, "missing_hosts", wd.get("missing_hosts"))
assert any(s["host"] == victim for s in wd.get("silent", [])), (name, "silent", wd.get("silent"))
f = [x for x in d["findings"] if x["code"] == "WATCHDOG_TIMEOUT"]
assert f and f[0]["severity"] == "fail", (name, f)
assert f[0]["evidence"].get("host") == victim, (name, "evidence.host", f[0]["evidence"].get("host"))
print(f"{name}: watchdog named {wd['missing_hosts']}: {wd['message']}")
PY
  grep -q "stopped reporting" "$FAB_TMP/$name.out" || fail "$name: no stderr line naming the silent rank"
}

run_case during-sweep 1
# pairs alone takes about a second at full speed: the victim's link at 100mbit makes it last long enough to pull
# the link mid-step.
"$VF" throttle "$victim" 100mbit "${VFN[@]}"
run_case during-pairs 0.5 --config "$FAB_TMP/pairs.json"
echo PASS
