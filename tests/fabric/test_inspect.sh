#!/usr/bin/env bash
# fabcheck inspect across 3 virtual hosts (2 ranks each): one inventory per host, each named after its host,
# verdict no_rdma_hardware, MPI_RDMA_EXCLUDED per host, exit 0.
source "$(dirname "$0")/lib.sh"
fab_init finsp 130

"$VF" up --hosts 3 "${VFN[@]}"
mapfile -t hosts < <("$VF" hosts "${VFN[@]}")
out=$FAB_TMP/inspect.json
timeout 90 "$VF" mpirun "${VFN[@]}" -- -np 6 "$FABCHECK" inspect --json "$out" >"$FAB_TMP/stdout" ||
  fail "inspect exited $? ($(tail -3 "$FAB_TMP/stdout"))"
"$PY" - "$out" "${hosts[@]}" <<'PYEOF' || fail "report check"
import json, sys
doc = json.load(open(sys.argv[1]))
want = sorted(sys.argv[2:])
got = sorted(h["host"] for h in doc["inventory"]["hosts"])
assert got == want, f"inventory hosts {got}, expected {want}"
assert doc["transport"]["verdict"] == "no_rdma_hardware", doc["transport"]["verdict"]
excl = [f["evidence"]["host"] for f in doc["findings"] if f["code"] == "MPI_RDMA_EXCLUDED"]
assert sorted(excl) == want, f"MPI_RDMA_EXCLUDED for {excl}"
assert doc["run"]["exit_code"] == 0
print("inventory hosts:", got, "verdict:", doc["transport"]["verdict"])
PYEOF
note "one inventory per host: ok"
