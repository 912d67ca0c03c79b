#!/usr/bin/env python3
"""mpirun -np 2 fabcheck inspect on this machine, a sysfs host model under MPI, singleton mode, bad input."""
import os, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
from run_common import fabcheck, fail, load, run  # noqa: E402

DATA = os.environ["FABCHECK_TEST_DATA"]


tmp = tempfile.mkdtemp()

# 1. this machine, 2 local ranks: one host → one inventory; no RDMA; Debian's pml = ^ucx.
out = os.path.join(tmp, "inspect.json")
p = run(2, ["inspect", "--json", out], timeout=90)
print(p.stdout)
if p.returncode != 0:
    fail(f"exit {p.returncode}: {p.stderr}")
if not p.stdout.startswith("transport verdict: no_rdma_hardware"):
    fail("console does not start with the verdict")
doc = load(out)
if doc["transport"]["verdict"] != "no_rdma_hardware":
    fail(f"verdict {doc['transport']['verdict']}")
hosts = doc["inventory"]["hosts"]
if len(hosts) != 1:
    fail(f"{len(hosts)} inventories for 2 ranks on one host")
h = hosts[0]
if h["rdma"]["status"] != "none" or h["rdma_devices"]:
    fail("this machine has no RDMA device, inventory says otherwise")
if h["verbs"]["status"] not in ("unavailable", "not_compiled"):
    fail(f"verbs status {h['verbs']['status']}")
if h["verbs"]["status"] == "unavailable" and h["verbs"]["error"] != "Function not implemented":
    fail(f"verbs error {h['verbs']['error']}")
# Every rank's CPU binding: both ranks, local ranks 0 and 1, a CPU list within the host's CPUs.
b = sorted(h["rank_bindings"], key=lambda x: x["rank"])
if [(x["rank"], x["local_rank"]) for x in b] != [(0, 0), (1, 1)]:
    fail(f"rank_bindings {b}")
for x in b:
    cpus = set()
    for part in x["cpus"].split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    if not cpus or max(cpus) >= x["host_cpus"] or x["host_cpus"] != os.cpu_count():
        fail(f"binding {x} against {os.cpu_count()} CPUs")
codes = [f["code"] for f in doc["findings"]]
if "MPI_RDMA_EXCLUDED" not in codes:
    fail(f"findings {codes}")
if any(k.startswith("OMPI_MCA_orte_") for k in h["env"]) or any(
        not k.startswith(("NCCL_", "UCX_", "OMPI_MCA_")) for k in h["env"]):
    fail(f"env records more than the transport variables: {sorted(h['env'])}")
if doc["run"]["sections"]["inventory"]["status"] != "ok" or doc["run"]["exit_code"] != 0:
    fail("run section/exit code")

# 2. a host model under MPI: port down on mlx5_3 → PORT_DOWN; hardware present with no NCCL log.
out2 = os.path.join(tmp, "model.json")
p = run(2, ["inspect", "-q", "--sysfs-root", f"{DATA}/sysfs/d-ib-port-down-polling",
            "--etc-root", f"{DATA}/openmpi/debian", "--out", out2], timeout=90)
if p.returncode != 0 or p.stdout:
    fail(f"model run: exit {p.returncode}, stdout {p.stdout!r}, stderr {p.stderr}")
doc = load(out2)
h = doc["inventory"]["hosts"][0]
if len(h["rdma_devices"]) != 8 or h["rdma_devices"][3]["ports"][0]["state"] != "DOWN":
    fail("model inventory")
codes = sorted(f["code"] for f in doc["findings"])
if "PORT_DOWN" not in codes or "MPI_RDMA_EXCLUDED" not in codes:
    fail(f"model findings {codes}")
sev = {f["code"]: f["severity"] for f in doc["findings"]}
if sev["MPI_RDMA_EXCLUDED"] != "warn":
    fail("MPI_RDMA_EXCLUDED should warn where RDMA hardware exists")

# 3. singleton (no mpirun) works too.
p = fabcheck(["inspect", "-q", "-J", os.path.join(tmp, "single.json")], timeout=90)
if p.returncode != 0:
    fail(f"singleton: exit {p.returncode} {p.stderr}")

# 4. bad input: one stderr line, exit 2, nothing written.
bad = os.path.join(tmp, "bad.json")
for args in (["--sysfs-root", "/nonexistent/sysfs"], ["--nccl-log", "/nonexistent/nccl.log"],
             # a recorded host that no line of the log comes from (--sysfs-root host=DIR)
             ["--nccl-log", f"{DATA}/nccl-logs/01-ib-gdrdma-loopback-2.7.6.log",
              "--sysfs-root", f"nosuchhost={DATA}/sysfs/c-no-rdma"]):
    p = fabcheck(["inspect", "--json", bad] + args, timeout=90)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    if p.returncode != 2 or len(lines) != 1 or os.path.exists(bad):
        fail(f"{args}: exit {p.returncode}, stderr {p.stderr!r}")
    print("bad input ok:", lines[0])
print("OK")
