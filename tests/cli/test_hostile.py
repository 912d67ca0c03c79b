#!/usr/bin/env python3
"""Hostile input against every offline command and `run --dry-run`: nesting bombs, endless and
oversized input, non-finite numbers, device/FIFO/symlink targets, an output equal to an input or to another output.
Each must end in exit 2 with one fabcheck line on stderr, in under 10 s, with a 1 GiB address-space limit (no
crash, no runaway memory), and change nothing outside this test's own temp folder: the device node, FIFO and
symlink targets are private ones made here (mknod / mkfifo), checked unchanged afterwards. Env: FABCHECK."""
import json
import os
import resource
import stat
import subprocess
import sys
import tempfile
import time

FAB = os.environ["FABCHECK"]
tmp = tempfile.mkdtemp(prefix="fabcheck-hostile-")
failures = []
LIMIT_S = 10
AS_BYTES = 1 << 30  # 1 GiB address space: a parse that grows without bound dies instead of swapping


def check(cond, msg):
    print(("ok:   " if cond else "FAIL: ") + msg)
    if not cond:
        failures.append(msg)


def path(name):
    return os.path.join(tmp, name)


def write(name, text):
    with open(path(name), "w") as f:
        f.write(text)
    return path(name)


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (AS_BYTES, AS_BYTES))


env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_plm="isolated",
           OMPI_MCA_btl="self", OMPI_MCA_pml="ob1")


def expect2(name, args, must=None, limited=True):
    t0 = time.monotonic()
    try:
        p = subprocess.run([FAB] + args, capture_output=True, text=True, timeout=LIMIT_S + 20, env=env,
                           preexec_fn=limit if limited else None, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        check(False, f"{name}: still running after {LIMIT_S + 20} s")
        return
    dt = time.monotonic() - t0
    lines = [l for l in p.stderr.splitlines() if l.startswith("fabcheck")]
    ok = p.returncode == 2 and len(lines) == 1 and dt < LIMIT_S and (must is None or must in lines[0])
    check(ok, f"{name}: exit {p.returncode} (want 2) in {dt:.1f} s, stderr {lines or p.stderr[-300:]!r}"
              + (f", want '{must}'" if must else ""))


def report(extra=None):
    d = {"schema_version": 1, "tool": {"name": "fabcheck", "version": "test"}, "run": {"status": "complete"},
         "findings": []}
    d.update(extra or {})
    return d


good = write("good.json", json.dumps(report()))
crit = write("crit.json", json.dumps({"gate": {"checks": [{"metric": "findings.severity=fail#count", "op": "==",
                                                           "threshold": 0}]}}))
# 1. Nesting bombs: in run.config, in a finding's evidence, and in a config under a "_" comment key.
bomb = "[" * 100000 + "]" * 100000
deep_report = write("deep.json", json.dumps(report())[:-1] + ', "x": ' + bomb + "}")
deep_ev = write("deep_ev.json", '{"schema_version": 1, "tool": {"name": "fabcheck"}, "findings": [{"severity": '
                '"warn", "code": "X", "message": "m", "evidence": ' + bomb + '}]}')
deep_cfg = write("deep_cfg.json", '{"extends": "default", "_": ' + bomb + "}")
for name, rep in [("deep run.config", deep_report), ("deep evidence", deep_ev)]:
    expect2(f"report --html, {name}", ["report", rep, "--html", path("o.html")], "nested deeper than 64")
    expect2(f"gate, {name}", ["gate", rep, "--criteria", crit, "--junit", path("o.xml")], "nested deeper")
    expect2(f"compare, {name}", ["compare", rep, good], "nested deeper")
expect2("run --dry-run, deep config", ["run", "--config", deep_cfg, "--dry-run"], "nested deeper")
check(not os.path.exists(path("o.html")) and not os.path.exists(path("o.xml")), "nothing written for the bombs")

# 2. Endless and oversized input.
expect2("report /dev/zero", ["report", "/dev/zero", "--html", path("z.html")], "is a device")
expect2("import /dev/zero", ["import", "/dev/zero", "--json", path("z.json")], "is a device")
big = path("big.json")
with open(big, "w") as f:
    f.write('{"schema_version": 1, "tool": {"name": "fabcheck"}, "pad": "')
    f.truncate(1025 << 20)  # a sparse 1025 MiB file: over the 1 GiB report cap, refused before it is read
expect2("report of a 1025 MiB file", ["report", big, "--html", path("b.html")], "1024 MiB cap")
os.environ_backup = None
env_small = dict(env, FABCHECK_MAX_INPUT_MB="8")
t0 = time.monotonic()


def endless(args, env_):
    """fabcheck ARGS with a pipe that never ends as its standard input (`yes`; a device such as /dev/zero is
    refused before anything is read): the cap must stop the read."""
    src = subprocess.Popen(["yes"], stdout=subprocess.PIPE)
    try:
        return subprocess.run([FAB] + args, capture_output=True, text=True, timeout=60, env=env_,
                              preexec_fn=limit, stdin=src.stdout)
    finally:
        src.kill()
        src.wait()


p = endless(["inspect", "--nccl-log", "/dev/stdin"], env_small)
dt = time.monotonic() - t0
check(p.returncode == 2 and "8 MiB cap" in p.stderr and dt < LIMIT_S,
      f"inspect --nccl-log <endless pipe> (FABCHECK_MAX_INPUT_MB=8): exit {p.returncode} in {dt:.1f} s: "
      f"{p.stderr.strip()[-200:]!r}")
expect2("inspect --nccl-log /dev/zero", ["inspect", "--nccl-log", "/dev/zero"], "is a device")

# ... and --max-input-mb raises (or lowers) every cap from the command line, before or after the subcommand, and
# wins over the variable; out of range is one line naming the flag.
for args in (["--max-input-mb", "8", "inspect", "--nccl-log", "/dev/stdin"],
             ["inspect", "--nccl-log", "/dev/stdin", "--max-input-mb", "8"]):
    p = endless(args, dict(env, FABCHECK_MAX_INPUT_MB="64"))
    check(p.returncode == 2 and "8 MiB cap" in p.stderr and "--max-input-mb" in p.stderr,
          f"{' '.join(args)}: exit {p.returncode}: {p.stderr.strip()[-200:]!r}")
big65 = path("big65.json")
with open(big65, "w") as f:
    f.write('{"schema_version": 1, "tool": {"name": "fabcheck"}, "pad": "')
    f.truncate(65 << 20)  # a sparse 65 MiB file
p = subprocess.run([FAB, "report", big65, "--html", path("b2.html"), "--max-input-mb", "66"], capture_output=True,
                   text=True, timeout=60, env=env, preexec_fn=limit, stdin=subprocess.DEVNULL)
check(p.returncode == 2 and "MiB cap" not in p.stderr,
      f"report of a 65 MiB file with --max-input-mb 66 reads past a cap of 66: {p.stderr.strip()[-200:]!r}")
for bad in ["0", "abc", "-1", "99999999"]:
    expect2(f"--max-input-mb {bad}", ["report", good, "--html", path("c.html"), "--max-input-mb", bad],
            "--max-input-mb")

# 3. Numbers that are not finite doubles.
inf_rep = write("inf.json", '{"schema_version": 1, "tool": {"name": "fabcheck"}, "run": {"x": 1e309}}')
expect2("report with 1e309", ["report", inf_rep, "--html", path("i.html")], "number")
inf_cfg = write("inf_cfg.json", '{"extends": "default", "timeout_s": 1e309}')
expect2("run --dry-run, timeout_s 1e309", ["run", "--config", inf_cfg, "--dry-run"], "number")

for bad in ["nan", "inf", "-1"]:
    expect2(f"compare --alpha {bad}", ["compare", good, good, "--alpha", bad], "--alpha")
    expect2(f"compare --min-delta {bad}", ["compare", good, good, "--min-delta", bad], "--min-delta")
for bad in ["0", "nan", "inf", "1e12"]:
    expect2(f"run -T {bad}", ["run", "--dry-run", "-T", bad], "--timeout")

# 4. Targets that are not ours: a private character device (the same numbers as /dev/null), a FIFO, a symlink.
dev = path("null")
os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
fifo = path("fifo")
os.mkfifo(fifo)
victim = write("victim.txt", "keep me\n")
link = path("link.html")
os.symlink(victim, link)
expect2("report --html onto a device node", ["report", good, "--html", dev], "not a regular file")
expect2("report --html onto a FIFO", ["report", good, "--html", fifo], "not a regular file")
expect2("report --html onto a symlink", ["report", good, "--html", link], "symbolic link")
expect2("gate --junit onto a device node", ["gate", good, "--criteria", crit, "--junit", dev], "not a regular file")
check(stat.S_ISCHR(os.lstat(dev).st_mode), "the device node is still a device node")
check(stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO is still a FIFO")
check(os.path.islink(link) and open(victim).read() == "keep me\n", "the symlink and its target are unchanged")

# 5. An output equal to an input, or to another output (by inode: a second name of the same file too).
alias = path("alias.json")
os.link(good, alias)
before = open(good).read()
expect2("report --html = the report", ["report", good, "--html", good], "also the input")
expect2("gate --junit = the report (hard link)", ["gate", good, "--criteria", crit, "--junit", alias],
        "also the input")
expect2("compare --html = input B", ["compare", good, good, "--html", good], "also the input")
table = write("t.txt", "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n")
expect2("import --json = the input", ["import", table, "--json", table], "also the input")
expect2("gate --junit = --json", ["gate", good, "--criteria", crit, "--junit", path("same"), "--json",
                                  path("same")], "also the output")
wl = write("w.json", json.dumps({"default": "x", "profiles": []}))
wl_before = open(wl).read()
expect2("project --json = --workloads", ["project", "--busbw", "100", "--hosts", "2", "--workloads", wl, "--json", wl],
        "also the input")
check(open(wl).read() == wl_before, "the workloads file is unchanged")
expect2("gate --html = --criteria", ["gate", good, "--criteria", crit, "--html", crit], "also the input")
expect2("import --html = --json", ["import", table, "--json", path("i.json"), "--html", path("i.json")],
        "also the output")
check(open(good).read() == before, "the input report is unchanged")

# 5b. A field of the wrong type in a report read offline is bad input (exit 2, one line, nothing written), not a
# runtime failure (it was exit 3 with nlohmann's raw type_error text): a finding's severity that is a number.
for name, extra in [("severity a number", {"findings": [{"severity": 3, "code": "X", "message": "m"}]})]:
    bad = write("typed.json", json.dumps(report(extra)))
    expect2(f"gate: {name}", ["gate", bad, "--criteria", crit, "--junit", path("typed.xml")], "wrong type")
    expect2(f"report: {name}", ["report", bad, "--html", path("typed.html")], "wrong type")
    check(not os.path.exists(path("typed.xml")) and not os.path.exists(path("typed.html")),
          f"{name}: nothing written")

# 6. Found by a review: a FIFO input nobody writes to, a bad cap variable, one output spelled two ways, re-gating.
fifo_in = path("fifo_in")
os.mkfifo(fifo_in)
expect2("report of a FIFO with no writer", ["report", fifo_in, "--html", path("f.html")], "empty file")
for bad in ["0", "abc", "-5", "99999999999999999999", "8abc"]:
    t0 = time.monotonic()
    p = subprocess.run([FAB, "report", good, "--html", path("cap.html")], capture_output=True, text=True,
                       timeout=30, env=dict(env, FABCHECK_MAX_INPUT_MB=bad), stdin=subprocess.DEVNULL)
    check(p.returncode == 2 and "FABCHECK_MAX_INPUT_MB" in p.stderr and not os.path.exists(path("cap.html")),
          f"FABCHECK_MAX_INPUT_MB={bad!r}: exit {p.returncode}: {p.stderr.strip()[-160:]!r}")
p = subprocess.run([FAB, "gate", good, "--criteria", crit, "--junit", path("o1.xml"), "--json", "o1.xml"],
                   capture_output=True, text=True, timeout=30, env=env, cwd=tmp, stdin=subprocess.DEVNULL)
check(p.returncode == 2 and "also the output" in p.stderr and not os.path.exists(path("o1.xml")),
      f"gate --junit /abs/o1.xml --json o1.xml (cwd the same folder): exit {p.returncode}: {p.stderr.strip()!r}")
crit2 = write("crit2.json", json.dumps({"gate": {"checks": [
    {"metric": "findings.severity=fail#count", "op": "==", "threshold": 0},
    {"metric": "run.status", "op": "==", "threshold": "nope"}]}}))
r1 = subprocess.run([FAB, "gate", good, "--criteria", crit2, "--json", path("g1.json")], capture_output=True,
                    text=True, timeout=30, env=env)
r2 = subprocess.run([FAB, "gate", path("g1.json"), "--criteria", crit2, "--json", path("g2.json")],
                    capture_output=True, text=True, timeout=30, env=env)
f1 = json.load(open(path("g1.json")))["findings"]
f2 = json.load(open(path("g2.json")))["findings"]
check(r1.returncode == r2.returncode == 1 and f1 == f2,
      f"re-gating a gated report: exit {r1.returncode} then {r2.returncode}, findings {len(f1)} then {len(f2)} "
      f"({[f['message'][:40] for f in f2]})")

# 7. A 100k-character value is not echoed whole: the one error line stays short and says how long it was.
for name, args in [("sweep --op <100k chars>", ["sweep", "--op", "x" * 100000]),
                   ("report <100k-char path>", ["report", "/" + "a" * 100000, "--html", path("long.html")])]:
    p = subprocess.run([FAB] + args, capture_output=True, text=True, timeout=30, env=env, stdin=subprocess.DEVNULL)
    lines = [l for l in p.stderr.splitlines() if l.startswith("fabcheck")]
    check(p.returncode == 2 and len(lines) == 1 and len(lines[0]) < 2100 and "characters)" in lines[0],
          f"{name}: exit {p.returncode}, {len(lines)} line(s) of {[len(l) for l in lines]} characters")

# the writer's temporary files are ".<name>.XXXXXX" beside the target (mkostemp)
leftovers = [n for n in os.listdir(tmp) if n.startswith(".")]
check(not leftovers, f"no temporary file left behind: {leftovers}")
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
