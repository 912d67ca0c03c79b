"""Helpers shared by the MPI tests (tests/mpi/*.py): launching fabcheck, reading reports, checking bad input."""
import json, os, subprocess, sys, tempfile, time

FAB = os.environ["FABCHECK"]
MPI = [os.environ.get("MPIEXEC", "mpirun")] + os.environ.get("MPI_FLAGS", "").split()
SECTIONS = ["inventory", "sweeps", "latency", "incast", "pairs", "scaling", "gate"]


def fail(msg):
    print("FAIL:", msg, flush=True)
    sys.exit(1)


def mpirun(np, args, env=None, timeout=280, extra_mpi=()):
    cmd = MPI + list(extra_mpi) + ["-np", str(np), FAB] + args
    e = dict(os.environ)
    if env:
        e.update(env)
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=e)
    return p, time.time() - t0


def watchdog_run(name, fault, timeout_s, max_wall_s):
    """`fabcheck run --timeout T` on 4 ranks with FABCHECK_TEST_FAULT=fault: exit 3 within max_wall_s, or fail.
    Returns (the completed process, the report path, the report)."""
    rep = os.path.join(tmpdir(), f"{name}.json")
    p, wall = mpirun(4, ["run", "--json", rep, "--timeout", str(timeout_s), "-q"],
                     env={"FABCHECK_TEST_FAULT": fault}, timeout=90, extra_mpi=["-x", "FABCHECK_TEST_FAULT"])
    print(p.stdout[-2000:])
    print(p.stderr[-2000:])
    print(f"exit {p.returncode} after {wall:.1f} s")
    if p.returncode != 3:
        fail(f"exit {p.returncode}, want 3")
    if wall >= max_wall_s:
        fail(f"took {wall:.1f} s, want < {max_wall_s} s")
    return p, rep, load(rep)


def fake_hosts_run(tag, sizes, args, timeout=120):
    """`fabcheck ARGS` on local ranks given distinct host names by fake_hosts.sh (SIZES: ranks per host, "2,2").
    Prints the exit code and wall time; exits 77 (skipped) when the names cannot be made. Returns the process."""
    np = sum(int(x) for x in sizes.split(","))
    fake = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_hosts.sh")
    t0 = time.time()
    p = subprocess.run(MPI + ["-np", str(np), fake, sizes, FAB] + args, capture_output=True, text=True,
                       timeout=timeout)
    print(f"{tag}: {np} ranks as hosts {sizes}: exit {p.returncode}, {time.time() - t0:.1f} s")
    if p.returncode == 77 or "skipped: unshare" in p.stderr:
        print("skipped: distinct host names need unshare --uts (root)")
        sys.exit(77)
    return p


def run(np, args, timeout=120):
    """`mpirun -np NP fabcheck ARGS`: the completed process."""
    return mpirun(np, args, timeout=timeout)[0]


def run_cmd(cmd, timeout=90):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def check_exit(p, what, codes=(0,)):
    """Fails the test when the completed process P exited with a code outside CODES."""
    if p.returncode not in codes:
        fail(f"{what}: exit {p.returncode}: {p.stderr[-2000:]}")


def run_json(np, args, out, what="fabcheck", codes=(0,), timeout=120):
    """`fabcheck ARGS --json OUT` on NP ranks, its console printed; fails the test on an exit code outside CODES.
    Returns (the completed process, the report)."""
    p = run(np, args + ["--json", out], timeout=timeout)
    print(p.stdout)
    check_exit(p, what, codes)
    return p, load(out)


def section_ok(doc, section):
    """Fails the test unless the report's run.sections.<section> says ok."""
    status = doc["run"]["sections"][section]["status"]
    if status != "ok":
        fail(f"section {section}: status {status}")


def expect_one_rank_refused(cmd):
    """`fabcheck CMD` on one rank exits 2 saying it needs at least 2 ranks, or the test fails."""
    r = run(1, [cmd])
    if r.returncode != 2 or "at least 2 ranks" not in r.stderr:
        fail(f"one rank: rc={r.returncode} {r.stderr!r}")


def expect_usage_error(np, args, word, bad_path, prefix="fabcheck"):
    """`fabcheck ARGS --json BAD_PATH` on NP ranks exits 2 with exactly one stderr line starting with PREFIX, that
    line naming WORD, and writes no report, or the test fails."""
    r = run(np, args + ["--json", bad_path])
    lines = [l for l in r.stderr.splitlines() if l.startswith(prefix)]
    if r.returncode != 2 or len(lines) != 1 or word not in lines[0] or os.path.exists(bad_path):
        fail(f"bad input {args}: rc={r.returncode} stderr={r.stderr!r}")


def dry_runs():
    """`fabcheck run --dry-run` with the embedded default config and with configs/extended.json."""
    ext = os.path.join(os.environ["FABCHECK_SOURCE_DIR"], "configs", "extended.json")
    return fabcheck(["run", "--dry-run"]), fabcheck(["run", "--dry-run", "--config", ext])


def fabcheck(args, timeout=60):
    return subprocess.run([FAB] + args, capture_output=True, text=True, timeout=timeout)


def tmpdir():
    return tempfile.mkdtemp(prefix="fabcheck-run-")


def load(path):
    with open(path) as f:
        return json.load(f)


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)


def processes():
    """(pid, command line, environment) of every process in /proc, NUL-separated as there (an unreadable
    environment is empty)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cl = f.read()
        except OSError:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read()
        except OSError:
            env = b""
        yield int(pid), cl, env


def no_fabcheck_left(marker):
    """True when no process whose command line contains `marker` (a unique path) is left."""
    return not any(marker.encode() in cl for _, cl, _ in processes())
