#pragma once
// Private to lib/suite: one adapter per probe, mapping a config section onto the probe contract
// (XOptions / validate / run_X / add_X / render_X). An adapter whose probe is not in this build returns
// nullptr.
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/transport.hpp"
#include "fabcheck/suite/config.hpp"
#include "fabcheck/suite/runner.hpp"

namespace fabcheck::suite::detail {

// What a step leaves for later steps (rank 0): the transport verdict's input and result, so that latency and
// pairs can add their MPI signature to it (DESIGN §5: the transport section is redrawn once they ran).
struct SuiteState {
  std::optional<report::TransportInput> transport_in;
  std::optional<report::TransportResult> transport;
};

struct StepContext {
  const comm::Communicator& world;
  const Step& step;
  report::Document* doc = nullptr;  // rank 0 only
  std::string console;              // rank 0: the probe's console text
  SuiteState* state = nullptr;      // rank 0 only (nullptr elsewhere)
};

// Rank 0: adds `sigs` (measured by `probe`) to the transport input of the inspect step and redraws the
// transport section (report::update_transport); appends one console line with the new verdict. Does nothing
// when inspect did not run or there is no signature.
void add_signatures(StepContext& ctx, const char* probe, std::vector<report::MpiSignature> sigs);

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
