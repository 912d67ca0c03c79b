#!/usr/bin/env python3
"""`fabcheck compare` of a fabcheck `latency` run on 2 local ranks against the import of an osu_latency
run on 2 local ranks of this kind of machine (tests/data/peers/local/osu74_latency.txt, OSU 7.4 built from source)
lines up the sizes: every size of the OSU file is one compared row with both values, keyed as fabcheck latency
keys its own rows (kind p2p, pattern ring, size_bytes); nothing of the OSU latency is left unmatched."""
import os, sys

sys.path.insert(0, os.path.dirname(__file__))
from run_common import *

DATA = os.environ["FABCHECK_TEST_DATA"]
osu_file = os.path.join(DATA, "peers", "local", "osu74_latency.txt")
d = tmpdir()
osu_json, lat_json, cmp_json = (os.path.join(d, n) for n in ("osu.json", "lat.json", "cmp.json"))

p = subprocess.run([FAB, "import", osu_file, "--json", osu_json, "-q"], capture_output=True, text=True)
if p.returncode != 0:
    fail(f"import exit {p.returncode}: {p.stderr}")
osu_sizes = sorted({row["size_bytes"] for row in load(osu_json)["latency"]})
if len(osu_sizes) != 17:
    fail(f"the OSU file's sizes: {osu_sizes}, want the 17 sizes 1 B - 64 KiB")
p, wall = mpirun(2, ["latency", "--sizes", ",".join(map(str, osu_sizes)), "--iters", "200", "--json", lat_json],
                 timeout=120)
if p.returncode not in (0, 1):
    fail(f"fabcheck latency exit {p.returncode}: {p.stderr[-1000:]}")
p = subprocess.run([FAB, "compare", lat_json, osu_json, "--label", "fabcheck", "--label", "osu_latency", "--json",
                    cmp_json], capture_output=True, text=True)
if p.returncode not in (0, 1):
    fail(f"compare exit {p.returncode}: {p.stderr}")
c = load(cmp_json)["compare"]
rows = {m["key"]["size_bytes"]: m for m in c["metrics"]
        if m["metric"] == "mean_us" and m["key"].get("kind") == "p2p" and m["key"].get("pattern") == "ring"}
missing = [s for s in osu_sizes if s not in rows]
if missing:
    fail(f"sizes of the OSU run not lined up with fabcheck's: {missing}")
for s in osu_sizes:
    m = rows[s]
    if not (isinstance(m.get("a"), (int, float)) and isinstance(m.get("b"), (int, float))):
        fail(f"size {s}: row without both values: {m}")
left = [o for o in c["only_in_b"] if "mean_us" in str(o)]
if left:
    fail(f"OSU latency rows left unmatched: {left[:3]}")
print(f"{len(osu_sizes)} sizes lined up (fabcheck latency {wall:.1f} s); 8 B mean: fabcheck {rows[8]['a']:.3f} us, "
      f"osu_latency {rows[8]['b']:.3f} us")
