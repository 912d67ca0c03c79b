#!/usr/bin/env bash
# fabcheck step on 4 virtual hosts: one training step of the vfabric-demo profile (DDP, 4 buckets of
# 4 MiB, 150 ms of compute) emulated over TCP between namespaces, clean and then with one host throttled
# (FABCHECK_STEP_THROTTLE, default 500mbit), FABCHECK_STEP_RUNS runs of each (default 3). Asserts on every run:
# measured_efficiency = t_compute / t_step of the reported medians, the projection of the same step from the
# step's own curves and measured overlap present, measured and projected within the report's agreement factor
# (DESIGN §5 "Training step"; no STEP_PROJECTION_MISMATCH), no fail finding; and the throttled step's measured
# efficiency (median over runs) below the clean one's. Prints every run's figures.
source "$(dirname "$0")/lib.sh"
fab_init fstep 280
[ -x "${FABCHECK:-}" ] || fail "FABCHECK is not set to the fabcheck binary"
RUNS=${FABCHECK_STEP_RUNS:-3}
RATE=${FABCHECK_STEP_THROTTLE:-500mbit}

"$VF" up --hosts 4 "${VFN[@]}"
mapfile -t H < <("$VF" hosts "${VFN[@]}")
# Each host's rank on its own CPU, hI on CPU (I-1) mod nproc, as a real host has its own cores (test_compare.sh).
pin='i=$(hostname | sed "s/.*-h//"); exec taskset -c $(((i - 1) % $(nproc))) "$0" "$@"'
run_step() { # NAME
  local t0=$SECONDS rc=0
  timeout 100 "$VF" mpirun "${VFN[@]}" -- sh -c "$pin" "$FABCHECK" step --workload vfabric-demo --iters 5 \
    --poll-us 100 --json "$FAB_TMP/$1.json" >"$FAB_TMP/$1.out" 2>"$FAB_TMP/$1.err" || rc=$?
  cat "$FAB_TMP/$1.out"
  [ "$rc" = 0 ] || { cat "$FAB_TMP/$1.err" >&2; fail "fabcheck step ($1) exited $rc, want 0"; }
  note "step $1 took $((SECONDS - t0)) s"
}
for i in $(seq "$RUNS"); do run_step clean$i; done
"$VF" throttle "${H[1]}" "$RATE" "${VFN[@]}"
for i in $(seq "$RUNS"); do run_step slow$i; done

"$PY" - "$FAB_TMP" "$RUNS" "$RATE" "${H[@]}" <<'PYEOF' || fail "report"
import json, statistics, sys
tmp, runs, rate, hosts = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
eff = {"clean": [], "slow": []}
for kind in ("clean", "slow"):
    for i in range(1, runs + 1):
        d = json.load(open(f"{tmp}/{kind}{i}.json"))
        s = d["step"]
        assert d["run"]["sections"]["step"]["status"] == "ok"
        assert sorted(s["hosts"]) == sorted(hosts) and s["nranks"] == 4, (s["hosts"], s["nranks"])
        assert s["workload"] == "vfabric-demo" and s["buckets"] == 4 and s["scale"] == 1, s["scaled_note"]
        for k in ("t_step_us", "t_compute_us"):
            x = s[k]
            assert x["samples"] == 5 and 0 < x["min"] <= x["p50"] <= x["p99"] <= x["max"], (k, x)
        m = s["measured_efficiency"]
        assert abs(m - s["t_compute_us"]["p50"] / s["t_step_us"]["p50"]) < 1e-12, m
        p = s["projected"]
        assert p is not None, s["projection_reason"]
        assert p["curves"] == "step" and "measured by the step" in p["overlap_source"], p
        pe, f = p["efficiency"], s["agreement_factor"]
        print("%-5s run %d: measured %.3f  projected %.3f  ratio %.2f  overlap %.2f  t_step p50 %.0f us  t_compute p50 %.0f us"
              % (kind, i, m, pe, m / pe, p["overlap"], s["t_step_us"]["p50"], s["t_compute_us"]["p50"]))
        assert max(m, pe) / min(m, pe) <= f, f"{kind}{i}: measured {m:.3f} and projected {pe:.3f} not within {f}"
        codes = [x["code"] for x in d["findings"]]
        assert "STEP_PROJECTION_MISMATCH" not in codes, codes
        assert not [x for x in d["findings"] if x["severity"] == "fail"], d["findings"]
        eff[kind].append(m)
c, t = statistics.median(eff["clean"]), statistics.median(eff["slow"])
print(f"median measured efficiency: clean {c:.3f}, one host throttled to {rate} {t:.3f}")
assert t < c, f"throttled {t:.3f} not below clean {c:.3f}"
PYEOF
note "pass"
