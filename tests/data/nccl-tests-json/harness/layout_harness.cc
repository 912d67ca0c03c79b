// Drives nccl-tests' own JSON writer (src/util.cu, linked from an nccl-tests checkout; not part of fabcheck)
// through the call sequence of its main loop (common.cu: jsonOutputInit 1443, writeDeviceReport 1532,
// writeResultHeader 1723, per row writeBenchmarkLinePreamble/Body/Body/Terminator 938-941 with
// writePerIterReport after each Body 886, writeResultFooter 1833, finalizeFooter 1841, writeErrors 1848,
// jsonOutputFinalize), with fixed numbers, so that the files under tests/data/nccl-tests-json/ are what that
// writer prints, byte for byte. CUDA device queries are stubbed (no GPU here); see README.md to rebuild.
// Usage: mpirun -np 2 layout_harness OUT.json {plain|per_iter|cputime} [args recorded as argv...]
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// util.h's declarations (util.h itself pulls common.h, which needs nvcc; the harness is plain C++).
struct IterStats {
  double min, max, avg, p50, p95, p99, stdev;
};
void jsonOutputInit(const char* path, int argc, char** argv, char** envp);
void jsonIdentifyWriter(bool is_writer);
void jsonOutputFinalize();
void computeIterStats(const double* times, int n, struct IterStats* stats);
void writeBenchmarkLinePreamble(size_t nBytes, size_t nElem, const char typeName[], const char opName[],
                                int root);
void writeBenchmarkLineTerminator(int actualIters, const char* name);
void writeBenchmarkLineBody(double timeUsec, double algBw, double busBw, bool reportErrors, int64_t wrongElts,
                            bool report_cputime, bool report_timestamps, bool out_of_place);
void writePerIterReport(const struct IterStats* stats, const double* iterTimes, int nIters, int skippedIters,
                        bool out_of_place, const double* allProcessTimes, int nProcs);
int writeDeviceReport(size_t* maxMem, int localRank, int proc, int totalProcs, int color,
                      const char hostname[],
                      const char* program_name);  // returns testResult_t (the return type is not mangled)
void writeResultHeader(bool report_cputime, bool report_timestamps);
void writeResultFooter(const int errors[], const double bw[], double check_avg_bw, const char* program_name);
void finalizeFooter();
void writeErrors();

// The globals util.cu reads (common.cu defines them in nccl-tests).
int nThreads = 1, nGpus = 1;
size_t minBytes = 8, maxBytes = 1024, stepBytes = 1048576, stepFactor = 2;
int datacheck = 1, warmup_iters = 1, iters = 5, agg_iters = 1, parallel_init = 0, blocking_coll = 0;
int per_iter_timing = 0, per_iter_skip = 0, cudaGraphLaunches = 0, unalign = 0;
int test_ncclVersion = 22803;
thread_local int is_main_thread = 0;

// Device stubs: two fake H100s (the PCI and name fields writeDeviceReport prints).
extern "C" cudaError_t cudaGetDeviceCount(int* n) {
  *n = 8;
  return cudaSuccess;
}
extern "C" cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int dev) {
  std::memset(p, 0, sizeof(*p));
  std::snprintf(p->name, sizeof(p->name), "NVIDIA H100 80GB HBM3");
  p->pciDomainID = 0;
  p->pciBusID = 0x1b + dev;
  p->pciDeviceID = 0;
  p->totalGlobalMem = size_t(80) << 30;
  return cudaSuccess;
}

int main(int argc, char** argv, char** envp) {
  MPI_Init(&argc, &argv);
  int proc = 0, nprocs = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &proc);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  is_main_thread = proc == 0;
  const std::string mode = argv[2];
  per_iter_timing = mode == "per_iter";
  per_iter_skip = per_iter_timing ? 1 : 0;
  const bool cputime = mode == "cputime";
  if (cputime) {
    stepFactor = 1;
    stepBytes = 512;
    datacheck = 0;
  }
  // argv as recorded: the harness's own name, then what follows the mode.
  std::vector<char*> rec{const_cast<char*>("./build/all_reduce_perf")};
  for (int i = 3; i < argc; ++i) rec.push_back(argv[i]);
  jsonOutputInit(argv[1], static_cast<int>(rec.size()), rec.data(), envp);
  jsonIdentifyWriter(is_main_thread);
  size_t maxMem = ~size_t(0);
  writeDeviceReport(&maxMem, proc, proc, nprocs, 0, "node01", "all_reduce_perf");
  writeResultHeader(cputime, false);
  double bw_sum = 0;
  int bw_n = 0;
  int errors[1] = {0};
  for (size_t size = minBytes; size <= maxBytes;
       size = stepFactor > 1 ? size * stepFactor : size + stepBytes) {
    writeBenchmarkLinePreamble(size, size / 4, "float", "sum", -1);
    for (int in_place = 0; in_place < 2; ++in_place) {
      const double t = 10.0 + static_cast<double>(size) / 1000.0 + (in_place ? 0.25 : 0.0) + 1.0 / 3.0;
      const double alg = static_cast<double>(size) / 1.0E9 / (t * 1e-6);
      const double bus = alg * 2.0 * (nprocs - 1) / nprocs;
      const bool report = datacheck && !(size == 64 && in_place);  // one unchecked block
      const int64_t wrong = size == 256 && !in_place ? 3 : 0;      // one block with wrong elements
      if (report && wrong) errors[0]++;
      writeBenchmarkLineBody(t, size == 1024 && in_place ? NAN : alg, bus, report, wrong, cputime, false,
                             in_place == 0);
      if (per_iter_timing) {
        double times[5];
        for (int i = 0; i < iters; ++i) times[i] = (t + (i == 0 ? 7.0 : 0.5 * i)) * 1e-6;
        IterStats st;
        computeIterStats(times + per_iter_skip, iters - per_iter_skip, &st);
        double all[10];
        for (int r = 0; r < nprocs && r < 2; ++r)
          for (int i = 0; i < iters; ++i) all[r * iters + i] = times[i] - (r ? 0.125e-6 : 0.0);
        writePerIterReport(&st, times, iters, per_iter_skip, in_place == 0, all, nprocs);
      }
      bw_sum += bus;
      ++bw_n;
    }
    writeBenchmarkLineTerminator(iters, "");
  }
  double bw[1] = {bw_sum / bw_n};
  writeResultFooter(errors, bw, -1, "all_reduce_perf");
  finalizeFooter();
  writeErrors();
  jsonOutputFinalize();
  MPI_Finalize();
  return 0;
}
