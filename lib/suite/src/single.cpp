// Standalone probe commands through the step adapters of `run` (single.hpp).
#include "fabcheck/suite/single.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>

#include "fabcheck/comm/agree.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/probes/topology.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/findings_text.hpp"
#include "fabcheck/report/gate.hpp"
#include "fabcheck/report/html.hpp"
#include "fabcheck/report/reconcile.hpp"
#include "fabcheck/report/sinks.hpp"
#include "fabcheck/report/topology.hpp"
#include "fabcheck/suite/watchdog.hpp"
#include "steps.hpp"

namespace fabcheck::suite {

report::Sinks report_sinks(const std::string& json_path, const std::string& html_path,
                           const std::string& junit_path) {
  report::Sinks sinks;
  sinks.json("--json", json_path).add(report::html_sink("--html", html_path));
  sinks.add(
      {"--junit", junit_path, [](const nlohmann::json& doc) {
         const nlohmann::json checks = nlohmann::json::array(
             {{{"metric", "findings.severity=fail#count"},
               {"op", "=="},
               {"threshold", 0},
               {"why", "a fail finding: not fit for the job, evidence confirmed (docs/DESIGN.md §5)"}}});
         return report::junit_xml(report::evaluate_gate(doc, checks, "the command's findings"));
       }});
  return sinks;
}

SingleOutcome run_single(const comm::Communicator& world, const std::vector<Step>& steps,
                         const SingleOptions& opts) {
  const double t0 = comm::now_us();
  const bool root = world.rank() == 0;
  for (const auto& st : steps) {
    const auto* a = detail::adapter_for(st.kind);
    if (!a)
      throw UsageError(fmt::format("{}: this probe is not built into this binary", config_key(st.kind)));
    a->validate(st);  // the same options on every rank: every rank throws alike
  }
  // The command's own outputs (sweep -J, pairs --exclude-hostfile) are written by it; checked here with the
  // rest.
  report::Sinks sinks = report_sinks(opts.json_path, opts.html_path, opts.junit_path);
  for (const auto& [flag, path] : opts.other_outputs) sinks.add({flag, path, {}});
  comm::agree_on_root(world, [&] { sinks.check(); });

  const comm::ClockAlignment clocks = comm::align_clocks(world);
  report::Document doc(opts.argv);
  if (root) {
    nlohmann::json cfg = nlohmann::json::object();
    for (const auto& st : steps) cfg[std::string(config_key(st.kind))] = st.effective;
    cfg["counters"] = opts.counters;
    doc.json()["run"]["config"] = cfg;
    report::add_topology(doc, probes::describe_topology(world, "mpi", clocks));
  }
  detail::SuiteState state;
  std::unique_ptr<Watchdog> watchdog;
  if (opts.timeout_s > 0)
    watchdog = std::make_unique<Watchdog>(world, opts.timeout_s, [](const WatchdogTimeout&) {});
  state.on_sweep = opts.on_sweep;
  for (const auto& st : steps) {
    // A rank's failure is not contained: its exception ends the process with its own message (exit 2 or 3),
    // and the launcher (or the -T watchdog) the others. Contained, the failing rank would wait to agree while
    // the others still wait for it (NCCL init failing on one rank: the watchdog then named the wrong rank).
    detail::StepSettings how;
    how.detail = opts.verbose ? model::ConsoleDetail::kVerbose : model::ConsoleDetail::kTables;
    how.counters = opts.counters;
    how.contain = false;
    how.inspect_signature = opts.inspect_signature;
    const auto run = detail::run_step(world, st, root ? &doc : nullptr, root ? &state : nullptr, how);
    const bool silent = std::find(opts.silent.begin(), opts.silent.end(), st.kind) != opts.silent.end();
    if (root && !silent && !opts.quiet) {
      std::fwrite(run.console.data(), 1, run.console.size(), stdout);
      std::fflush(stdout);
    }
  }
  if (watchdog) watchdog->stop();
  SingleOutcome out;
  const int mine = root ? doc.exit_code() : static_cast<int>(ExitCode::kOk);
  // Every rank returns the same exit code.
  out.exit_code = static_cast<int>(world.allreduce(static_cast<std::int64_t>(mine), comm::ScalarOp::kMax));
  out.pairs_passed_hosts = state.pairs_passed_hosts;
  out.pairs_hosts = state.pairs_hosts;
  // Rank 0 prints the conclusions and writes; a write that fails (a full disk, a path that became a folder)
  // is every rank's usage error, so that all ranks leave with the same exit code.
  comm::agree_on_root(world, [&] {
    // The command's conclusions after its tables, as `run` prints them in its summary: reconciled first.
    report::reconcile_findings(doc.json());
    if (!opts.quiet) {
      const std::string findings = report::render_findings(doc.json()["findings"]);
      std::fwrite(findings.data(), 1, findings.size(), stdout);
      std::fflush(stdout);
    }
    doc.finish("complete", out.exit_code, (comm::now_us() - t0) * 1e-6);
    sinks.write(doc.json());
  });
  return out;
}

}  // namespace fabcheck::suite
