#pragma once
// Private to lib/suite: one adapter per probe, mapping a config section onto the probe contract
// (XOptions / validate / run_X / add_X / render_X). An adapter whose probe is not in this build returns
// nullptr.
#include <string>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/suite/config.hpp"
#include "fabcheck/suite/runner.hpp"

namespace fabcheck::suite::detail {

struct StepContext {
  const comm::Communicator& world;
  const Step& step;
  report::Document* doc = nullptr;  // rank 0 only
  std::string console;              // rank 0: the probe's console text
};

struct ProbeAdapter {
  const char* probe;                   // "sweep"
  void (*validate)(const Step& step);  // throws UsageError (message without the pointer prefix)
  void (*run)(StepContext& ctx);       // throws; fills ctx.doc (rank 0) and ctx.console
};

const ProbeAdapter* inspect_adapter();
const ProbeAdapter* sweep_adapter();
const ProbeAdapter* latency_adapter();
const ProbeAdapter* incast_adapter();
const ProbeAdapter* pairs_adapter();
const ProbeAdapter* scaling_adapter();

/// The adapter of a step kind (nullptr for gate, or when the probe is not built).
const ProbeAdapter* adapter_for(StepKind k);

}  // namespace fabcheck::suite::detail
