#include "fabcheck/suite/runner.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>

#include "fabcheck/comm/agree.hpp"
#include "fabcheck/comm/phase.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/probes/topology.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/gate.hpp"
#include "fabcheck/report/html.hpp"
#include "fabcheck/report/reconcile.hpp"
#include "fabcheck/report/summary_text.hpp"
#include "fabcheck/report/topology.hpp"
#include "fabcheck/suite/watchdog.hpp"
#include "step_watch.hpp"
#include "steps.hpp"

namespace fabcheck::suite {

using nlohmann::json;

std::vector<std::string> available_probes() {
  std::vector<std::string> out;
  for (StepKind k : all_steps()) {
    if (const auto* a = detail::adapter_for(k)) out.emplace_back(a->probe);
  }
  return out;
}

void validate_plan_options(const Plan& plan) {
  for (const auto& st : plan.steps) {
    if (!st.enabled) continue;
    const auto* a = detail::adapter_for(st.kind);
    if (!a) continue;
    try {
      a->validate(st);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}: /{}: {}", plan.source, config_key(st.kind), e.what()));
    }
  }
}

namespace {

std::string status_word(StepOutcome::Status s) {
  switch (s) {
    case StepOutcome::Status::kOk:
      return "ok";
    case StepOutcome::Status::kSkipped:
      return "skipped";
    case StepOutcome::Status::kFailed:
      return "failed";
  }
  return "failed";
}

// Everything the watchdog thread and the progress display may read while the main thread runs.
struct Shared {
  std::mutex mu;
  json snapshot;  // the report as last written (rank 0)
  std::string json_path;
  std::string current_section;  // section being measured
  std::string current_step;
  int step_index = 0, step_count = 0;
  double run_start_us = 0, step_start_us = 0;
  double step_budget_s = 0, budget_after_s = 0;  // budget of the current step, of the enabled steps after it
  double done_budget_s = 0, done_actual_s = 0;   // finished steps (with a budget): budgeted and taken
  bool progress = false;
  bool progress_shown = false;
};

void clear_progress(Shared& sh) {
  if (sh.progress_shown) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    sh.progress_shown = false;
  }
}

void show_progress(Shared& sh) {
  std::lock_guard<std::mutex> lk(sh.mu);
  if (!sh.progress || sh.current_step.empty()) return;
  const double now = comm::now_us();
  const double elapsed = (now - sh.run_start_us) / 1e6;
  const double in_step = (now - sh.step_start_us) / 1e6;
  // The budgets scaled by what the finished steps took against theirs (an estimate that learns),
  // and a step that outruns its scaled budget says so instead of counting down to zero.
  const double pace = sh.done_budget_s > 0 ? std::max(0.25, sh.done_actual_s / sh.done_budget_s) : 1.0;
  const double step_left = sh.step_budget_s * pace - in_step;
  const double left = std::max(0.0, step_left) + sh.budget_after_s * pace;
  std::string op = comm::current_phase().name;
  if (op.size() > 48) op = op.substr(0, 45) + "...";
  std::string over;
  if (sh.step_budget_s > 0 && in_step > sh.step_budget_s)
    over = fmt::format(" (this step over its {:.0f} s budget)", sh.step_budget_s);
  std::fprintf(stderr, "\r\033[K[fabcheck run] %d/%d %s: %s | %.0f s elapsed, ~%.0f s left%s", sh.step_index,
               sh.step_count, sh.current_step.c_str(), op.c_str(), elapsed, left, over.c_str());
  std::fflush(stderr);
  sh.progress_shown = true;
}

// Writes the report with the sections not reached yet marked, status incomplete until finish().
void write_report(report::Document& doc, Shared& sh) {
  doc.write_atomic(sh.json_path);
  std::lock_guard<std::mutex> lk(sh.mu);
  sh.snapshot = doc.json();
}

void mark_pending(report::Document& doc, const Plan& plan) {
  for (const auto& st : plan.steps) {
    const std::string sec(section_name(st.kind));
    if (!st.enabled) {
      doc.set_section(sec, report::SectionStatus::kSkipped, st.disabled_reason);
    } else {
      doc.set_section(sec, report::SectionStatus::kSkipped,
                      "not reached: the run had not got to this step when the report was written");
    }
    if (!doc.json().contains(sec)) doc.json()[sec] = nullptr;
  }
}

/// The report written when the watchdog fires: the last snapshot, the current section failed, run.watchdog
/// and a WATCHDOG_TIMEOUT fail finding (one host named when one is missing), exit 3.
void write_watchdog_report(Shared& sh, const comm::Communicator& world, const WatchdogTimeout& t) {
  json snap;
  std::string section;
  {
    std::lock_guard<std::mutex> lk(sh.mu);
    snap = sh.snapshot;
    section = sh.current_section;
    clear_progress(sh);
  }
  report::Document d;
  d.json() = snap;
  if (!section.empty()) d.set_section(section, report::SectionStatus::kFailed, t.message());
  json missing = json::array();
  for (int r : t.missing_ranks) {
    missing.push_back({{"rank", r}, {"host", world.hosts_of_ranks()[static_cast<std::size_t>(r)]}});
  }
  json silent = json::array();
  for (std::size_t i = 0; i < t.silent_ranks.size(); ++i) {
    const int r = t.silent_ranks[i];
    silent.push_back({{"rank", r},
                      {"host", world.hosts_of_ranks()[static_cast<std::size_t>(r)]},
                      {"silent_s", i < t.silent_for_s.size() ? t.silent_for_s[i] : 0.0}});
  }
  d.json()["run"]["watchdog"] = {{"operation", t.operation},         {"timeout_s", t.timeout_s},
                                 {"stalled_s", t.stalled_s},         {"missing", missing},
                                 {"missing_hosts", t.missing_hosts}, {"silent", silent},
                                 {"arrival_table", t.arrival_table}, {"message", t.message()}};
  report::Finding f;
  f.severity = report::Severity::kFail;
  f.code = "WATCHDOG_TIMEOUT";
  f.message = t.message();
  f.evidence = d.json()["run"]["watchdog"];
  // One host named: it is the place of the fault (never reaches the good-hosts file).
  if (t.missing_hosts.size() == 1) f.evidence["host"] = t.missing_hosts.front();
  f.remedy =
      "look at the named ranks/hosts (stuck process, dead link, firewall); raise --timeout only if the "
      "operation is legitimately slow";
  d.add_finding(f);
  d.finish("incomplete", static_cast<int>(ExitCode::kRuntime), (comm::now_us() - sh.run_start_us) / 1e6);
  d.write_atomic(sh.json_path);
}

/// The enabled budget of the steps after `st` (the progress line's ETA).
double budget_after(const Plan& plan, const Step& st) {
  double sum = 0;
  bool after = false;
  for (const auto& o : plan.steps) {
    if (after && o.enabled) sum += o.budget_s;
    if (&o == &st) after = true;
  }
  return sum;
}

void step_findings(report::Document& doc, const Step& st, const StepOutcome& agreed, double elapsed) {
  const std::string sec(section_name(st.kind));
  if (!doc.json().contains(sec)) doc.json()[sec] = nullptr;
  if (agreed.status == StepOutcome::Status::kFailed) {
    report::Finding f;
    f.severity = report::Severity::kWarn;
    f.code = "SECTION_FAILED";
    f.message = fmt::format("the {} step failed: {}", config_key(st.kind), agreed.reason);
    f.evidence = {{"section", sec}};
    f.remedy = "see the reason; the other sections ran";
    doc.add_finding(f);
  }
  if (st.budget_s > 0 && elapsed > 2 * st.budget_s && agreed.status == StepOutcome::Status::kOk) {
    report::Finding f;
    f.severity = report::Severity::kInfo;
    f.code = "OVER_BUDGET";
    f.message = fmt::format("the {} step took {:.1f} s, more than twice its budget of {} s",
                            config_key(st.kind), elapsed, st.budget_s);
    f.evidence = {{"section", sec}, {"elapsed_s", elapsed}, {"budget_s", st.budget_s}};
    f.remedy = "lower the step's sizes/iterations or raise budget_s in the config";
    doc.add_finding(f);
  }
}

/// Runs one enabled step on every rank: progress state, phase marker, the hosts' counters around it, the
/// adapter, agreement; rank 0 records it and prints its console text. Returns whether the step failed.
bool run_one_step(const comm::Communicator& world, const Plan& plan, const Step& st, const RunOptions& opts,
                  Shared& sh, report::Document& doc, detail::SuiteState& state, int idx) {
  const bool root = world.rank() == 0;
  const std::string sec(section_name(st.kind));
  {
    std::lock_guard<std::mutex> lk(sh.mu);
    sh.current_section = sec;
    sh.current_step = std::string(config_key(st.kind));
    sh.step_index = idx;
    sh.step_start_us = comm::now_us();
    sh.step_budget_s = st.budget_s;
    sh.budget_after_s = budget_after(plan, st);
  }
  detail::StepSettings how;
  how.detail = opts.verbose ? model::ConsoleDetail::kVerbose : model::ConsoleDetail::kCompact;
  how.counters = plan.counters;
  how.contain = true;  // the watchdog of `run` is always on
  const detail::StepRun run =
      detail::run_step(world, st, root ? &doc : nullptr, root ? &state : nullptr, how);
  const StepOutcome& agreed = run.agreed;
  const double elapsed = run.elapsed_s;
  if (st.budget_s > 0) {
    std::lock_guard<std::mutex> lk(sh.mu);
    sh.done_budget_s += st.budget_s;
    sh.done_actual_s += elapsed;
  }
  if (root) {
    step_findings(doc, st, agreed, elapsed);
    {
      std::lock_guard<std::mutex> lk(sh.mu);
      clear_progress(sh);
    }
    std::fputs(run.console.c_str(), stdout);
    if (agreed.status != StepOutcome::Status::kOk) {
      std::printf("# %s: %s: %s\n", config_key(st.kind).data(), status_word(agreed.status).c_str(),
                  agreed.reason.c_str());
    }
    std::fflush(stdout);
    write_report(doc, sh);
  }
  return agreed.status == StepOutcome::Status::kFailed;
}

/// Rank 0: reconciles the findings, evaluates the gate and prints it; returns the gate result (none when the
/// gate step is off or failed) and sets `gate_failed` when it could not be evaluated.
std::optional<report::GateResult> run_gate_step(report::Document& doc, const Plan& plan, bool& gate_failed) {
  // One fault, one headline; fail -> warn -> info: before the gate counts them.
  report::reconcile_findings(doc.json());
  if (!plan.step(StepKind::kGate).enabled) return std::nullopt;
  try {
    auto gate = report::evaluate_gate(doc.json(), plan.gate_checks,
                                      plan.gate_source.empty() ? plan.source : plan.gate_source);
    report::add_gate(doc, gate);
    std::fputs(report::render_gate(gate).c_str(), stdout);
    return gate;
  } catch (const std::exception& e) {
    doc.set_section("gate", report::SectionStatus::kFailed, e.what());
    gate_failed = true;
    return std::nullopt;
  }
}

/// The run's outputs: the report, its page, and the gate's JUnit and good-hosts files — those two only when
/// the gate was evaluated (`gate` null: checked, not written).
report::Sinks run_sinks(const RunOptions& opts, const std::optional<report::GateResult>& gate) {
  report::Sinks sinks;
  for (const auto& [flag, path] : opts.inputs) sinks.input(flag, path);
  sinks.json("--json", opts.json_path).add(report::html_sink("--html", opts.html_path));
  std::function<std::string(const json&)> junit, hosts;
  if (gate) {
    junit = [g = *gate](const json&) { return report::junit_xml(g); };
    hosts = [g = *gate](const json&) { return report::exclude_hostfile_text(g); };
  }
  return std::move(sinks.add({"--junit", opts.junit_path, junit})
                       .add({"--exclude-hostfile", opts.exclude_hostfile, hosts}));
}

}  // namespace

int run_suite(const comm::Communicator& world, const Plan& plan, const RunOptions& opts) {
  const bool root = world.rank() == 0;
  Shared sh;
  sh.json_path = opts.json_path;
  sh.run_start_us = comm::now_us();
  sh.progress = root && !opts.quiet && (opts.force_progress || ::isatty(STDERR_FILENO));
  for (const auto& st : plan.steps) sh.step_count += st.enabled ? 1 : 0;

  comm::agree_on_root(world, [&] { run_sinks(opts, std::nullopt).check(); });
  report::Document doc(opts.argv);
  // The topology section of every command comes from one writer (report::add_topology) with the clocks
  // aligned as a standalone probe aligns them (a run and a standalone probe write the same keys).
  const comm::ClockAlignment clocks = comm::align_clocks(world);
  if (root) {
    doc.json()["run"]["config"] = effective_config(plan);
    doc.json()["run"]["config_source"] = plan.source;
    doc.json()["run"]["timeout_s"] = plan.timeout_s;
    doc.json()["run"]["budget_s"] = plan.total_budget_s();
    report::add_topology(doc, probes::describe_topology(world, "mpi", clocks));
    mark_pending(doc, plan);
    write_report(doc, sh);
  }

  Watchdog watchdog(
      world, plan.timeout_s, [&sh, &world](const WatchdogTimeout& t) { write_watchdog_report(sh, world, t); },
      [&sh] { show_progress(sh); });

  bool any_failed = false;
  int idx = 0;
  detail::SuiteState state;  // rank 0: what steps leave for later ones
  for (const auto& st : plan.steps) {
    if (!st.enabled || st.kind == StepKind::kGate) continue;
    any_failed = run_one_step(world, plan, st, opts, sh, doc, state, ++idx) || any_failed;
  }

  {
    std::lock_guard<std::mutex> lk(sh.mu);
    sh.current_section = "gate";
    sh.current_step = "gate";
  }
  int code = static_cast<int>(ExitCode::kOk);
  std::optional<report::GateResult> gate;
  if (root) {
    gate = run_gate_step(doc, plan, any_failed);
    code = doc.exit_code(any_failed);
  }
  const int exit_code =
      static_cast<int>(world.allreduce(static_cast<std::int64_t>(code), comm::ScalarOp::kMax));
  world.barrier();
  watchdog.stop();
  if (root) {
    const double duration = (comm::now_us() - sh.run_start_us) / 1e6;
    doc.finish(any_failed ? "failed" : "complete", exit_code, duration);
    run_sinks(opts, gate).write(doc.json());
    // From the report as written: `fabcheck report FILE` prints this same screen again.
    const auto facts = report::summary_facts_of(doc.json(), opts.json_path);
    std::fputs(report::render_summary(doc.json(), facts).c_str(), stdout);
    std::fflush(stdout);
  }
  return exit_code;
}

}  // namespace fabcheck::suite
