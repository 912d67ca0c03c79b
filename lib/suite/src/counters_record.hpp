#pragma once
// Private to lib/suite: the hosts' loss and error counters around one step. Each host leader
// (local rank 0) reads them when the window opens and when it closes; rank 0 gets the record for
// `run.sections.<section>.counters` (report/counters.hpp). Collective: every rank constructs and finishes it
// around the same step.
#include <nlohmann/json.hpp>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/model/counters.hpp"

namespace fabcheck::suite::detail {

class CounterWindow {
 public:
  /// `enabled` false (the inventory step: it sends nothing worth counting): no reading, finish() gives null.
  CounterWindow(const comm::Communicator& world, bool enabled);
  /// Reads again and gathers; the record on rank 0 (null elsewhere, and where no host could read anything).
  nlohmann::json finish(const comm::Communicator& world, double duration_s);

 private:
  bool enabled_;
  bool leader_;
  model::CounterSnapshot before_;
};

}  // namespace fabcheck::suite::detail
