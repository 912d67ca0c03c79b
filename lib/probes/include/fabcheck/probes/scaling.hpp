#pragma once
/// @file Bandwidth-scaling probe (DESIGN §5 "Scaling efficiency", step 1): busBw of the reference
/// collective at one size (the largest the sweep measured) on host groups of 2, 4, 8 … N hosts — communicator
/// splits of the same run, measured one group after another with the sweep probe's own table loop (run_sweep
/// on the split). With one host the groups are local ranks (2, 4, … n) and are marked `intra_node_only`. The
/// workload projection and the score are analysis (lib/analysis: report/scaling.hpp); the two workload fields
/// below are carried through for it.
#include <cstdint>
#include <string>
#include <vector>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/collective.hpp"
#include "fabcheck/model/options_scaling.hpp"
#include "fabcheck/model/scaling.hpp"

namespace fabcheck::probes {
using ScalingGroup = model::ScalingGroup;
using ScalingResult = model::ScalingResult;

using ScalingOptions = model::ScalingOptions;

/// Checks option ranges. @throws UsageError naming the field: collective without a ring model, size 0,
/// iters < 1, warmup < 0.
void validate(const ScalingOptions& opts);

/// Group sizes for `units` hosts (or ranks): 2, 4, 8, … below `units`, then `units` itself; empty when units
/// < 2.
std::vector<int> scaling_group_sizes(int units);

/// Runs the probe (collective over `comm`): for each group size g, the ranks of the first g hosts (one host:
/// the first g local ranks) split off and run the sweep's table loop at opts.size_bytes; the others wait at a
/// barrier.
/// @throws UsageError for bad options (same on every rank); RuntimeFailure on backend errors.
ScalingResult run_scaling(const comm::Communicator& comm, const ScalingOptions& opts);

}  // namespace fabcheck::probes
