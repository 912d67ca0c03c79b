#pragma once
/// @file Options of the sweep probe (the model owns every probe's Options; its option table is
/// sweep_option_table() in model/option_tables.hpp, the one definition of every flag and config key).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/core/collective.hpp"

namespace fabcheck::model {

/// Inside a plan a timed step's limit is this factor times its budget_s: the one place the factor
/// is written; the sweep and latency steps set their options' time_limit_s from it, the report states it.
inline constexpr double kSweepBudgetLimitFactor = 1.5;

/// Sweep options: nccl-tests flags with nccl-tests defaults (nccl-tests' README and src/common.cu), plus
/// fabcheck's own.
struct SweepOptions {
  std::vector<core::Collective> collectives{core::Collective::kAllReduce};  ///< `--coll` (table order)
  std::uint64_t min_bytes = 32u << 20;  ///< `-b/--minbytes` (binary suffixes)
  std::uint64_t max_bytes = 32u << 20;  ///< `-e/--maxbytes`
  std::uint64_t step_bytes = 1u << 20;  ///< `-i/--stepbytes`, used when step_factor ≤ 1
  std::uint64_t step_factor = 1;        ///< `-f/--stepfactor`: size *= f when f > 1, else size += step_bytes
  int iters = 20;                       ///< `-n/--iters`: timed ops per size and placement (≥ 1)
  int warmup_iters = 1;                 ///< `-w/--warmup_iters` (≥ 0)
  int check = 1;                        ///< `-c/--check`: check rounds after timing (0 = #wrong N/A)
  std::vector<core::RedOp> redops{core::RedOp::kSum};    ///< `-o/--op` (`all` = sum prod min max avg)
  std::vector<core::Dtype> dtypes{core::Dtype::kFloat};  ///< `-d/--datatype` (`all` = every dtype)
  int root = 0;             ///< `-r/--root`; −1 = every root (rooted collectives only)
  int average = 1;          ///< `-a/--average`: 0 rank 0, 1 mean, 2 min, 3 max over ranks
  int blocking = 0;         ///< `-z/--blocking` 0..3 (nccl-tests meaning)
  int cycles = 1;           ///< `-N/--run_cycles` (≥ 1; nccl-tests' 0 = forever is refused)
  int per_iter_iters = -1;  ///< iterations of the per-iteration pass; −1 = same as iters, 0 = off
  /// The per-iteration pass of every point in this many rounds over the series (round r of every point runs
  /// before round r+1 of any; at most per_iter_iters rounds), each round after one untimed op. Spread over
  /// the run, a point's samples represent the run rather than the moment of one burst, so that two runs can
  /// be compared on them (`fabcheck compare`); 1 = the whole pass right after the point's timed loop.
  int per_iter_rounds = 10;
  /// Time limit of the whole sweep in seconds (0 = none; not a flag: `run` sets it from the step's budget,
  /// so that a slow host cannot stretch the run). Before each size the series predicts what the size will
  /// take (core::predict_size_cost_s over the sizes before it, scaled by the per-iteration rounds still to
  /// come) and stops when it would exceed its share of what is left; the report names the first size left out
  /// (sweeps[].truncated).
  double time_limit_s = 0;
  std::size_t samples_cap = 10000;  ///< per-iteration samples kept in the result (statistics use all)
  std::string backend = "mpi";      ///< `--backend` mpi | nccl
  int nthreads = 1;                 ///< `-t/--nthreads`: nccl-tests' threads per process (only 1)
  int ngpus = 1;                    ///< `-g/--ngpus`: nccl-tests' GPUs per thread (only 1)
  // nccl-tests flags (nccl-tests' src/common.cu; docs/DESIGN.md §7), nccl-tests'
  // defaults.
  int agg_iters = 1;  ///< `-m/--agg_iters`: ops per timed iteration (probes::time_group_loop)
  int per_iter_timing =
      0;  ///< `-I/--per_iter_timing`: the i_min i_max i_p99 i_cv% columns (per-iteration pass)
  int per_iter_skip = 0;   ///< `-K/--per_iter_skip`: leading per-iteration samples left out of those columns
  int report_cputime = 0;  ///< `-C/--report_cputime`: the time column is `cputime` (MPI: blocking calls)
  int report_timestamps = 0;  ///< `-S/--report_timestamps`: each row ends with "%Y-%m-%d %H:%M:%S"
  int unalign = 0;            ///< `-u/--unalign`: buffers offset by this many elements
  int parallel_init = 0;      ///< `-p/--parallel_init`: recorded (one rank per process: no threads to init)
  int stream_null = 0;        ///< `-y/--stream_null`: recorded (mpi: no streams)
  int cudagraph = 0;          ///< `-G/--cudagraph` (nccl only)
  int local_register = 0;     ///< `-R/--local_register` (nccl only)
  int cta_policy = -1;        ///< `-x/--cta_policy` (nccl only; −1 = unset)
  int device_implementation = 0;  ///< `-D/--device_implementation` (nccl only)
  int device_cta_count = 16;      ///< `-V/--device_cta_count` (nccl only)
  int memory = 0;                 ///< `-M/--memory` (nccl only: the GPU memory usage line)
};

}  // namespace fabcheck::model
