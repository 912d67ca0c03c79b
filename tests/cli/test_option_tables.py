"""One definition per option. For every probe command, read its option table and the flags the
subcommand really registered (`fabcheck --list-options`), and `fabcheck run --show-config` of a config that
enables every step with empty sections (no extends: the tables' defaults). Checks:
- every long flag of `fabcheck <probe>` is an option of the table (key = a long flag with '_') or is listed as
  CLI-only with a reason; every option's flags are registered on the command;
- every option is a key of the same step of `fabcheck run` (reachable) with the same default, and vice versa;
- `run --show-config` is a valid --config that gives the same effective config (embedded default and an
  acceptance config)."""
import json, os, subprocess, sys, tempfile

FAB = os.environ["FABCHECK"]
SRC = os.environ["FABCHECK_SOURCE_DIR"]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)


def fab(args):
    p = subprocess.run([FAB] + args, capture_output=True, text=True, timeout=120, env=ENV)
    if p.returncode != 0:
        print(f"FAIL: fabcheck {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
        sys.exit(1)
    return p.stdout


tables = json.loads(fab(["--list-options"]))
check(set(tables) == {"sweep", "latency", "incast", "pairs", "nics", "overlap", "step", "scaling", "inspect"}, f"commands {sorted(tables)}")

tmp = tempfile.mkdtemp(prefix="fabcheck-options-")
every_step = {t["step"]: {} for t in tables.values()}
cfg = os.path.join(tmp, "every-step.json")
with open(cfg, "w") as f:
    json.dump(every_step, f)
effective = json.loads(fab(["run", "--config", cfg, "--show-config"]))

for command, t in tables.items():
    step = t["step"]
    option_flags = set()
    for o in t["options"]:
        option_flags |= set(o["long_flags"]) | set(o["negating_flags"])
        check(o["key"] in [f.replace("-", "_") for f in o["long_flags"]],
              f"{command}: key {o['key']} is none of its long flags with '_' ({o['flags']})")
    cli_only = {c["flag"] for c in t["cli_only"]}
    registered = set(t["command_flags"]) - {"help"}
    for f in sorted(registered - option_flags - cli_only):
        check(False, f"fabcheck {command} --{f}: neither an option of the {step} table nor listed CLI-only")
    for f in sorted(option_flags - registered):
        check(False, f"fabcheck {command}: the table's --{f} is not registered on the command")
    for c in t["cli_only"]:
        check(c["flag"] in registered, f"fabcheck {command}: CLI-only --{c['flag']} is not a flag of the command")
        check(bool(c["why"]), f"fabcheck {command}: CLI-only --{c['flag']} without a reason")
    section = effective.get(step)
    check(isinstance(section, dict), f"run --show-config has no {step} section")
    if not isinstance(section, dict):
        continue
    keys = set(section) - {"enabled", "budget_s"}
    table_keys = {o["key"] for o in t["options"]}
    check(keys == table_keys, f"{step}: run keys {sorted(keys ^ table_keys)} differ from the table's")
    for o in t["options"]:
        check(section.get(o["key"]) == o["default"],
              f"{step}.{o['key']}: run default {section.get(o['key'])!r} != command default {o['default']!r}")
    n_opts = len(t["options"])
    print(f"{command}: {n_opts} options, {len(cli_only)} CLI-only flags, {len(registered)} registered long flags")

# run --show-config is itself a config giving the same effective config.
for source in [None, os.path.join(SRC, "configs/acceptance/vfabric.json"), os.path.join(SRC, "configs/acceptance/roce.json")]:
    first = fab(["run", "--show-config"] + (["--config", source] if source else []))
    again_path = os.path.join(tmp, "again.json")
    with open(again_path, "w") as f:
        f.write(first)
    second = fab(["run", "--config", again_path, "--show-config"])
    check(json.loads(first) == json.loads(second),
          f"--show-config of {source or 'the embedded default'} read back as --config differs")
    print(f"round trip of {source or 'embedded default'}: {'same' if first == second else 'DIFFERENT'}")

if failures:
    for m in failures:
        print("FAIL:", m)
    sys.exit(1)
print("PASS: option tables, run reachability and defaults, --show-config round trip")
