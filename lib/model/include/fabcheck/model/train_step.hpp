#pragma once
/// @file The emulated training step: the plan of one scaled step (what lib/analysis builds from a
/// workload profile and lib/probes runs) and the probe's result. No MPI.
#include <cstdint>
#include <string>
#include <vector>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/stats.hpp"
#include "fabcheck/model/options_step.hpp"
#include "fabcheck/model/overlap.hpp"

namespace fabcheck::model {

/// One operation of an emulated step, run in order on every rank.
struct StepOp {
  enum class Kind {
    kCompute,  ///< the calibrated CPU kernel for compute_us (polling MPI_Test when the step polls)
    kPost,     ///< post the nonblocking coll of size_bytes (nccl-tests size) and go on
    kWaitAll,  ///< wait for every collective posted so far
  };
  Kind kind = Kind::kCompute;
  double compute_us = 0;                                 ///< kCompute
  core::Collective coll = core::Collective::kAllReduce;  ///< kPost
  std::uint64_t size_bytes = 0;                          ///< kPost
};

/// One training step of a profile, scaled down: bucket sizes as in the profile, their number and the
/// compute scaled together by `scale` (so compute per communicated byte is the profile's).
struct StepPlan {
  std::string workload;                   ///< profile name
  std::string parallelism;                ///< "ddp" | "fsdp"
  double scale = 1;                       ///< buckets / real_buckets as planned (the given or auto scale)
  std::uint64_t real_buckets = 0;         ///< DDP: buckets of the full step (full + remainder); FSDP: units
  std::uint64_t buckets = 0;              ///< emulated buckets (FSDP: units)
  std::uint64_t bucket_bytes = 0;         ///< DDP: allreduce size of each emulated bucket
  std::uint64_t allgather_bytes = 0;      ///< FSDP: gathered parameters of one unit
  std::uint64_t reducescatter_bytes = 0;  ///< FSDP: gradients of one unit (reducescatter input)
  double real_compute_s = 0;              ///< the profile's compute per step
  double compute_s = 0;     ///< emulated compute per step: real_compute_s · buckets / real_buckets
  std::vector<StepOp> ops;  ///< the step, in order
  std::string description;  ///< one sentence: what the step does
};

/// The probe's result (complete on rank 0). Every timing sample is the slowest rank's (max over ranks), µs.
struct TrainStepResult {
  int nranks = 0;
  std::vector<std::string> hosts;  ///< distinct hosts
  std::string backend = "mpi";
  std::string mpi_library;         ///< MPI_Get_library_version, first line
  std::string compute_kernel;      ///< what the compute kernel does (one sentence)
  double us_per_unit = 0;          ///< kernel speed on rank 0 after the full-length trial
  TrainStepOptions options;        ///< as run (scale: the scale used)
  StepPlan plan;                   ///< as run
  core::Summary t_step;            ///< the whole step: computes, posts, the final wait
  core::Summary t_compute;         ///< the step's compute alone (no post, no wait, no MPI_Test)
  double measured_efficiency = 0;  ///< core::step_efficiency of the medians (have_efficiency: defined)
  bool have_efficiency = false;
  double exposed_us = 0;  ///< core::exposed_comm of the medians
  /// Each distinct (collective, size) the step posts, measured alone and against compute (the overlap
  /// probe's point, probes/overlap.hpp): the communication times and the overlap the projection uses.
  std::vector<OverlapPoint> comm_points;
  double duration_s = 0;
};

}  // namespace fabcheck::model
