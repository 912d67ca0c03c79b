#!/usr/bin/env bash
# configs/k8s-mpijob.yaml rehearsed without Kubernetes: the image (test_build_and_run.sh builds it) as one launcher
# and N workers, podman containers on one podman network, wired as the Kubeflow MPI operator (v2beta1) wires its
# pods (pkg/controller/mpi_job_controller.go of kubeflow/mpi-operator):
#   - the host file at /etc/mpi/hostfile, one "<job>-worker-<i>.<job>.<namespace>.svc slots=<slotsPerWorker>" line
#     per worker (names the network's DNS answers);
#   - the SSH secret (an ECDSA P-521 key as id_rsa, id_rsa.pub, authorized_keys) mounted at /root/.ssh in every pod;
#   - the launcher's environment: K_MPI_JOB_ROLE=launcher, OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile,
#     OMPI_MCA_orte_keep_fqdn_hostnames=true, OMPI_MCA_plm_rsh_args="-o ConnectionAttempts=10"; workers
#     K_MPI_JOB_ROLE=worker;
#   - the report volume mounted where the YAML mounts /reports (rank 0 runs on worker 0 and writes there);
#   - each container runs its command and args from the YAML: the workers' sshd, the launcher's mpirun line with
#     -np set to N and the config replaced by configs/acceptance/vfabric.json (the shipped GPU config's thresholds
#     are for 8 NICs a node; its sweep needs GPUs).
# `fabcheck run` completes (exit 0, the gate passes), its report names the N worker hosts and run.launcher says
# MPIJob. MPIJOB_WORKERS (default 3). ~40 s on a built image; bounds itself to 300 s.
source "$(dirname "$0")/lib.sh"
img_init 300
N=${MPIJOB_WORKERS:-3}
podman image exists "$IMG" || img_build
job=fcr$$
ns=default
net=$job-net

# the YAML's launcher and worker commands (PyYAML: ci/setup's python3-yaml)
/usr/bin/python3 - "$SRC/configs/k8s-mpijob.yaml" "$IMG_TMP" <<'PY' || fail "configs/k8s-mpijob.yaml: no launcher/worker command"
import json, sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
specs = d["spec"]["mpiReplicaSpecs"]
for role in ("Launcher", "Worker"):
    c = specs[role]["template"]["spec"]["containers"][0]
    json.dump(c.get("command", []) + c.get("args", []), open(f"{sys.argv[2]}/{role}.json", "w"))
    # the pods that mount the report volume at /reports get the rehearsal's report folder there
    mounts = [m["mountPath"] for m in c.get("volumeMounts", [])]
    open(f"{sys.argv[2]}/{role}.reports", "w").write("yes" if "/reports" in mounts else "no")
print(d["spec"].get("slotsPerWorker", 1), file=open(f"{sys.argv[2]}/slots", "w"))
PY
mapfile -t worker_cmd < <(/usr/bin/python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))))' "$IMG_TMP/Worker.json")
mapfile -t launcher_cmd < <(/usr/bin/python3 - "$IMG_TMP/Launcher.json" "$N" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); n = sys.argv[2]
a[a.index("-np") + 1] = n
a[a.index("--config") + 1] = "/opt/fabcheck/configs/acceptance/vfabric.json"
print("\n".join(a))
PY
)
[ "${worker_cmd[0]:-}" = /usr/sbin/sshd ] || fail "the YAML's worker does not run sshd: ${worker_cmd[*]}"
[ "${launcher_cmd[0]:-}" = mpirun ] || fail "the YAML's launcher does not run mpirun: ${launcher_cmd[*]}"

# the operator's secret and config map
mkdir -p "$IMG_TMP/ssh" "$IMG_TMP/mpi" "$IMG_TMP/reports"
ssh-keygen -q -t ecdsa -b 521 -N '' -f "$IMG_TMP/ssh/id_rsa" -C "$job" || fail "ssh-keygen"
cp "$IMG_TMP/ssh/id_rsa.pub" "$IMG_TMP/ssh/authorized_keys"
chmod 600 "$IMG_TMP/ssh/"*
: >"$IMG_TMP/mpi/hostfile"
for ((i = 0; i < N; i++)); do echo "$job-worker-$i.$job.$ns.svc slots=$(cat "$IMG_TMP/slots")" >>"$IMG_TMP/mpi/hostfile"; done

podman network create "$net" >/dev/null || fail "podman network create"
IMG_CLEANUP+=("podman network rm -f $net")
reports_of() { [ "$(cat "$IMG_TMP/$1.reports")" = yes ] && echo "-v $IMG_TMP/reports:/reports" || true; }
t0=$SECONDS
for ((i = 0; i < N; i++)); do
  w=$job-worker-$i
  IMG_CLEANUP=("podman rm -f -t 0 $w" "${IMG_CLEANUP[@]}")
  podman run -d --name "$w" --hostname "$w" --network "$net" --network-alias "$w.$job.$ns.svc" \
    -e K_MPI_JOB_ROLE=worker -v "$IMG_TMP/ssh:/root/.ssh:ro" $(reports_of Worker) "$IMG" "${worker_cmd[@]}" >/dev/null ||
    fail "worker $w did not start"
done
IMG_CLEANUP=("podman rm -f -t 0 $job-launcher" "${IMG_CLEANUP[@]}")
rc=0
podman run --name "$job-launcher" --hostname "$job-launcher" --network "$net" \
  -e K_MPI_JOB_ROLE=launcher -e OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile \
  -e OMPI_MCA_orte_keep_fqdn_hostnames=true -e "OMPI_MCA_plm_rsh_args=-o ConnectionAttempts=10" \
  -v "$IMG_TMP/ssh:/root/.ssh:ro" -v "$IMG_TMP/mpi:/etc/mpi:ro" $(reports_of Launcher) \
  "$IMG" "${launcher_cmd[@]}" >"$IMG_TMP/launcher.out" 2>&1 || rc=$?
note "launcher: ${launcher_cmd[*]}: exit $rc in $((SECONDS - t0)) s (with $N workers started)"
[ "$rc" = 0 ] || fail "the launcher's fabcheck run exited $rc: $(tail -25 "$IMG_TMP/launcher.out")"
[ -s "$IMG_TMP/reports/report.json" ] || fail "no report on the report volume (rank 0 runs on worker 0: its pod must mount it)"
python3 - "$IMG_TMP/reports/report.json" "$job" "$N" <<'PY' || fail "the MPIJob's report"
import json, sys
d = json.load(open(sys.argv[1])); job, n = sys.argv[2], int(sys.argv[3])
hosts = [h["host"] for h in d["topology"]["hosts"]]
want = [f"{job}-worker-{i}" for i in range(n)]
assert sorted(hosts) == want, (hosts, want)
assert d["run"]["status"] == "complete" and d["gate"]["passed"], (d["run"]["status"], d["gate"].get("passed"))
la = d["run"]["launcher"]
assert la["kind"] == "MPIJob", la
print(f"MPIJob rehearsal: fabcheck run complete, gate passed, hosts {hosts}, run.launcher {la['kind']} ({la['evidence']})")
PY
for f in gate.xml good-hosts; do [ -s "$IMG_TMP/reports/$f" ] || fail "the launcher left no /reports/$f"; done
echo PASS
