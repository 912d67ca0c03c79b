#pragma once
/// @file Bandwidth-scaling probe (DESIGN §5 "Scaling efficiency", step 1; issue 9): busBw of the reference
/// collective at one size (the largest the sweep measured) on host groups of 2, 4, 8 … N hosts — communicator
/// splits of the same run, measured one group after another with the sweep probe's own table loop (run_sweep
/// on the split). With one host the groups are local ranks (2, 4, … n) and are marked `intra_node_only`. The
/// workload projection and the score are analysis (lib/report/scaling.hpp); the two workload fields below are
/// carried through for it.
#include <cstdint>
#include <string>
#include <vector>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/collective.hpp"
#include "fabcheck/model/options_scaling.hpp"

namespace fabcheck::probes {

using ScalingOptions = model::ScalingOptions;

/// Checks option ranges. @throws UsageError naming the field: collective without a ring model, size 0,
/// iters < 1, warmup < 0.
void validate(const ScalingOptions& opts);

/// One group's measurement.
struct ScalingGroup {
  int hosts = 0;                        ///< hosts in the group (1 for local-rank groups on one host)
  int nranks = 0;                       ///< ranks in the group
  std::vector<std::string> host_names;  ///< the hosts of the group, in rank order
  std::uint64_t size_bytes = 0;         ///< the size column measured (after the sweep's chunk rounding)
  double time_us = 0;                   ///< per-op time, mean over ranks (nccl-tests -a 1)
  double algbw_gbps = 0;                ///< size/time
  double busbw_gbps = 0;                ///< algbw · busbw_factor(collective, nranks)
  bool intra_node_only = false;         ///< every rank of the group is on one host
};

/// Whole result (complete on rank 0).
struct ScalingResult {
  ScalingOptions options;            ///< options as run
  int world_nranks = 0;              ///< ranks in the run
  int world_hosts = 0;               ///< hosts in the run
  bool intra_node_only = false;      ///< the run has one host: local-rank groups
  std::vector<ScalingGroup> groups;  ///< ascending group size; the first is the 2-host (or 2-rank) baseline
  std::string skipped_reason;        ///< non-empty when no group could run (one rank)
};

/// Group sizes for `units` hosts (or ranks): 2, 4, 8, … below `units`, then `units` itself; empty when units
/// < 2.
std::vector<int> scaling_group_sizes(int units);

/// Runs the probe (collective over `comm`): for each group size g, the ranks of the first g hosts (one host:
/// the first g local ranks) split off and run the sweep's table loop at opts.size_bytes; the others wait at a
/// barrier.
/// @throws UsageError for bad options (same on every rank); RuntimeFailure on backend errors.
ScalingResult run_scaling(const comm::Communicator& comm, const ScalingOptions& opts);

}  // namespace fabcheck::probes
