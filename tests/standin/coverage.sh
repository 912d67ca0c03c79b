#!/usr/bin/env bash
# Which functions and lines of the NCCL backend the nccl-standin tests execute (gcov), for a closing note or a
# review; not a test. Builds a coverage tree (default /tmp/fabcheck-cov, ~6 min cold on 2 cores), runs the
# label's scripts against it, prints per file: functions and lines executed, the ones not executed.
# Ranks that end through MPI_Abort/_exit skip gcov's atexit writer, so the coverage run preloads a small library
# that writes the counters first (the error paths are what the fault tests exercise).
# Usage: tests/standin/coverage.sh [BUILD_DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-/tmp/fabcheck-cov}
mkdir -p "$b/covshim"
cat >"$b/covshim/dump.c" <<'C'
extern void __gcov_dump(void);
__attribute__((visibility("default"))) void fabcheck_cov_dump(void) { __gcov_dump(); }
C
cat >"$b/covshim/flush.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
static void flush(void) {
  void (*dump)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "fabcheck_cov_dump");
  if (dump) dump();
}
int MPI_Abort(MPI_Comm comm, int code) { flush(); return PMPI_Abort(comm, code); }
void _exit(int code) { flush(); ((void (*)(int))dlsym(RTLD_NEXT, "_exit"))(code); for (;;) {} }
void _Exit(int code) { flush(); ((void (*)(int))dlsym(RTLD_NEXT, "_Exit"))(code); for (;;) {} }
C
gcc -c -fPIC -O1 "$b/covshim/dump.c" -o "$b/covshim/dump.o"
mpicc -shared -fPIC -O1 "$b/covshim/flush.c" -o "$b/covshim/libflush.so" -ldl
cmake -S "$src" -B "$b" -DCMAKE_BUILD_TYPE=Debug -DFABCHECK_WITH_NCCL=ON -DCMAKE_CXX_FLAGS="--coverage -O0" \
  -DCMAKE_EXE_LINKER_FLAGS="--coverage -Wl,--export-dynamic $b/covshim/dump.o" \
  -DCMAKE_SHARED_LINKER_FLAGS=--coverage >/dev/null
cmake --build "$b" --target fabcheck fabcheck_nccl_standin -j "$(nproc)" >/dev/null
find "$b" -name '*.gcda' -delete
export FABCHECK=$b/apps/fabcheck/fabcheck STANDIN_LIB=$b/standin-lib FABCHECK_TEST_DATA=$src/tests/data
export MPIEXEC=${MPIEXEC:-mpirun} PYTHON=${PYTHON:-python3} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export MPI_FLAGS="--oversubscribe --mca mpi_yield_when_idle 1 --mca btl self,vader,tcp -x LD_PRELOAD=$b/covshim/libflush.so"
for m in "all 1" "all 2" "all 4" "avg 3" "agg 2" "corrupt 2"; do
  SWEEP_ARGS="--backend nccl" python3 "$src/tests/mpi/sweep_check.py" $m | tail -1
done
python3 "$src/tests/standin/nccl_flags.py" | tail -1
bash "$src/tests/standin/faults.sh" | tail -1
python3 "$src/tests/standin/overlap.py" | tail -1
bash "$src/tests/standin/test_run_vfabric.sh" 2>&1 | tail -1
out=$b/gcov
rm -rf "$out" && mkdir -p "$out" && cd "$out"
for gcno in "$b"/lib/comm/CMakeFiles/fabcheck_comm.dir/Unity/*.gcno; do
  gcov -j -o "$gcno" "${gcno%.gcno}" >/dev/null 2>&1 || true
done
python3 - "$out" <<'PY'
import glob, gzip, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.gcov.json.gz")):
    for fi in json.load(gzip.open(f))["files"]:
        if not fi["file"].endswith(("nccl_backend.cpp", "cuda_compute.cpp")):
            continue
        fns, lines = fi["functions"], fi["lines"]
        nf = sum(1 for x in fns if x["execution_count"] > 0)
        nl = sum(1 for l in lines if l["count"] > 0)
        print(f"{fi['file']}: functions {nf} of {len(fns)} ({100 * nf / len(fns):.1f} %), "
              f"lines {nl} of {len(lines)} ({100 * nl / len(lines):.1f} %)")
        for x in fns:
            if x["execution_count"] == 0:
                print(f"  not executed: {x['demangled_name'][:110]} (line {x['start_line']})")
        print("  lines not executed:", [l["line_number"] for l in lines if l["count"] == 0])
PY
