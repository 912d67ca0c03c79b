#pragma once
// Private to lib/suite: every rank reads its host's CPU load after a step; rank 0 gets the record for
// `run.sections.<section>.cpu_load` (issue 17; report/cpu_load.hpp says what it explains). Collective: every
// rank calls it after the same step.
#include <nlohmann/json.hpp>

#include "fabcheck/comm/communicator.hpp"

namespace fabcheck::suite::detail {

/// The step's `cpu_load` record on rank 0; null on the other ranks and where no rank could read its load.
/// `runnable_mean`: this rank's CpuLoadSampler::stop() over the step (< 0: it did not sample).
nlohmann::json gather_cpu_load(const comm::Communicator& world, double runnable_mean);

}  // namespace fabcheck::suite::detail
