#pragma once
/// @file The emulated training step (`fabcheck step`): runs a model::StepPlan (built by
/// report::plan_train_step from a workload profile) on the fabric — the calibrated CPU kernel of the overlap
/// probe for compute, nonblocking collectives posted where the plan says, waits — and measures t_step and the
/// same compute alone, per iteration, the slowest rank's.
#include <optional>
#include <string>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/model/train_step.hpp"

namespace fabcheck::probes {
using TrainStepOptions = model::TrainStepOptions;

/// Checks option ranges that need no communicator. @throws UsageError naming the flag.
void validate(const TrainStepOptions& opts);

/// Why the step cannot run on `comm` (fewer than 2 ranks), else nullopt. The same on every rank.
std::optional<std::string> step_skip_reason(const comm::Communicator& comm);

/// Runs the step (MPI backend). Collective over `comm`: every rank calls it with the same options and plan.
/// Per distinct (collective, size) of the plan it first measures the overlap probe's point (t_comm alone and
/// the overlap, probes/overlap.hpp); then `warmup` untimed steps, then `iters` iterations each of the step's
/// compute alone and of the whole step.
/// @throws UsageError when step_skip_reason; RuntimeFailure on MPI errors.
model::TrainStepResult run_train_step(const comm::Communicator& comm, const TrainStepOptions& opts,
                                      const model::StepPlan& plan);

}  // namespace fabcheck::probes
