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
#include "fabcheck/report/topology.hpp"
#include "fabcheck/suite/watchdog.hpp"
#include "steps.hpp"

namespace fabcheck::suite {

void write_page_and_junit(const report::Document& doc, const std::string& html_path,
                          const std::string& junit_path) {
  if (!html_path.empty()) report::write_html(html_path, doc.json(), "--html");
  if (!junit_path.empty()) {
    const nlohmann::json checks = nlohmann::json::array(
        {{{"metric", "findings.severity=fail#count"},
          {"op", "=="},
          {"threshold", 0},
          {"why", "a fail finding: not fit for the job, evidence confirmed (docs/DESIGN.md §5)"}}});
    const auto g = report::evaluate_gate(doc.json(), checks, "the command's findings");
    report::write_text_atomic(junit_path, report::junit_xml(g), "--junit");
  }
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
  comm::agree_on_root(world, [&] {
    for (const auto& [path, flag] : {std::pair{opts.json_path, "--json"}, std::pair{opts.html_path, "--html"},
                                     std::pair{opts.junit_path, "--junit"}}) {
      if (!path.empty()) report::check_writable(path, flag);
    }
    auto outputs = opts.other_outputs;
    outputs.insert(outputs.begin(),
                   {{"--json", opts.json_path}, {"--html", opts.html_path}, {"--junit", opts.junit_path}});
    report::check_distinct_paths({}, outputs);
  });

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
    if (!opts.json_path.empty()) doc.write_atomic(opts.json_path);
    write_page_and_junit(doc, opts.html_path, opts.junit_path);
  });
  return out;
}

}  // namespace fabcheck::suite
