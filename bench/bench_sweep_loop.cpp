// Benchmark (not a test): is fabcheck's table loop as cheap as a bare MPI_Allreduce loop?
// Interleaves 11 blocks of (bare loop, fabcheck table loop, the same bare loop again) — rotating which runs
// first — at 8 B and 1 MiB of float, and prints the median ratio fabcheck/bare and its spread, and the median
// ratio of the bare loop to itself (control_p50: what this machine's noise alone gives). Target: median
// ≤ 1.02 at 1 MiB. Run: mpirun -np 2 --oversubscribe --mca mpi_yield_when_idle 1 build/bench/bench_sweep_loop
// [block_seconds]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fabcheck/comm/backend.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/collective.hpp"
#include "fabcheck/probes/sweep.hpp"

namespace {

using namespace fabcheck;

double bare_loop(const comm::Communicator& world, const void* send, void* recv, int count, int iters) {
  world.barrier();
  const double t0 = comm::now_us();
  for (int i = 0; i < iters; ++i) {
    MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
  const double t1 = comm::now_us();
  return (t1 - t0) * 1e-6 / iters;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];  // odd count (11): the middle value
}

}  // namespace

int main(int argc, char** argv) {
  comm::Runtime runtime(&argc, &argv);
  const auto world = comm::Communicator::world();
  const double block_s = argc > 1 ? std::atof(argv[1]) : 0.25;
  auto be = comm::make_backend("mpi", world);
  constexpr int kBlocks = 11;
  if (world.rank() == 0) {
    std::printf("# bench_sweep_loop: %d ranks, %d interleaved blocks, ~%.2f s per loop\n", world.size(),
                kBlocks, block_s);
    std::printf("# %10s %8s %12s %12s %10s %10s %10s %11s\n", "size_B", "iters", "bare_us", "fabcheck_us",
                "ratio_p50", "ratio_min", "ratio_max", "control_p50");
  }
  for (std::uint64_t bytes : {std::uint64_t{8}, std::uint64_t{1} << 20}) {
    const auto g = core::geometry(core::Collective::kAllReduce, core::Dtype::kFloat, bytes, world.size());
    void* send = be->alloc(bytes);
    void* recv = be->alloc(bytes);
    comm::CollCall call;
    call.coll = core::Collective::kAllReduce;
    call.dtype = core::Dtype::kFloat;
    call.op = core::RedOp::kSum;
    call.send = send;
    call.recv = recv;
    call.geometry = g;
    const int count = static_cast<int>(g.count);
    // Calibrate on rank 0's clock (reduce_time mode 0 gives every rank the same value): double the count
    // until one loop lasts 50 ms, then scale to block_s.
    bare_loop(world, send, recv, count, 20);
    int n0 = 16;
    double per_op = 0;
    while (true) {
      per_op = probes::reduce_time(world, bare_loop(world, send, recv, count, n0), 0);
      if (per_op * n0 >= 0.05 || n0 >= (1 << 24)) break;
      n0 *= 2;
    }
    int iters = std::max(10, static_cast<int>(block_s / std::max(per_op, 1e-9)));
    world.bcast(&iters, sizeof iters, 0);
    std::vector<double> ratio, control, bare_t, fab_t;
    for (int b = 0; b < kBlocks; ++b) {
      double tb = 0, tf = 0, tc = 0;
      for (int k0 = 0; k0 < 3; ++k0) {
        switch ((k0 + b) % 3) {  // rotate which loop runs first
          case 0:
            tb = probes::reduce_time(world, bare_loop(world, send, recv, count, iters), 1);
            break;
          case 1:
            tf = probes::reduce_time(world, probes::time_table_loop(world, *be, call, iters, 0), 1);
            break;
          default:
            tc = probes::reduce_time(world, bare_loop(world, send, recv, count, iters), 1);
        }
      }
      bare_t.push_back(tb * 1e6);
      fab_t.push_back(tf * 1e6);
      ratio.push_back(tf / tb);
      control.push_back(tc / tb);
    }
    if (world.rank() == 0) {
      std::printf("  %10llu %8d %12.3f %12.3f %10.4f %10.4f %10.4f %11.4f\n",
                  static_cast<unsigned long long>(bytes), iters, median(bare_t), median(fab_t), median(ratio),
                  *std::min_element(ratio.begin(), ratio.end()),
                  *std::max_element(ratio.begin(), ratio.end()), median(control));
      std::printf("    ratios:");
      for (double x : ratio) std::printf(" %.4f", x);
      std::printf("\n");
    }
    be->free(send);
    be->free(recv);
  }
  return 0;
}
