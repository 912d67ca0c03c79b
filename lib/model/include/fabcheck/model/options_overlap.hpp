#pragma once
/// @file Options of the overlap probe; its option table is overlap_option_table() in
/// model/option_tables.hpp.
#include <cstdint>
#include <string>
#include <vector>

#include "fabcheck/core/collective.hpp"

namespace fabcheck::model {

/// Options of `fabcheck overlap` (and the `overlap` block of a config): how much of a nonblocking
/// collective hides behind compute.
struct OverlapOptions {
  /// Collectives measured (`--coll`): allreduce, allgather and reducescatter are the nonblocking calls a
  /// data-parallel step posts (DDP buckets, FSDP prefetch and gradient sharding).
  std::vector<core::Collective> collectives{core::Collective::kAllReduce, core::Collective::kAllGather,
                                            core::Collective::kReduceScatter};
  /// Message sizes, bytes (`--sizes`): nccl-tests' size (allreduce: the buffer; allgather: the gathered
  /// result; reducescatter: the input).
  std::vector<std::uint64_t> sizes_bytes{1ull << 20, 8ull << 20, 64ull << 20};
  int iters = 10;  ///< timed iterations per (collective, size), each of every variant (`--iters`)
  int warmup = 2;  ///< untimed collectives per (collective, size) before calibration (`--warmup`)
  /// > 0: also measure with MPI_Test called every this many µs of compute, as frameworks poll (`--poll-us`);
  /// 0: only without any MPI call during compute.
  double poll_us = 100;
  /// Collective backend (`--backend`): "mpi" (host buffers, a CPU compute kernel, MPI's nonblocking calls)
  /// or "nccl" (CUDA buffers, the collective on NCCL's stream and a GPU FMA kernel on another stream; no
  /// polled variant: NCCL progresses on the GPU, poll_us is ignored).
  std::string backend = "mpi";
};

}  // namespace fabcheck::model
