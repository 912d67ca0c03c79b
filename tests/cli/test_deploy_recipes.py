"""The shipped deployment recipes do what they say, checked where they cannot run.
- every shipped config states its sweep backend, and `run --dry-run` shows it;
- deploy/Containerfile's documented tag is the image the MPIJob names (tests/image builds and runs the image);
- configs/k8s-mpijob.yaml: the fabcheck command line it runs is accepted by this fabcheck (`run ... --dry-run` with
  the paths mapped to the repository).
deploy/fabcheck.sbatch runs for real under Slurm (tests/fabric/test_slurm.sh); tests/cli/test_k8s_mpijob_schema.py
validates the MPIJob against the operator's CRD schema."""
import json, os, re, subprocess, sys, tempfile

FAB = os.environ["FABCHECK"]
SRC = os.environ["FABCHECK_SOURCE_DIR"]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_plm="isolated",
           OMPI_MCA_btl="self", OMPI_MCA_pml="ob1")
failures = []


def check(cond, msg):
    print(("ok:   " if cond else "FAIL: ") + msg)
    if not cond:
        failures.append(msg)


def dry_run(args, what):
    """`fabcheck run ARGS --dry-run` with output paths sent to a temp folder: the flags and config are accepted."""
    tmp = tempfile.mkdtemp()
    out, skip = [], False
    for i, a in enumerate(args):
        if skip:
            skip = False
            continue
        if a in ("--json", "--junit", "--exclude-hostfile", "--html"):
            out += [a, os.path.join(tmp, os.path.basename(args[i + 1]) or "out")]
            skip = True
        else:
            out.append(a)
    p = subprocess.run([FAB, "run"] + out + ["--dry-run"], capture_output=True, text=True, env=ENV, timeout=60,
                       stdin=subprocess.DEVNULL)
    check(p.returncode == 0 and "fabcheck run plan" in p.stdout,
          f"{what}: fabcheck run {' '.join(out)} --dry-run -> exit {p.returncode} {p.stderr.strip()[-200:]!r}")
    return p.stdout


# 1. Every shipped config states its backend; the dry run shows it.
configs = [os.path.join(SRC, "configs", "default.json")] + sorted(
    os.path.join(SRC, "configs", "acceptance", f) for f in os.listdir(os.path.join(SRC, "configs", "acceptance")))
for path in configs:
    cfg = json.load(open(path))
    backend = cfg.get("sweep", {}).get("backend")
    rel = os.path.relpath(path, SRC)
    check(backend in ("mpi", "nccl"), f"{rel}: sweep.backend is stated ({backend!r})")
    text = " ".join(cfg.get("_comment", [])).lower()
    if "nccl backend" in text or "gpu buffers" in text:
        check(backend == "nccl", f"{rel}: its comment speaks of the NCCL backend and sweep.backend is {backend!r}")
    plan = dry_run(["--config", path], rel)
    sweep_line = [l for l in plan.splitlines() if re.match(r"\s*\d+\. sweep ", l)]
    check(bool(sweep_line) and f"backend={backend}" in sweep_line[0],
          f"{rel}: the dry run's sweep line shows backend={backend}: {sweep_line[:1]}")

# 2. The image the MPIJob names is the one deploy/Containerfile documents (tests/image builds and runs it).
recipe = open(os.path.join(SRC, "deploy", "Containerfile")).read()
tag = re.search(r"podman build -f deploy/Containerfile -t (\S+) \.", recipe)
yaml = open(os.path.join(SRC, "configs", "k8s-mpijob.yaml")).read()
images = set(re.findall(r"image:\s*(\S+)", yaml))
check(tag is not None and images == {tag.group(1)}, f"the MPIJob's images {images} = the Containerfile's tag "
      f"{tag.group(1) if tag else None}")

# 3. The MPIJob's command line (the launcher's args list, from "fabcheck" on).
launcher = re.split(r"^\s+Worker:", yaml, flags=re.M)[0]
args = [a.strip().strip('"') for a in re.findall(r"^\s*-\s+(\"[^\"]*\"|\S+)\s*$", launcher.split("args:")[1],
                                                   re.M)]
fab_args = args[args.index("fabcheck") + 2:] if "fabcheck" in args else []
check("fabcheck" in args and args[args.index("fabcheck") + 1] == "run", f"the MPIJob runs fabcheck run: {args}")
fab_args = [a.replace("/opt/fabcheck/configs", os.path.join(SRC, "configs")) for a in fab_args]
dry_run(fab_args, "configs/k8s-mpijob.yaml")

print("PASS" if not failures else f"FAIL: {len(failures)} problem(s)")
sys.exit(1 if failures else 0)
