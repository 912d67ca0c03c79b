"""On a real run (2 local ranks): the latency step keeps to its budget (sections share
1.5 x budget_s, each stops there and says so: LATENCY_TIME_LIMITED, info), and every step records the hosts' CPU
load beside it (run.sections.<s>.cpu_load)."""
import json, os, sys

sys.path.insert(0, os.path.dirname(__file__))
from run_common import check_exit, fail, load, mpirun, tmpdir, write_json  # noqa: E402

d = tmpdir()
# Two million iterations per size would take minutes; budget_s 2 gives the two p2p and two collective sections
# 3 s in all (at least 0.1 s each).
cfg = {"name": "latency budget", "timeout_s": 60,
       "latency": {"sizes": "8,4K", "iters": 2000000, "warmup_iters": 10, "passes": 1, "budget_s": 2}}
cfg_path = os.path.join(d, "cfg.json")
write_json(cfg_path, cfg)
rep = os.path.join(d, "r.json")
p, wall = mpirun(2, ["run", "--config", cfg_path, "--json", rep, "-q"])
check_exit(p, "run")
r = load(rep)
sec = r["run"]["sections"]["latency"]
print(f"run {wall:.1f} s, latency step {sec['elapsed_s']:.2f} s (budget {sec['budget_s']} s)")
if sec["elapsed_s"] > 3 * 1.5 * sec["budget_s"]:
    fail(f"the latency step took {sec['elapsed_s']:.1f} s, far past its limit of {1.5 * sec['budget_s']} s")
entries = r["latency"]
if len(entries) != 4:
    fail(f"want 4 latency entries (p2p and collective at 8 B and 4 KiB), got {len(entries)}")
for e in entries:
    notes = [n for n in e.get("notes", []) if n.startswith("stopped at the step's time limit")]
    if not notes:
        fail(f"{e['kind']} {e['size_bytes']} B: no time-limit note ({e.get('notes')})")
    if not (0 < e["samples"] < 2000000):
        fail(f"{e['kind']} {e['size_bytes']} B: {e['samples']} samples")
    print(f"  {e['kind']} {e['size_bytes']} B: {e['samples']} samples; {notes[0]}")
codes = {f["code"]: f["severity"] for f in r["findings"]}
if codes.get("LATENCY_TIME_LIMITED") != "info":
    fail(f"no LATENCY_TIME_LIMITED info finding: {codes}")
cl = sec.get("cpu_load")
if not cl or not cl["kernels"] or cl["kernels"][0]["cpus"] < 1 or cl["kernels"][0]["ranks"] != 2:
    fail(f"run.sections.latency.cpu_load missing or wrong: {cl}")
print(f"  cpu_load: {json.dumps(cl)}")
print("PASS")
