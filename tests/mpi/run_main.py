#!/usr/bin/env python3
"""`fabcheck run` with the embedded default on 4 local ranks: every section present (ok, or skipped with a reason),
report complete, the gate round trip through `fabcheck gate`, JUnit, --dry-run, bad config (exit 2, no file)."""
import os, sys, xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(__file__))
from run_common import *

d = tmpdir()
rep = os.path.join(d, "report.json")
junit = os.path.join(d, "junit.xml")
p, wall = mpirun(4, ["run", "--json", rep, "--junit", junit, "-q"])
print(p.stdout[-3000:])
print(f"fabcheck run: exit {p.returncode}, {wall:.1f} s")
if p.returncode not in (0, 1):
    fail(f"exit {p.returncode}: {p.stderr[-2000:]}")
doc = load(rep)
run = doc["run"]
# Only the main thread calls MPI (the watchdog talks TCP): MPI_Init (MPI_THREAD_SINGLE), as IMB/OSU.
if run.get("mpi_thread_level") != "single":
    fail(f"run.mpi_thread_level {run.get('mpi_thread_level')}, want single")
# run.launcher: mpirun started these ranks (Open MPI's OMPI_COMM_WORLD_SIZE), no Slurm job around them.
la = run.get("launcher") or {}
if la.get("kind") != "mpirun" or not la.get("evidence", "").startswith("OMPI_COMM_WORLD_SIZE=4"):
    fail(f"run.launcher {la}, want kind mpirun by OMPI_COMM_WORLD_SIZE=4")
if la.get("mpi_implementation") != "Open MPI" or not la.get("mpi_version") or la.get("slurm_job_id") is not None:
    fail(f"run.launcher {la}: want Open MPI with its version and no Slurm job")
print(f"run.launcher {la}")
# DESIGN §3: the ranks keep freed memory in the heap (MPI's per-call temporaries of 32 MiB are not faulted in
# anew each call), and the report says so; FABCHECK_MALLOC_DEFAULTS=1 runs with glibc's defaults, as IMB/OSU.
if run.get("heap") != {"mmap_threshold_bytes": 1 << 30, "set_by": "fabcheck"}:
    fail(f"run.heap {run.get('heap')}, want mmap_threshold_bytes 1 GiB set by fabcheck")
rep_defaults = os.path.join(d, "defaults.json")
page, xml = os.path.join(d, "latency.html"), os.path.join(d, "latency.xml")
pd, _ = mpirun(2, ["latency", "--sizes", "8", "--iters", "10", "--json", rep_defaults, "--html", page, "--junit", xml],
               env={"FABCHECK_MALLOC_DEFAULTS": "1"}, timeout=60, extra_mpi=["-x", "FABCHECK_MALLOC_DEFAULTS"])
heap_defaults = load(rep_defaults)["run"].get("heap") if pd.returncode in (0, 1) else pd.stderr[-500:]
if heap_defaults != {"mmap_threshold_bytes": None, "set_by": "defaults"}:
    fail(f"FABCHECK_MALLOC_DEFAULTS=1: run.heap {heap_defaults}, want the defaults")
print(f"run.heap {run['heap']}; with FABCHECK_MALLOC_DEFAULTS=1 {heap_defaults}")
# A probe command writes the same outputs as run: the page, and JUnit whose one case is the exit code's rule.
cases = ET.parse(xml).getroot().findall(".//testcase") if os.path.exists(xml) else []
if not (os.path.exists(page) and "<html" in open(page).read(4096)) or [c.get("name") for c in cases] != [
        "findings.severity=fail#count == 0"] or (cases[0].find("failure") is None) != (pd.returncode == 0):
    fail(f"latency --html --junit: exit {pd.returncode}, page {os.path.exists(page)}, JUnit cases {cases}")
# `fabcheck report FILE` prints the first screen run printed (its last block), from the saved report.
screen = p.stdout[p.stdout.rfind("#\n# fabcheck run: "):]
again = fabcheck(["report", rep])
if again.returncode != 0 or not screen or again.stdout != screen:
    fail(f"report {rep}: exit {again.returncode}, first screen differs:\n{again.stdout}\n--- run printed:\n{screen}")
if run["status"] != "complete" or run["exit_code"] != p.returncode:
    fail(f"status {run['status']} exit_code {run['exit_code']} vs {p.returncode}")
for s in SECTIONS:
    e = run["sections"].get(s)
    if e is None:
        fail(f"section {s} absent from run.sections")
    if e["status"] not in ("ok", "skipped"):
        fail(f"section {s}: {e}")
    if e["status"] == "skipped" and not e.get("reason"):
        fail(f"section {s} skipped without a reason")
    if s not in doc:
        fail(f"report key {s} absent (must be null with the reason in run.sections)")
    if e["status"] == "ok" and doc[s] is None:
        fail(f"section {s} ok but empty")
    if "not reached" in (e.get("reason") or ""):
        fail(f"section {s} not reached in a complete run")
# On one host, pairs needs two hosts: skipped with the probe's reason, the section null.
pe = run["sections"]["pairs"]
if pe["status"] != "skipped" or "pairs needs two hosts" not in (pe.get("reason") or "") or doc["pairs"] is not None:
    fail(f"pairs on one host: want skipped with 'pairs needs two hosts', got {pe}")
if doc["topology"]["nranks"] != 4 or len(doc["topology"]["hosts"]) != 1:
    fail("topology")
# The verdict block: the verdict line heads it and the last line repeats it beside the report path; the
# whole default run fits on two screens without --verbose.
lines = p.stdout.splitlines()
word = "FAIL" if p.returncode == 1 else "PASS"
if not lines or not lines[-1].startswith(f"# fabcheck run: {word}") or not lines[-1].endswith(f"; report: {rep}"):
    fail(f"last line is not the verdict beside the report path: {lines[-1:] }")
heads = [l for l in lines if l.startswith(f"# fabcheck run: {word}") and " - " in l]
if len(heads) != 1:
    fail(f"want one verdict line heading the summary, got {heads}")
if len(lines) > 120:
    fail(f"the default run printed {len(lines)} lines, want <= 120 (details with --verbose)")
print(f"console: {len(lines)} lines")
# The gate ran with the embedded default's checks; its verdict drives the exit code.
g = doc["gate"]
if g["passed"] != (p.returncode == 0) and not any(f["severity"] == "fail" and f["code"] != "GATE_CHECK_FAILED"
                                                  for f in doc["findings"]):
    fail("gate verdict and exit code disagree")
tree = ET.parse(junit).getroot()
cases = tree.findall(".//testcase")
if len(cases) != len(g["checks"]) or len(tree.findall(".//failure")) != sum(not c["passed"] for c in g["checks"]):
    fail("junit does not match the gate section")
# Round trip: the report read back by `fabcheck gate` gives the same verdicts as the run.
q = fabcheck(["gate", rep])
print(q.stdout)
if q.returncode != (0 if g["passed"] else 1):
    fail(f"fabcheck gate exit {q.returncode}: {q.stderr}")
for c in g["checks"]:
    word = "PASS" if c["passed"] else "FAIL"
    if f"{word}  {c['metric']}" not in q.stdout:
        fail(f"offline gate disagrees on {c['metric']}")
# Criteria that must fail: fail-closed on a metric no section produced, exit 1, JUnit written.
crit = os.path.join(d, "crit.json")
with open(crit, "w") as f:
    f.write('{"gate": {"checks": [{"metric": "score.no_such_metric", "op": ">=", "threshold": 0},'
            ' {"metric": "run.status", "op": "==", "threshold": "complete"}]}}')
q = fabcheck(["gate", rep, "--criteria", crit, "--junit", os.path.join(d, "j2.xml")])
if q.returncode != 1 or "missing" not in q.stdout or "PASS  run.status" not in q.stdout:
    fail(f"fail-closed gate: exit {q.returncode}\n{q.stdout}")
# --dry-run measures nothing and writes nothing.
dry = os.path.join(d, "dry.json")
p2, _ = mpirun(2, ["run", "--dry-run", "--json", dry], timeout=60)
if p2.returncode != 0 or "time budget" not in p2.stdout or os.path.exists(dry):
    fail(f"dry run: {p2.returncode} {p2.stdout} {p2.stderr}")
# Bad config: exit 2, one line naming the JSON pointer, no report.
bad = os.path.join(d, "bad.json")
with open(bad, "w") as f:
    f.write('{"sweep": {"max_bytes": "64Q"}}')
out = os.path.join(d, "never.json")
p3, _ = mpirun(2, ["run", "--config", bad, "--json", out], timeout=60)
lines = [l for l in p3.stderr.splitlines() if l.startswith("fabcheck:")]
if p3.returncode != 2 or len(lines) != 1 or "/sweep/max_bytes" not in lines[0] or os.path.exists(out):
    fail(f"bad config: exit {p3.returncode}, stderr {p3.stderr!r}")
print("PASS")
