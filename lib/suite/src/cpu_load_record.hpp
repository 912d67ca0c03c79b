#pragma once
// Private to lib/suite: every rank reads its host's CPU load after a step; rank 0 gets the record for
// `run.sections.<section>.cpu_load` (report/cpu_load.hpp says what it explains). Collective: every
// rank calls it after the same step.
#include <nlohmann/json.hpp>

#include <chrono>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/cpu_load.hpp"
#include "fabcheck/core/proc_cpu.hpp"

namespace fabcheck::suite::detail {

/// The other processes' CPU time at a step's start (core/proc_cpu.hpp), read by each host's local rank 0.
struct CpuWindow {
  core::ProcessCpu procs;  ///< procs.ok false on the ranks that do not read
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};
CpuWindow start_cpu_window(const comm::Communicator& world);

/// The step's `cpu_load` record on rank 0; null on the other ranks and where no rank could read its load.
/// `runnable_mean`: this rank's CpuLoadSampler::stop() over the step (< 0: it did not sample).
nlohmann::json gather_cpu_load(const comm::Communicator& world, double runnable_mean,
                               const CpuWindow& window);

}  // namespace fabcheck::suite::detail
