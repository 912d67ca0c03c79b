#!/usr/bin/env bash
# tests/gpu/check.sh — the one check for a machine with NVIDIA GPUs. Not part of ci/test.
#
# Builds fabcheck with the NCCL backend ON into its own build folder (${BUILD_DIR:-build-gpu}), then runs
#   1. a 1-GPU sweep: every collective, float/half/bfloat16, 8 B → 64 MiB;
#   1b. -o avg (ncclAvg) in every dtype and -m 4 (one ncclGroupStart/End of 4 ops);
#   1c. the NCCL-only nccl-tests flags: -o mulsum in every dtype, -G (CUDA graph), -R 1, -x 1,
#       -M 1 (the GPU memory line and report.sweep_gpu_memory), -y 1 (NULL stream), -J's graph field; with 2+
#       GPUs also -R 2 (symmetric windows) with -G; fp8 (f8e4m3, f8e5m2) in every op on sm90+, refused below;
#   2. when there are several GPUs, one sweep over all of them (one rank per GPU, mpirun), every op;
#   3. overlap --backend nccl on 1 GPU (1 rank) and, with 2+ GPUs, on 2 ranks (mpirun);
# and asserts #wrong 0 in every checked row, a transport section drawn from NCCL's own log, and the NCCL
# version in the report; for overlap: every point's samples, overlap in [0, 1] and equal to the formula of its
# medians, the GPU kernel's compute_slowdown >= 0.9, no polled variant. Prints the tables, the transport
# section and the NCCL version.
# Exit: 0 all passed, 1 a check failed, 77 no GPU here (nothing run). About 1–3 minutes on one H200.
#
# Rehearsal without a GPU: CHECK_STANDIN=DIR (the CPU stand-ins of CUDA and NCCL, build/standin-lib) with
# FABCHECK=<an NCCL-built binary> runs this script's own logic on the stand-ins (CHECK_STANDIN_GPUS ranks, default
# 2; sm from CUDA_STANDIN_SM, default 90); its figures mean nothing there.
set -euo pipefail
cd "$(dirname "$0")/../.."

ngpu=0
if [ -n "${CHECK_STANDIN:-}" ]; then
  ngpu=${CHECK_STANDIN_GPUS:-2}
  export LD_LIBRARY_PATH=$CHECK_STANDIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUDA_STANDIN_DEVICES=$ngpu
  echo "== rehearsal on the CUDA/NCCL stand-ins in $CHECK_STANDIN ($ngpu devices): no GPU is measured"
elif command -v nvidia-smi >/dev/null 2>&1; then
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
fi
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ] && [ "$ngpu" -gt 0 ]; then
  visible=$(tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES" | grep -c . || true)
  [ "$visible" -lt "$ngpu" ] && ngpu=$visible
fi
if [ "$ngpu" -lt 1 ]; then
  echo "skipped: no GPU (nvidia-smi lists none)"
  exit 77
fi
if [ -n "${CHECK_STANDIN:-}" ]; then
  FAB=${FABCHECK:?CHECK_STANDIN needs FABCHECK, an NCCL-built fabcheck}
  arch=${CUDA_STANDIN_SM:-90}
else
  echo "== $ngpu GPU(s):"
  nvidia-smi -L
  BUILD_DIR=${BUILD_DIR:-build-gpu}
  echo "== build (NCCL ON) into $BUILD_DIR"
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFABCHECK_WITH_NCCL=ON -DFABCHECK_BUILD_TESTS=OFF \
    -DFABCHECK_BUILD_BENCH=OFF >/dev/null
  cmake --build "$BUILD_DIR" -j "$(nproc)" --target fabcheck >/dev/null
  FAB=$BUILD_DIR/apps/fabcheck/fabcheck
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
fi
"$FAB" --version
"$FAB" --version | grep -q 'nccl=yes' || { echo "FAIL: --version does not list nccl"; exit 1; }
if ldd "$FAB" | grep -q 'libcuda\.so'; then echo "FAIL: linked against libcuda (driver)"; exit 1; fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d /tmp/fabcheck-gpu.XXXXXX)
trap 'rm -rf "$out"' EXIT
export TMPDIR=$out  # NCCL's per-rank logs land here

# check_report FILE NRANKS: #wrong 0 everywhere, rows measured, transport and NCCL version present.
check_report() {
  python3 - "$1" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1])); n = int(sys.argv[2])
bad, rows = [], 0
for b in doc["sweeps"]:
    for p in b["points"]:
        rows += 1
        if p["wrong"] not in (0, None):
            bad.append(f'{b["collective"]} {b["dtype"]} {b["redop"]} {p["size_bytes"]} {p["placement"]}: #wrong {p["wrong"]}')
        if p["size_bytes"] > 0 and not p["time_us"] > 0:
            bad.append(f'{b["collective"]} {p["size_bytes"]}: time {p["time_us"]}')
topo, tr = doc["topology"], doc.get("transport")
print(f'report: {len(doc["sweeps"])} blocks, {rows} rows, nranks {topo["nranks"]}, backend {topo["backend"]}, '
      f'{topo.get("nccl_version")}')
if topo["nranks"] != n or topo["backend"] != "nccl": bad.append(f"topology {topo}")
if not topo.get("nccl_version"): bad.append("no nccl_version in topology")
if not tr or not tr.get("verdict"): bad.append("no transport section")
else: print("transport:", json.dumps({k: tr.get(k) for k in ("verdict", "network", "gdr", "inter_node")}))
if bad:
    print("FAIL:\n  " + "\n  ".join(bad[:20])); sys.exit(1)
PY
}

echo "== 1 GPU: sweep --backend nccl, every collective, float half bfloat16"
"$FAB" sweep --backend nccl --coll all -d float,half,bfloat16 -o sum -b 8 -e 64M -f 4 -n 5 -w 2 \
  --per-iter-iters 5 --json "$out/gpu1.json"
check_report "$out/gpu1.json" 1

echo "== 1 GPU: sweep --backend nccl -o avg -d all -m 4"
"$FAB" sweep --backend nccl --coll allreduce,reducescatter,reduce -d all -o avg -m 4 -b 8 -e 1M -f 8 -n 5 -w 2 \
  --per-iter-iters 5 --json "$out/gpu1avg.json"
check_report "$out/gpu1avg.json" 1

# check_flags STDOUT REPORT JSONFILE GRAPH: -M's line (nccl-tests util.cu writeMemInfo layout), the report's
# sweep_gpu_memory, and -J's config.graph equal to -G.
check_flags() {
  python3 - "$1" "$2" "$3" "$4" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read(); doc = json.load(open(sys.argv[2])); jf = json.load(open(sys.argv[3]))
graph, bad = int(sys.argv[4]), []
mem = re.findall(r"^# GPU memory usage     : Initialization [-0-9.]+ [KMG]?B \| User-Allocated [-0-9.]+ [KMG]?B "
                 r"\| Collective [-0-9.]+ [KMG]?B \| Total  [-0-9.]+ [KMG]?B$", text, re.M)
print("memory lines:", mem[:1])
if not mem: bad.append("no '# GPU memory usage' line in the nccl-tests layout")
g = doc.get("sweep_gpu_memory")
print("sweep_gpu_memory:", g)
if not g or g["total_bytes"] != g["initialization_bytes"] + g["user_allocated_bytes"] + g["collective_bytes"] \
        or g["initialization_bytes"] <= 0 or g["user_allocated_bytes"] <= 0:
    bad.append(f"sweep_gpu_memory {g}")
if jf["config"]["graph"] != graph: bad.append(f'-J config.graph {jf["config"]["graph"]}, want {graph}')
if bad:
    print("FAIL:\n  " + "\n  ".join(bad)); sys.exit(1)
PY
}

echo "== 1 GPU: -o mulsum -d all, -G 10 -R 1 -x 1 -M 1 (-J holds one collective)"
"$FAB" sweep --backend nccl --coll allreduce -d all -o sum,mulsum -G 10 -R 1 -x 1 -M 1 \
  -b 8 -e 1M -f 8 -n 5 -w 2 --per-iter-iters 5 --json "$out/gpu1flags.json" -J "$out/gpu1flags.nccl.json" \
  | tee "$out/gpu1flags.txt"
check_report "$out/gpu1flags.json" 1
check_flags "$out/gpu1flags.txt" "$out/gpu1flags.json" "$out/gpu1flags.nccl.json" 10
"$FAB" sweep --backend nccl --coll reducescatter,reduce -d all -o sum,mulsum -G 10 -R 1 -x 1 \
  -b 8 -e 1M -f 8 -n 5 -w 2 --per-iter-iters 5 --json "$out/gpu1flags2.json"
check_report "$out/gpu1flags2.json" 1
echo "== 1 GPU: -y 1 (the NULL stream) -o mulsum -m 4"
"$FAB" sweep --backend nccl --coll allreduce -d float,half -o mulsum -y 1 -m 4 -b 8 -e 1M -f 8 -n 5 -w 2 \
  --per-iter-iters 5 --json "$out/gpu1y.json"
check_report "$out/gpu1y.json" 1

# fp8: every op on sm90 or newer GPUs (nccl-tests runs them there); below sm90 one refusal line, exit 2.
if [ "${arch:-0}" -ge 90 ]; then
  echo "== 1 GPU (sm$arch): -d f8e4m3,f8e5m2 -o all, mulsum, -m 4"
  "$FAB" sweep --backend nccl --coll allreduce,reducescatter,reduce,allgather,broadcast -d f8e4m3,f8e5m2 \
    -o sum,prod,min,max,avg,mulsum -m 4 -b 8 -e 1M -f 8 -n 5 -w 2 --per-iter-iters 5 --json "$out/gpu1fp8.json"
  check_report "$out/gpu1fp8.json" 1
else
  echo "== 1 GPU (sm${arch:-?}): -d f8e4m3 is refused below sm90"
  rc=0
  "$FAB" sweep --backend nccl -d f8e4m3 -b 8 -e 8 2>"$out/fp8.err" || rc=$?
  [ "$rc" -eq 2 ] && grep -q 'sm90' "$out/fp8.err" || { echo "FAIL: fp8 below sm90: exit $rc"; cat "$out/fp8.err"; exit 1; }
fi

# check_overlap FILE NRANKS ITERS: the overlap section of `overlap --backend nccl`.
check_overlap() {
  python3 - "$1" "$2" "$3" "${CHECK_STANDIN:+rehearsal}" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1])); n, iters = int(sys.argv[2]), int(sys.argv[3])
figures = sys.argv[4] != "rehearsal"  # the stand-ins' timings are a CPU's: only the structure is checked there
o, bad = doc.get("overlap"), []
if not o:
    print("FAIL: no overlap section; run.sections:", json.dumps(doc["run"].get("sections"))); sys.exit(1)
print(f'overlap: backend {o["backend"]}, {o["library_version"]}, {o["device"]}, nranks {o["nranks"]}, '
      f'{len(o["points"])} points, {o["duration_s"]:.1f} s')
if o["backend"] != "nccl" or o["nranks"] != n: bad.append(f'backend {o["backend"]} nranks {o["nranks"]}')
if not str(o.get("library_version") or "").startswith("NCCL "): bad.append(f'library_version {o.get("library_version")}')
if "CUDA kernel" not in o["compute_kernel"]: bad.append(f'compute_kernel {o["compute_kernel"]}')
if len(o["points"]) != 6: bad.append(f'{len(o["points"])} points, want 3 collectives x 2 sizes')
cl = lambda x: min(1.0, max(0.0, x))
for p in o["points"]:
    name = f'{p["coll"]} {p["size_bytes"]}'
    for k in ("t_comm_us", "t_compute_us", "t_both_us", "compute_during_us", "t_compute_device_us"):
        s = p[k]
        if not s or s["samples"] != iters or not 0 < s["min"] <= s["p50"] <= s["p99"] <= s["max"]:
            bad.append(f"{name}: {k} {s}")
    if p["t_both_poll_us"] is not None or p["overlap_poll"] is not None: bad.append(f"{name}: a polled variant")
    ov = p["overlap"]
    if ov is None or not 0 <= ov <= 1: bad.append(f"{name}: overlap {ov}")
    else:
        c, m, b = (p[k]["p50"] for k in ("t_comm_us", "t_compute_us", "t_both_us"))
        if abs(ov - cl(1 - (b - m) / c)) > 1e-9: bad.append(f"{name}: overlap {ov} is not the formula of its medians")
    sd = p["compute_slowdown"]
    if figures and not sd >= 0.9: bad.append(f"{name}: compute_slowdown {sd} < 0.9")
    # the kernel was sized to the collective: within a factor 3 of t_comm (host timing includes launches)
    if figures and not p["t_comm_us"]["p50"] / 3 <= p["t_compute_us"]["p50"] <= 3 * p["t_comm_us"]["p50"] + 50:
        bad.append(f'{name}: t_compute {p["t_compute_us"]["p50"]} not sized to t_comm {p["t_comm_us"]["p50"]}')
    print("  %-13s %9d  t_comm %8.1f  t_compute %8.1f  t_both %8.1f  overlap %.2f  slowdown %.2f" % (
        p["coll"], p["size_bytes"], p["t_comm_us"]["p50"], p["t_compute_us"]["p50"], p["t_both_us"]["p50"],
        ov if ov is not None else -1, sd))
if bad:
    print("FAIL:\n  " + "\n  ".join(bad[:20])); sys.exit(1)
PY
}

echo "== 1 GPU: overlap --backend nccl"
"$FAB" overlap --backend nccl --sizes 1M,64M --iters 8 --warmup 2 --json "$out/ov1.json"
check_overlap "$out/ov1.json" 1 8

if [ "$ngpu" -ge 2 ]; then
  echo "== 2 GPUs: mpirun -np 2 overlap --backend nccl"
  mpirun -np 2 --bind-to none "$FAB" overlap --backend nccl --sizes 1M,64M --iters 8 --warmup 2 \
    --json "$out/ov2.json"
  check_overlap "$out/ov2.json" 2 8
  echo "== $ngpu GPUs: mpirun -np $ngpu sweep --backend nccl, every collective and op, float bfloat16"
  mpirun -np "$ngpu" --bind-to none "$FAB" sweep --backend nccl --coll all -d float,bfloat16 -o all -b 8 \
    -e 64M -f 8 -n 5 -w 2 --per-iter-iters 5 --json "$out/gpuN.json"
  check_report "$out/gpuN.json" "$ngpu"
  echo "== $ngpu GPUs: -R 2 (symmetric windows) -G 20 -o mulsum -M 1"
  mpirun -np "$ngpu" --bind-to none "$FAB" sweep --backend nccl --coll allreduce \
    -d float,bfloat16,int32 -o sum,mulsum -R 2 -G 20 -M 1 -b 8 -e 16M -f 8 -n 5 -w 2 --per-iter-iters 5 \
    --json "$out/gpuNflags.json" -J "$out/gpuNflags.nccl.json" | tee "$out/gpuNflags.txt"
  check_report "$out/gpuNflags.json" "$ngpu"
  check_flags "$out/gpuNflags.txt" "$out/gpuNflags.json" "$out/gpuNflags.nccl.json" 20
  mpirun -np "$ngpu" --bind-to none "$FAB" sweep --backend nccl --coll allgather,reducescatter \
    -d float,bfloat16,int32 -o sum,mulsum -R 2 -G 20 -b 8 -e 16M -f 8 -n 5 -w 2 --per-iter-iters 5 \
    --json "$out/gpuNflags2.json"
  check_report "$out/gpuNflags2.json" "$ngpu"
  echo "== $ngpu GPUs: -o avg in every floating type (NCCL's premultiplied average; fp8 on sm90+)"
  fl=half,float,double,bfloat16
  [ "${arch:-0}" -ge 90 ] && fl=$fl,f8e4m3,f8e5m2
  mpirun -np "$ngpu" --bind-to none "$FAB" sweep --backend nccl --coll allreduce,reducescatter,reduce -d "$fl" \
    -o avg,sum,prod -r -1 -b 8 -e 1M -f 8 -n 5 -w 2 --per-iter-iters 5 --json "$out/gpuNavg.json"
  check_report "$out/gpuNavg.json" "$ngpu"
fi
echo "PASS: tests/gpu/check.sh ($ngpu GPU(s))"
