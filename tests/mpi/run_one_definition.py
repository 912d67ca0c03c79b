"""On a real run (2 local ranks): (1) the report's run.config, written to a file, is a valid --config
with the same effective config as the run's own (`--show-config` equal); (2) `fabcheck latency` and `fabcheck
run` with only latency enabled write the same section keys (the latency entries and the topology alike);
(3) the counters switch is one option of both: by default each step's counters record holds its totals,
`--no-counters` on either command leaves the record out and says `counters: false` in run.config."""
import json, os, sys

sys.path.insert(0, os.path.dirname(__file__))
from run_common import check_exit, fail, fabcheck, load, mpirun, tmpdir, write_json  # noqa: E402

d = tmpdir()
cfg = {"name": "one definition", "timeout_s": 60,
       "sweep": {"collectives": ["allreduce"], "min_bytes": "8", "max_bytes": "64K", "step_factor": 8,
                 "iters": 2, "per_iter_iters": 2, "budget_s": 5},
       "latency": {"sizes": "8,4K", "iters": 200, "warmup_iters": 10, "passes": 2, "budget_s": 5}}
cfg_path = os.path.join(d, "cfg.json")
write_json(cfg_path, cfg)


def show_config(path):
    p = fabcheck(["run", "--config", path, "--show-config"])
    if p.returncode != 0:
        fail(f"--show-config --config {path}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


rep = os.path.join(d, "r.json")
p, wall = mpirun(2, ["run", "--config", cfg_path, "--json", rep, "-q"])
check_exit(p, "run")
r = load(rep)
again = os.path.join(d, "run-config.json")
write_json(again, r["run"]["config"])
a, b = show_config(cfg_path), show_config(again)
if a != b:
    diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    fail(f"run.config read back as --config gives another effective config (sections {diff})")
print(f"run ({wall:.1f} s): run.config read back gives the same effective config ({len(json.dumps(a))} bytes)")

# (2) latency standalone vs latency-only run, same options.
only = {"latency": cfg["latency"]}
only_path = os.path.join(d, "latency-only.json")
write_json(only_path, only)
run_rep = os.path.join(d, "run-latency.json")
p, _ = mpirun(2, ["run", "--config", only_path, "--json", run_rep, "-q"])
check_exit(p, "latency-only run")
alone_rep = os.path.join(d, "latency.json")
p, _ = mpirun(2, ["latency", "--sizes", "8,4K", "--iters", "200", "--warmup-iters", "10", "--passes", "2",
                  "--json", alone_rep])
check_exit(p, "fabcheck latency")
run_r, alone_r = load(run_rep), load(alone_rep)


def paths(v, prefix="", top=True):
    """Key paths of a JSON value. The section's own list (latency entries) is descended into, item keys merged;
    lists inside an entry are leaves, since how many spikes or stragglers a run saw is data, not schema."""
    out = set()
    if isinstance(v, dict):
        for k, x in v.items():
            out.add(prefix + "/" + k)
            out |= paths(x, prefix + "/" + k, False)
    elif isinstance(v, list) and top:
        for x in v:
            out |= paths(x, prefix + "/*", False)
    return out


for section in ["latency", "topology"]:
    pa, pb = paths(run_r.get(section)), paths(alone_r.get(section))
    if not pa:
        fail(f"run wrote no {section} section")
    if pa != pb:
        fail(f"{section}: run and standalone differ in keys: run only {sorted(pa - pb)[:8]}, "
             f"standalone only {sorted(pb - pa)[:8]}")
    print(f"{section}: {len(pa)} key paths, the same in both reports")
if run_r["run"]["config"]["latency"].get("sizes") != alone_r["run"]["config"]["latency"].get("sizes"):
    fail("run.config.latency differs between run and standalone")
lat_keys = set(run_r["run"]["config"]["latency"]) - {"enabled", "budget_s"}
if lat_keys != set(alone_r["run"]["config"]["latency"]):
    fail(f"run.config.latency keys differ: {sorted(lat_keys ^ set(alone_r['run']['config']['latency']))}")

# (3) the counters switch, the same on run and on the standalone command.
totals_keys = {"hosts", "tcp_out_segs", "tcp_retrans_segs", "tcp_lost_segs", "tcp_lost_share", "rdma_link_events",
               "rdma_link_errors", "rdma_xmit_discards", "roce_seq_errors", "netdev_errors", "netdev_drops"}
for name, rep_r in [("run", run_r), ("latency", alone_r)]:
    rec = rep_r["run"]["sections"]["latency"].get("counters")
    if not rec or set(rec.get("totals", {})) != totals_keys:
        fail(f"{name}: the latency step's counters record lacks its totals: {rec}")
    if rep_r["run"]["config"].get("counters") is not True:
        fail(f"{name}: run.config.counters is {rep_r['run']['config'].get('counters')!r}, expected true")
off = {}
for name, args in [("run", ["run", "--config", only_path, "-q", "--no-counters"]),
                   ("latency", ["latency", "--sizes", "8", "--iters", "50", "--no-counters"])]:
    path = os.path.join(d, f"{name}-no-counters.json")
    p, _ = mpirun(2, args + ["--json", path])
    check_exit(p, f"{name} --no-counters")
    off = load(path)
    if "counters" in off["run"]["sections"]["latency"]:
        fail(f"{name} --no-counters: the latency step still recorded counters")
    if off["run"]["config"].get("counters") is not False:
        fail(f"{name} --no-counters: run.config.counters is {off['run']['config'].get('counters')!r}")
print("counters: totals recorded by default on run and latency; --no-counters leaves them out on both")
print("PASS")
