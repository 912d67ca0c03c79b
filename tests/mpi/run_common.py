"""Helpers shared by the `fabcheck run` MPI tests (tests/mpi/run_*.py)."""
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


def fabcheck(args, timeout=60):
    return subprocess.run([FAB] + args, capture_output=True, text=True, timeout=timeout)


def tmpdir():
    return tempfile.mkdtemp(prefix="fabcheck-run-")


def load(path):
    with open(path) as f:
        return json.load(f)


def no_fabcheck_left(marker):
    """True when no process whose command line contains `marker` (a unique path) is left."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cl = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cl:
            return False
    return True
