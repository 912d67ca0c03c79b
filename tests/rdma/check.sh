#!/usr/bin/env bash
# tests/rdma/check.sh — the RDMA verbs path of `fabcheck nics` on hosts with RDMA devices. Not part of
# ci/test: it cannot run on the development machine (no RDMA device, a kernel without InfiniBand), where it
# exits 77 before building anything.
#
# Usage: tests/rdma/check.sh [HOSTFILE]
#   with HOSTFILE (Open MPI syntax, ≥ 2 hosts, fabcheck at the same path on each): one rank per host;
#   without: two fake hosts on this machine (tests/mpi/fake_hosts.sh: root, unshare --uts), so the queue pairs
#   loop back through this host's own ports.
# Builds fabcheck with libibverbs ON into ${BUILD_DIR:-build-rdma}, runs `fabcheck nics --verbs on`, prints the
# console and one line per port pair, and asserts: nothing skipped; every host lists its active ports with a GID
# index and where it came from; every directed port pair of every host pair was tried (2 · Σ ports_a · ports_b);
# a reachable pair has bw_gbps > 0, lat_p50_us > 0, p99 ≥ p50 and a path MTU that is the smaller active MTU.
# Exit: 0 passed, 1 a check failed, 77 no RDMA device here (nothing run).
set -euo pipefail
cd "$(dirname "$0")/../.."

hostfile=${1:-}
devices=()
if [ -d /sys/class/infiniband ]; then
  mapfile -t devices < <(ls /sys/class/infiniband 2>/dev/null)
fi
if [ "${#devices[@]}" -eq 0 ]; then
  echo "skipped: no RDMA device here (/sys/class/infiniband is empty or missing)"
  exit 77
fi
echo "== RDMA devices here: ${devices[*]}"
for d in "${devices[@]}"; do
  for p in /sys/class/infiniband/"$d"/ports/*; do
    echo "   $d port ${p##*/}: $(cat "$p/state") $(cat "$p/link_layer")"
  done
done

BUILD_DIR=${BUILD_DIR:-build-rdma}
echo "== build (libibverbs ON) into $BUILD_DIR"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DFABCHECK_WITH_IBVERBS=ON -DFABCHECK_BUILD_TESTS=OFF \
  -DFABCHECK_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target fabcheck >/dev/null
FAB=$PWD/$BUILD_DIR/apps/fabcheck/fabcheck
"$FAB" --version

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d /tmp/fabcheck-rdma.XXXXXX)
trap 'rm -rf "$out"' EXIT
if [ -n "$hostfile" ]; then
  nhosts=$(grep -cv '^[[:space:]]*\(#\|$\)' "$hostfile")
  launch=(mpirun -np "$nhosts" --hostfile "$hostfile" --map-by node "$FAB")
else
  launch=(mpirun -np 2 --oversubscribe "$PWD/tests/mpi/fake_hosts.sh" "1,1" "$FAB")
fi
echo "== ${launch[*]} nics --verbs on"
"${launch[@]}" nics --verbs on --budget-ms 50 --json "$out/nics.json" | tee "$out/nics.out"

python3 - "$out/nics.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["nics"]["verbs"]
bad = []
if v.get("skipped"):
    bad.append(f"skipped: {v['skipped']}")
hosts, links = v.get("hosts", []), v.get("links", [])
for h in hosts:
    if h["skipped"] or not h["ports"]:
        bad.append(f"{h['host']}: no port ({h['skipped']})")
    for p in h["ports"]:
        print(f"{h['host']} {p['device']}/{p['port']} {p['link_layer']} netdev={p['netdev'] or '-'} "
              f"gid_index={p['gid_index']} ({p['gid_index_source']}) gid={p['gid']} lid={p['lid']} "
              f"mtu={p['active_mtu_bytes']}")
        if p["link_layer"] == "Ethernet" and p["gid_index_source"] not in ("nccl_auto", "NCCL_IB_GID_INDEX"):
            bad.append(f"{h['host']} {p['device']}: RoCE GID source {p['gid_index_source']}")
want = sum(2 * len(a["ports"]) * len(b["ports"]) for i, a in enumerate(hosts) for b in hosts[i + 1:])
if len(links) != want:
    bad.append(f"{len(links)} directed port pairs, want {want}")
mtu = {(h["host"], p["device"], p["port"]): p["active_mtu_bytes"] for h in hosts for p in h["ports"]}
for l in links:
    f, t = l["from"], l["to"]
    name = f"{f['host']} {f['device']}/{f['port']} -> {t['host']} {t['device']}/{t['port']}"
    print(f"{name}: reachable={l['reachable']} bw_gbps={l['bw_gbps']} lat_p50_us={l['lat_p50_us']} "
          f"lat_p99_us={l['lat_p99_us']} path_mtu={l['path_mtu_bytes']} error={l['error']}")
    if not l["reachable"]:
        continue
    if not (l["bw_gbps"] or 0) > 0: bad.append(f"{name}: bw {l['bw_gbps']}")
    if not (l["lat_p50_us"] or 0) > 0: bad.append(f"{name}: latency {l['lat_p50_us']}")
    elif not l["lat_p99_us"] >= l["lat_p50_us"]: bad.append(f"{name}: p99 < p50")
    m = min(mtu[(f["host"], f["device"], f["port"])], mtu[(t["host"], t["device"], t["port"])])
    if l["path_mtu_bytes"] != m: bad.append(f"{name}: path MTU {l['path_mtu_bytes']}, want {m}")
if not any(l["reachable"] for l in links):
    bad.append("no port pair reachable")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
echo "== passed"
