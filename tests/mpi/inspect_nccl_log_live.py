#!/usr/bin/env python3
"""`mpirun -np 2 fabcheck inspect --nccl-log LOG` judges the log against the live inventory of this host
(no --sysfs-root): a log of this host with NCCL_SOCKET_IFNAME naming no interface here gives SOCKET_IFNAME_NO_MATCH
naming the host (exit 1); the same log naming an interface this host has gives none; a missing log is one line and
exit 2 under mpirun; without mpirun the log is judged offline (no inventory)."""
import os, socket, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
from run_common import expect_usage_error, fabcheck, fail, load, run  # noqa: E402


tmp = tempfile.mkdtemp()
host = socket.gethostname()
iface = sorted(os.listdir("/sys/class/net"))[0]  # an interface this host has (lo at least)


def log_with(ifname):
    # NCCL 2.27.7 formats, as tests/data/nccl-logs/log-host/lh07 (NVIDIA/nccl#1837), with this host's name.
    path = os.path.join(tmp, f"nccl-{ifname}.log")
    with open(path, "w") as f:
        f.write(f"{host}:1958:1958 [0] NCCL INFO NCCL version 2.27.7+cuda12.9\n"
                f"{host}:1958:1958 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to {ifname}\n"
                f"{host}:1958:1958 [0] NCCL INFO NCCL_SOCKET_IFNAME set to {ifname}\n")
    return path


# 1. a missing interface: the live host's interfaces do not hold it.
out = os.path.join(tmp, "live.json")
p = run(2, ["inspect", "--nccl-log", log_with("nosuchif9"), "--json", out], timeout=90)
print(p.stdout)
if p.returncode != 1:
    fail(f"exit {p.returncode} (want 1: a fail finding): {p.stderr}")
if "inventory (live):" not in p.stdout:
    fail("console lacks the live inventory")
doc = load(out)
hosts = doc["inventory"]["hosts"]
if len(hosts) != 1 or hosts[0]["host"] != host:
    fail(f"inventory hosts {[h['host'] for h in hosts]}, want [{host}]")
hits = [f for f in doc["findings"] if f["code"] == "SOCKET_IFNAME_NO_MATCH"]
if len(hits) != 1 or host not in hits[0]["message"] or hits[0]["severity"] != "fail":
    fail(f"SOCKET_IFNAME_NO_MATCH: {hits} in {[f['code'] for f in doc['findings']]}")
if p.stdout.count("transport verdict") != 1:
    fail("the verdict is printed once (rank 0), not per rank")

# 2. an interface this host has: no such finding.
out2 = os.path.join(tmp, "live-ok.json")
p = run(2, ["inspect", "--nccl-log", log_with(iface), "--json", out2], timeout=90)
if p.returncode not in (0, 1):
    fail(f"exit {p.returncode}: {p.stderr}")
codes = [f["code"] for f in load(out2)["findings"]]
if "SOCKET_IFNAME_NO_MATCH" in codes:
    fail(f"{iface} exists here, findings {codes}")

# 3. bad input under mpirun: one line, exit 2 on every rank, nothing written.
expect_usage_error(2, ["inspect", "--nccl-log", os.path.join(tmp, "absent.log")], "--nccl-log",
                   os.path.join(tmp, "bad.json"), prefix="fabcheck: error:")

# 4. without a launcher: offline, no inventory of this host.
out4 = os.path.join(tmp, "offline.json")
p = fabcheck(["inspect", "--nccl-log", log_with("nosuchif9"), "--json", out4], timeout=90)
if p.returncode not in (0, 1) or load(out4).get("inventory"):
    fail(f"offline: exit {p.returncode}, inventory {load(out4).get('inventory')}")
print("PASS")
