#pragma once
/// @file Options of the emulated training step (`fabcheck step`); its option table is
/// step_option_table() in model/option_tables.hpp.
#include <string>

namespace fabcheck::model {

/// Options of `fabcheck step` (and the `step` block of a config): one training step of a workload profile
/// emulated on the fabric.
struct TrainStepOptions {
  std::string workload;        ///< profile emulated ("" = the workloads file's default), ddp or fsdp
  std::string workloads_file;  ///< workloads JSON ("" = the built-in configs/workloads.json)
  /// Fraction of the profile's buckets (FSDP: units) and compute emulated, in (0, 1]; 0 = auto: the largest
  /// scale that leaves at most max_buckets (`--scale`).
  double scale = 0;
  int max_buckets =
      8;           ///< the auto scale's bound on buckets (FSDP: units) per emulated step (`--max-buckets`)
  int iters = 5;   ///< timed iterations, each of the step and of its compute alone (`--iters`)
  int warmup = 1;  ///< untimed steps before the timed ones (`--warmup`)
  /// > 0: the step's compute calls MPI_Test every this many µs, as frameworks drive MPI (`--poll-us`); 0: no
  /// MPI call during compute.
  double poll_us = 100;
};

}  // namespace fabcheck::model
