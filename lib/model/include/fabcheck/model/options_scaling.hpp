#pragma once
/// @file Options of the scaling probe (the model owns every probe's Options; its option table is
/// scaling_option_table() in model/option_tables.hpp, the one definition of every flag and config key).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/core/collective.hpp"

namespace fabcheck::model {

/// Options of the scaling probe (and the `scaling` block of a config).
struct ScalingOptions {
  core::Collective collective =
      core::Collective::kAllReduce;        ///< reference collective (allreduce, allgather,
                                           ///< reducescatter: those with a ring model)
  std::uint64_t size_bytes = 64ull << 20;  ///< size measured on every group: the sweep's largest size
  int iters = 5;                           ///< timed operations per group (table loop)
  int warmup_iters = 1;                    ///< warm-up operations per group
  std::string backend = "mpi";             ///< collective backend (as the sweep's --backend)
  std::string workload;  ///< reference workload of the score ("" = the workloads file's default); report only
  std::string workloads_file;  ///< workloads JSON ("" = the built-in configs/workloads.json); report only
  /// Time limit of the step in seconds (0 = none; not a flag: `run` sets it from the step's budget, as the
  /// sweep's). Each group is first measured with one iteration and no warm-up; the full `iters` follow only
  /// when they fit in what is left, and a group that would not fit is not measured (ScalingResult::cut names
  /// it).
  double time_limit_s = 0;
};

}  // namespace fabcheck::model
