#!/usr/bin/env bash
# `fabcheck run --backend nccl` (config tests/data/standin/run_nccl.json: inspect, a short sweep, the gate) on the 4-host virtual fabric over the CUDA/NCCL stand-ins (tests/standin): the
# NCCL path end to end across hosts — the stand-in's NCCL talks TCP over the fabric and writes NCCL's INFO lines;
# fabcheck captures them per rank and its transport verdict comes from that log: network Socket, inter_node yes
# (4 nodes), every host's log read. Then a sweep with one rank's result corrupted from its 3rd NCCL operation on
# must end with WRONG_DATA naming that rank's host (exit 1).
source "$(dirname "$(dirname "$0")")/fabric/lib.sh"
fab_init fstandin 200
[ -x "${FABCHECK:-}" ] || fail "FABCHECK is not set to the fabcheck binary"
[ -d "${STANDIN_LIB:-}" ] || fail "STANDIN_LIB is not set to the stand-in libraries' folder"

"$VF" up --hosts 4 "${VFN[@]}"
mapfile -t H < <("$VF" hosts "${VFN[@]}")
t0=$SECONDS
rc=0
timeout 150 "$VF" mpirun "${VFN[@]}" -- -x LD_LIBRARY_PATH="$STANDIN_LIB" -x TMPDIR="$FAB_TMP" \
  "$FABCHECK" run --backend nccl --config "$FABCHECK_TEST_DATA/standin/run_nccl.json" --json "$FAB_TMP/run.json" >"$FAB_TMP/run.out" 2>"$FAB_TMP/run.err" || rc=$?
note "run --backend nccl took $((SECONDS - t0)) s, exit $rc"
grep -A12 '^# Transport' "$FAB_TMP/run.out" >&2 || true
[ "$rc" = 0 ] || [ "$rc" = 1 ] || { tail -20 "$FAB_TMP/run.out" "$FAB_TMP/run.err" >&2; fail "run exited $rc"; }
"$PY" - "$FAB_TMP/run.json" "$rc" "${H[@]}" <<'PYEOF' || fail "report"
import json, sys
d = json.load(open(sys.argv[1])); rc = int(sys.argv[2]); hosts = sorted(sys.argv[3:])
topo = d["topology"]
assert topo["backend"] == "nccl" and topo["nranks"] == 4, topo
assert sorted(h["host"] for h in topo["hosts"]) == hosts, topo["hosts"]
t = d["transport"]
print("transport:", json.dumps({k: t.get(k) for k in ("verdict", "network", "inter_node", "source", "health")}))
assert t["network"] == "socket", t["network"]
assert t["inter_node"] is True, t["inter_node"]
assert t["network_source"] == "nccl_log" and t["inter_node_basis"] == "nNodes 4", (t["network_source"], t["inter_node_basis"])
assert len(t["logs"]) == 4 and all(l["nccl_lines"] > 0 and l["unparsed_lines"] == 0 for l in t["logs"]), t["logs"]
per_host = {h["host"]: h for h in t["per_host"]}
assert sorted(per_host) == hosts, sorted(per_host)
for h in per_host.values():  # each host's own log: Socket between hosts, its ring connections over NET
    assert h["network"] == "socket" and h["network_source"] == "nccl_log" and h["connections"].get("net", 0) > 0, h
assert sorted(b["collective"] for b in d["sweeps"]) == ["allgather", "allreduce", "reducescatter"], d["sweeps"]
assert all(p["wrong"] == 0 for b in d["sweeps"] for p in b["points"]), "a point with #wrong != 0"
fails = [f for f in d["findings"] if f["severity"] == "fail"]
# exit 1 only when a fail finding says why: on the stand-in, a socket network between hosts without RDMA
# hardware is no fallback (no device), so the clean fabric must pass
assert rc == (1 if fails else 0), (rc, fails)
assert not fails, fails
PYEOF
t0=$SECONDS
rc=0
timeout 60 "$VF" mpirun "${VFN[@]}" -- -x LD_LIBRARY_PATH="$STANDIN_LIB" -x STANDIN_FAULT=corrupt@2:3 \
  "$FABCHECK" sweep --backend nccl -b 1K -e 64K -f 8 -n 2 -w 1 --json "$FAB_TMP/bad.json" >"$FAB_TMP/bad.out" 2>&1 || rc=$?
note "corrupted sweep took $((SECONDS - t0)) s, exit $rc"
grep 'WRONG_DATA' "$FAB_TMP/bad.out" >&2 || true
[ "$rc" = 1 ] || { tail -20 "$FAB_TMP/bad.out" >&2; fail "corrupted sweep exited $rc, want 1"; }
grep -q "WRONG_DATA:.*received on rank 2 (${H[2]})" "$FAB_TMP/bad.out" || fail "WRONG_DATA does not name rank 2 (${H[2]})"
note "pass"
