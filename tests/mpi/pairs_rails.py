#!/usr/bin/env python3
"""`fabcheck pairs --all-ranks --bidir` on local ranks given distinct host names (fake_hosts.sh):
  2 hosts x 2 ranks, --all-ranks --bidir: one matrix set per local rank ("rails"), rail r measured by local rank r
  of every host, bidir matrices present, symmetric and positive (their bound is checked by the fabric test), topology section names the hosts and ranks;
  3 + 2 ranks (uneven), --all-ranks: as many rails as the smallest host has ranks, local rank 2 of the first host
  idle;
  2 hosts x 2 ranks, neither flag: one matrix set measured by the host leaders (local rank 0), bidir null."""
import os, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
from run_common import fail, fake_hosts_run, load

# Small and quick: this checks shapes and the rank mapping, not the figures (shared memory, 2 cores).
SMALL = ["--size", "1M", "--window", "16", "--iters", "3", "--warmup", "1", "--budget-ms", "50",
         "--lat-iters", "50", "--lat-warmup", "5", "--no-retest"]
d = tempfile.mkdtemp(prefix="fabcheck-pairs-rails-")


def pairs(tag, sizes, flags):
    rep = os.path.join(d, tag + ".json")
    print(f"{tag}: flags {flags}")
    p = fake_hosts_run(tag, sizes, ["pairs"] + SMALL + flags + ["--json", rep])
    if p.returncode != 0:
        fail(f"{tag}: exit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return load(rep), p.stdout


def check_matrix(tag, m, n, symmetric):
    if m is None or len(m) != n or any(len(row) != n for row in m):
        fail(f"{tag}: not a {n}x{n} matrix: {m}")
    for i in range(n):
        for j in range(n):
            v = m[i][j]
            if (v is None) != (i == j):
                fail(f"{tag}: cell [{i}][{j}] = {v}")
            if i != j and not v > 0:
                fail(f"{tag}: cell [{i}][{j}] = {v} not positive")
            if symmetric and i != j and m[i][j] != m[j][i]:
                fail(f"{tag}: not symmetric at [{i}][{j}]")


def check_rail(tag, rail, n, want_ranks, bidir):
    if rail["ranks"] != want_ranks:
        fail(f"{tag}: measured by ranks {rail['ranks']}, want {want_ranks}")
    check_matrix(tag + " bw_gbps", rail["bw_gbps"], n, False)
    check_matrix(tag + " lat_p50_us", rail["lat_p50_us"], n, True)
    check_matrix(tag + " lat_p99_us", rail["lat_p99_us"], n, True)
    if rail["lat_samples"] != 50:
        fail(f"{tag}: lat_samples {rail['lat_samples']}")
    if not bidir:
        if rail["bidir_gbps"] is not None:
            fail(f"{tag}: bidir_gbps without --bidir")
        return
    b = rail["bidir_gbps"]
    check_matrix(tag + " bidir_gbps", b, n, True)
    # No bound against the one-way figures here: between local ranks over shared memory the one-way loop waits
    # for an acknowledgement per window and both directions are separate copies, so bidir can exceed their
    # sum. The fabric test checks bidir on a real link (a throttled direction bounds it).
    print(f"  {tag}: one-way {rail['bw_gbps'][0][1]:.3f} / {rail['bw_gbps'][1][0]:.3f} GB/s, "
          f"bidir {b[0][1]:.3f} GB/s")


# 2 hosts x 2 ranks, --all-ranks --bidir.
doc, out = pairs("rails", "2,2", ["--all-ranks", "--bidir"])
p = doc["pairs"]
if p["hosts"] != ["fh0", "fh1"]:
    fail(f"hosts {p['hosts']}")
if len(p.get("rails", [])) != 2 or [r["local_rank"] for r in p["rails"]] != [0, 1]:
    fail(f"rails: want local ranks [0, 1], got {[r.get('local_rank') for r in p.get('rails', [])]}")
check_rail("rails[0]", p["rails"][0], 2, [0, 2], True)
check_rail("rails[1]", p["rails"][1], 2, [1, 3], True)
for k in ("bw_gbps", "bidir_gbps", "lat_p50_us", "ranks"):
    if p[k] != p["rails"][0][k]:
        fail(f"top-level {k} is not local rank 0's")
if len(p["schedule"]) != 1 or sorted(p["schedule"][0][0]) != ["fh0", "fh1"]:
    fail(f"schedule {p['schedule']}")
topo = doc["topology"]
if topo["nranks"] != 4 or topo["hosts"] != [{"host": "fh0", "ranks": [0, 1]}, {"host": "fh1", "ranks": [2, 3]}]:
    fail(f"topology {topo}")
if doc["run"]["sections"]["pairs"]["status"] != "ok":
    fail(f"run.sections.pairs {doc['run']['sections']['pairs']}")
if "# local rank 1" not in out or "bidirectional GB/s" not in out:
    fail("console: no per-local-rank matrices or no bidirectional matrix\n" + out)

# Uneven: 3 + 2 ranks, --all-ranks -> 2 rails; rank 2 (local rank 2 of fh0) has no partner and idles.
doc, _ = pairs("uneven", "3,2", ["--all-ranks"])
p = doc["pairs"]
if [r["ranks"] for r in p.get("rails", [])] != [[0, 3], [1, 4]]:
    fail(f"uneven: rails measured by {[r['ranks'] for r in p.get('rails', [])]}, want [[0, 3], [1, 4]]")
for r in p["rails"]:
    check_rail(f"uneven rails[{r['local_rank']}]", r, 2, r["ranks"], False)

# Neither flag: the host leaders only, one matrix set, no rails, no bidir.
doc, _ = pairs("leaders", "2,2", [])
p = doc["pairs"]
if "rails" in p:
    fail("leaders: rails without --all-ranks")
check_rail("leaders", p, 2, [0, 2], False)
print("PASS pairs rails and bidir")
