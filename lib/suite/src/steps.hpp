#pragma once
// Private to lib/suite: one adapter per probe, mapping a config section onto the probe contract
// (XOptions / validate / run_X / add_X / render_X). An adapter whose probe is not in this build returns
// nullptr.
#include <fmt/format.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/model/console_detail.hpp"
#include "fabcheck/model/option_table.hpp"
#include "fabcheck/model/sweep.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/transport.hpp"
#include "fabcheck/report/transport_accumulator.hpp"
#include "fabcheck/suite/config.hpp"
#include "fabcheck/suite/runner.hpp"

namespace fabcheck::suite::detail {

// What a step leaves for later steps (rank 0): every piece of transport evidence so far and the verdict last
// written, so that each step that brings evidence (inspect, an NCCL sweep, latency/pairs signatures) redraws
// the transport section from all of it (DESIGN §5).
struct SuiteState {
  report::TransportAccumulator transport_evidence;
  std::optional<report::TransportResult> transport;
  std::vector<std::string>
      pairs_passed_hosts;       // pairs: hosts without a confirmed fault (`--exclude-hostfile`)
  std::size_t pairs_hosts = 0;  // pairs: all hosts measured (0 = pairs did not run)
  std::function<void(const model::SweepResult&)> on_sweep;  // SingleOptions::on_sweep (may be empty)
};

struct StepContext {
  const comm::Communicator& world;
  const Step& step;
  report::Document* doc = nullptr;  // rank 0 only
  std::string console;              // rank 0: the probe's console text
  SuiteState* state = nullptr;      // rank 0 only (nullptr elsewhere); set exactly when doc is
  model::ConsoleDetail detail = model::ConsoleDetail::kTables;  // how much ctx.console shows
  /// inspect: also measure the MPI signature between host leaders (the standalone command; in `run` the
  /// latency and pairs steps bring it)
  bool inspect_signature = false;
};

// Rank 0: redraws the transport section from all evidence in ctx.state (replacing the one written before,
// report::update_transport) and returns the new verdict's console text line.
std::string redraw_transport(StepContext& ctx);

// Rank 0: adds `sigs` (measured by `probe`) to the transport evidence and redraws the transport section;
// appends one console line with the new verdict. Does nothing when inspect did not run (no host evidence) or
// there is no signature.
void add_signatures(StepContext& ctx, const char* probe, std::vector<report::MpiSignature> sigs);

/// The step's options from its config section through the probe's option table (the table's
/// defaults, then the section's keys); errors name the key's JSON pointer.
template <class O>
O options_of(const model::OptionTable<O>& table, const Step& st) {
  return table.make(st.options,
                    [&](std::string_view key) { return fmt::format("/{}/{}", config_key(st.kind), key); });
}

struct ProbeAdapter {
  const char* probe;                   // "sweep"
  void (*validate)(const Step& step);  // throws UsageError (message without the pointer prefix)
  void (*run)(StepContext& ctx);       // throws; fills ctx.doc (rank 0) and ctx.console
};

/// The adapter of a probe whose options are its table's (`Table`), checked by the probe's `Validate`, and
/// whose step is `Run` (measure, then rank 0's section and console text): per probe only `Run` is written.
template <class O, const model::OptionTable<O>& (*Table)(), void (*Validate)(const O&),
          void (*Run)(StepContext&, const O&)>
const ProbeAdapter* table_adapter(const char* probe) {
  static const ProbeAdapter a{probe, [](const Step& st) { Validate(options_of(Table(), st)); },
                              [](StepContext& ctx) { Run(ctx, options_of(Table(), ctx.step)); }};
  return &a;
}

const ProbeAdapter* inspect_adapter();
const ProbeAdapter* sweep_adapter();
const ProbeAdapter* latency_adapter();
const ProbeAdapter* incast_adapter();
const ProbeAdapter* pairs_adapter();
const ProbeAdapter* nics_adapter();
const ProbeAdapter* overlap_adapter();
const ProbeAdapter* step_adapter();
const ProbeAdapter* scaling_adapter();

/// One step on every rank, as `run` and a probe command both run it.
struct StepRun {
  StepOutcome agreed;   // every rank's status; the reason on rank 0
  std::string console;  // rank 0: the probe's text, then the counters' block
  double elapsed_s = 0;
};

/// Runs step `st` on every rank (collective): a phase marker (the watchdog names a rank that never started
/// it), the hosts' CPU load and loss counters around it, the probe's adapter, all ranks' agreement on the
/// outcome, and on rank 0 (`doc`, `state` non-null there only) the section's status, elapsed time and budget
/// in `run.sections`. With `contain` a rank's exception becomes its outcome (a UsageError: skipped, the probe
/// cannot apply here; any other: failed): `run`, whose watchdog ends ranks left waiting in a collective;
/// without, it leaves the process, and the launcher ends the others (a probe command).
struct StepSettings {
  model::ConsoleDetail detail = model::ConsoleDetail::kTables;
  bool counters = true;            // read the hosts' loss counters around the step
  bool contain = false;            // see run_step
  bool inspect_signature = false;  // StepContext::inspect_signature
};
StepRun run_step(const comm::Communicator& world, const Step& st, report::Document* doc, SuiteState* state,
                 const StepSettings& how);

/// The adapter of a step kind (nullptr for gate, or when the probe is not built).
const ProbeAdapter* adapter_for(StepKind k);

}  // namespace fabcheck::suite::detail
