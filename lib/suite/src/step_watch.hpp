#pragma once
// Private to lib/suite: what every step of `run` and of a probe command records beside its own section — the
// hosts' CPU load (cpu_load_record.hpp) and their loss counters (counters_record.hpp).
// One place, so that `fabcheck <probe>` and the same step inside `run` record the same. Collective: every
// rank constructs and finishes it around the same step.
#include <nlohmann/json.hpp>

#include <string>

#include "counters_record.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/cpu_load.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/suite/config.hpp"

namespace fabcheck::suite::detail {

class StepWatch {
 public:
  /// @param counters read the loss counters (Plan::counters); the inventory step never reads them.
  StepWatch(const comm::Communicator& world, StepKind kind, bool counters);
  /// Stops the sampler, reads the counters again and gathers both; on rank 0 records them in
  /// `run.sections.<section>` (when that entry exists), adds the counters' findings and returns the counters'
  /// console block ("" elsewhere and when nothing moved).
  std::string finish(const comm::Communicator& world, double elapsed_s, report::Document* doc,
                     const std::string& section, std::string_view step);

 private:
  CpuWindow cpu_window_;
  core::CpuLoadSampler load_sampler_;
  CounterWindow counter_window_;
};

}  // namespace fabcheck::suite::detail
