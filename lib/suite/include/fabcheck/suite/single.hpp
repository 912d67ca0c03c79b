#pragma once
/// @file One pipeline per probe: `fabcheck sweep | latency | pairs | incast | scaling` run their
/// probe through the same step adapter as `fabcheck run` (options → validate → measure → section writers →
/// console text; steps are made with make_single_step() of config.hpp), so a standalone command and the same
/// step inside `run` write identical sections. What the standalone form leaves out is the suite around the
/// step: progress, the other steps' sections and the gate; the watchdog only when asked (`sweep -T N`).
#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/model/sweep.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/sinks.hpp"
#include "fabcheck/suite/config.hpp"

namespace fabcheck::suite {

/// How a standalone command runs its steps.
struct SingleOptions {
  std::vector<std::string> argv;  ///< the command line (run.argv)
  std::string json_path;          ///< report file ("" = none), written atomically at the end
  std::string html_path;          ///< the report as one HTML page ("" = none), as `fabcheck report --html`
  /// JUnit XML ("" = none): the check every fail finding fails, `findings.severity=fail#count == 0` (the exit
  /// code's rule as a test case), in the gate's layout (report::junit_xml)
  std::string junit_path;
  /// The command's own outputs ({flag, path}: pairs' --exclude-hostfile, sweep's -J), checked distinct from
  /// the ones above before anything runs.
  std::vector<std::pair<std::string, std::string>> other_outputs;
  std::vector<StepKind> silent;  ///< steps whose console text is not printed (e.g. scaling's own sweep)
  bool verbose = false;          ///< histograms too (default: the command's tables)
  bool quiet = false;            ///< nothing on stdout (`inspect -q`)
  /// inspect: also measure the MPI signature between host leaders (`run` has latency and pairs for that)
  bool inspect_signature = false;
  bool counters = true;  ///< the hosts' loss counters around each step (`--no-counters`: not read)
  /// > 0: run's watchdog over the steps with this timeout (`-T`, nccl-tests' -T; run's default, so that no
  /// command hangs on a frozen rank); on expiry every rank leaves with exit 3 (nccl-tests: 4) after one
  /// stderr line naming the operation and the ranks. 0 = off.
  double timeout_s = Plan{}.timeout_s;
  /// Rank 0: called with each sweep step's result after its section is written (`sweep -J`).
  std::function<void(const model::SweepResult&)> on_sweep;

  /// The usual form: the command line and the report path.
  static SingleOptions of(std::vector<std::string> argv, std::string json_path) {
    SingleOptions o;
    o.argv = std::move(argv);
    o.json_path = std::move(json_path);
    return o;
  }
  /// A copy with the HTML page and JUnit outputs set (a command's `--html`, `--junit`; "" = none).
  SingleOptions with_outputs(std::string html, std::string junit) const {
    SingleOptions o = *this;
    o.html_path = std::move(html);
    o.junit_path = std::move(junit);
    return o;
  }
  /// A copy with `counters` set (a command's `--no-counters`).
  SingleOptions with_counters(bool on) const {
    SingleOptions o = *this;
    o.counters = on;
    return o;
  }
};

/// What rank 0 learned beyond the exit code.
struct SingleOutcome {
  int exit_code = 0;                            ///< 0, or 1 when the report holds a `fail` finding
  std::vector<std::string> pairs_passed_hosts;  ///< its hosts without a confirmed fault
  std::size_t pairs_hosts = 0;                  ///< all its hosts
};

/// The outputs of a command that writes a report ("" = not asked for): the JSON report, its HTML page and a
/// JUnit file whose one check is the exit code's rule (a `fail` finding fails it), so that a CI job that
/// reads JUnit fails exactly when the command exits 1.
report::Sinks report_sinks(const std::string& json_path, const std::string& html_path,
                           const std::string& junit_path);

/// Runs `steps` in order on every rank (collective). Rank 0 prints each step's console text on stdout as it
/// finishes and writes the report (`run.config` = the steps' effective options, `topology`, the steps'
/// sections, `findings`). @throws UsageError when a step's options are invalid, its probe cannot run here
/// (the case `run` reports as a skipped section) or the report path is not writable — on every rank alike;
/// RuntimeFailure from the probe.
SingleOutcome run_single(const comm::Communicator& world, const std::vector<Step>& steps,
                         const SingleOptions& opts);

}  // namespace fabcheck::suite
