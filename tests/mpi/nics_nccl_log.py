#!/usr/bin/env python3
"""`fabcheck nics --nccl-log` on 2 local ranks given distinct host names (fake_hosts.sh):
  a log whose hosts fh0/fh1 bootstrap on lo -> NICS_MGMT_IN_USE naming lo, the log's hosts mapped to the measured
  hosts in nics.nccl_log; the same log with the bootstrap on the host's measured data NIC -> no NICS_MGMT_IN_USE;
  an unreadable --nccl-log -> exit 2 with one line naming --nccl-log, before anything is measured.
The logs are CONSTRUCTED here (this machine's interfaces and the fake host names), in the real `Bootstrap : Using
if:addr<0>` form of NCCL 2.8 - 2.23 (tests/data/nccl-logs/real/r03-*.log line 3)."""
import os, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
from run_common import fail, fake_hosts_run, load

SMALL = ["--size", "1M", "--budget-ms", "20", "--lat-iters", "5", "--lat-warmup", "1", "--no-retest",
         "--verbs", "off", "--connect-timeout-ms", "500"]
d = tempfile.mkdtemp(prefix="fabcheck-nics-nccl-log-")


def nics(tag, log):
    rep = os.path.join(d, tag + ".json")
    return fake_hosts_run(tag, "1,1", ["nics"] + SMALL + ["--nccl-log", log, "--json", rep]), rep


def write_log(tag, iface, addr):
    path = os.path.join(d, tag + ".log")
    with open(path, "w") as f:
        for h in (0, 1):
            f.write(f"fh{h}:{100 + h}:{100 + h} [0] NCCL INFO Bootstrap : Using {iface}:{addr}<0>\n")
            f.write(f"fh{h}:{100 + h}:{100 + h} [0] NCCL INFO Using network IB\n")
    return path


def mgmt(r):
    return [f for f in r.get("findings", []) if f["code"] == "NICS_MGMT_IN_USE"]


p, rep = nics("lo", write_log("lo", "lo", "127.0.0.1"))
if p.returncode not in (0, 1):
    fail(f"lo: exit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
r = load(rep)
hosts = r["nics"]["nccl_log"]["hosts"]
if [h["host"] for h in hosts] != ["fh0", "fh1"] or [h["measured_host"] for h in hosts] != r["nics"]["hosts"]:
    fail(f"log hosts not mapped to the measured hosts {r['nics']['hosts']}: {hosts}")
f = mgmt(r)
if len(f) != 1 or "lo:127.0.0.1" not in f[0]["message"] or "NCCL_SOCKET_IFNAME=" not in f[0]["remedy"]:
    fail(f"want one NICS_MGMT_IN_USE naming lo:127.0.0.1: {f}\n{p.stdout[-2000:]}")
if "# nccl log" not in p.stdout:
    fail("console lacks the nccl log line")
data = [n for n in r["nics"]["nics"][0] if n["data"]]
if not data:
    fail(f"no data NIC measured: {r['nics']['nics']}")
print("flagged:", f[0]["message"])

p, rep = nics("data", write_log("data", data[0]["name"], data[0]["addr"]))
if p.returncode not in (0, 1):
    fail(f"data: exit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
if mgmt(load(rep)):
    fail(f"bootstrap on data NIC {data[0]['name']} flagged: {mgmt(load(rep))}")

missing = os.path.join(d, "missing.log")
p, rep = nics("missing", missing)
lines = [l for l in p.stderr.splitlines() if "--nccl-log" in l]
if p.returncode != 2 or not lines or os.path.exists(rep):
    fail(f"missing log: exit {p.returncode}, stderr {p.stderr[-1000:]}")
print("ok")
