#!/usr/bin/env python3
"""Secret-looking values of recorded variables appear in no output file: `fabcheck run` on 2 local ranks
with NCCL_*/UCX_*/OMPI_MCA_* values that are tokens, with --json, --html, --junit and --exclude-hostfile; every file
is searched for each secret, and the JSON must name the variables with the value "<redacted>"."""
import json, os, subprocess, sys, tempfile

FAB = os.environ["FABCHECK"]
MPI = [os.environ.get("MPIEXEC", "mpirun")] + os.environ.get("MPI_FLAGS", "").split()
tmp = tempfile.mkdtemp()
secrets = {
    "NCCL_IB_HCA": "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "NCCL_SECRET_TOKEN": "s3cr3t-value-41",
    "UCX_PASSWORD": "hunter2-value-42",
    "OMPI_MCA_some_token": "Bearer eyJhbGciOiJIUzI1NiJ9.e30.value43",
}
env = dict(os.environ, **secrets)
cfg = os.path.join(tmp, "cfg.json")
with open(cfg, "w") as f:  # the inventory and a tiny sweep: the env is recorded by inspect and the sweep
    json.dump({"extends": "default", "latency": {"enabled": False}, "incast": {"enabled": False},
               "pairs": {"enabled": False}, "scaling": {"enabled": False},
               "sweep": {"max_bytes": "1K", "collectives": ["allreduce"], "per_iter_iters": 2}}, f)
out = {k: os.path.join(tmp, "out." + k) for k in ("json", "html", "xml", "hosts")}
cmd = MPI + ["-np", "2", "-x", "NCCL_IB_HCA", "-x", "NCCL_SECRET_TOKEN", "-x", "UCX_PASSWORD",
             "-x", "OMPI_MCA_some_token", FAB, "run", "--config", cfg, "-q", "--json", out["json"],
             "--html", out["html"], "--junit", out["xml"], "--exclude-hostfile", out["hosts"]]
p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
print(p.stdout[-1500:], p.stderr[-1500:])
if p.returncode not in (0, 1):
    print(f"FAIL: fabcheck run exit {p.returncode}")
    sys.exit(1)
bad = []
for kind, path in out.items():
    text = open(path, errors="replace").read()
    for name, value in secrets.items():
        for piece in (value, value[8:24]):
            if piece in text:
                bad.append(f"{kind}: {name}'s value ({piece[:6]}...)")
for name, value in secrets.items():
    if value in p.stdout or value in p.stderr:
        bad.append(f"console: {name}'s value")
doc = json.load(open(out["json"]))
recorded = json.dumps(doc["transport"].get("env", {})) + json.dumps(doc.get("inventory", {}))
for name in secrets:
    if f'"{name}": "<redacted>"' not in recorded:
        bad.append(f"the report does not name {name} as <redacted>")
# ... and lists the redacted names beside each recorded environment (the transport's and every host's).
lists = [doc["transport"].get("env_redacted")] + [h.get("env_redacted") for h in doc["inventory"]["hosts"]]
for got in lists:
    if got != sorted(secrets):
        bad.append(f"env_redacted {got}, want {sorted(secrets)}")
for b in bad:
    print("FAIL:", b)
print("secrets in no output file" if not bad else f"{len(bad)} leak(s)")
sys.exit(1 if bad else 0)
