// `fabcheck run`: the main job — one suite from a config, a report written as it goes, an acceptance gate, no
// hangs.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include "command.hpp"
#include "fabcheck/comm/agree.hpp"
#include "fabcheck/comm/backend.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/suite/config.hpp"
#include "fabcheck/suite/runner.hpp"
#include "fabcheck/suite/watchdog.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct RunCli {
  std::string config, criteria, json = "fabcheck-report.json", junit, exclude_hostfile, backend, html;
  double timeout_s = 0;
  bool dry_run = false, quiet = false, progress = false, show_config = false, verbose = false;
  bool no_counters = false;
};

// Rank 0 runs `fn` (which may throw UsageError); every rank gets its result or throws the same UsageError.
// Rank 0 reads the files; every rank gets their JSON, or the same usage error.
nlohmann::json on_root_agreed(const comm::Communicator& world, const std::function<nlohmann::json()>& fn) {
  return nlohmann::json::parse(comm::agree_on_root_value(world, [&] { return fn().dump(); }));
}

std::function<int(const RunContext&)> setup_run(CLI::App& sub) {
  auto cli = std::make_shared<RunCli>();
  sub.add_option("--config,-C", cli->config,
                 "Suite config JSON (default: the embedded configs/default.json)");
  sub.add_option(
      "--criteria", cli->criteria,
      "Gate criteria: a config with a gate section or a bare {\"gate\": {\"checks\": [...]}} (replaces the "
      "config's checks)");
  sub.add_option("--json,-J,--out", cli->json, "Report file, rewritten atomically after every probe")
      ->capture_default_str();
  sub.add_option("--junit", cli->junit, "Write the gate as JUnit XML (one testcase per check)");
  sub.add_option("--html", cli->html,
                 "Write the report as one self-contained HTML page at the end (also when the gate fails)");
  sub.add_option("--exclude-hostfile", cli->exclude_hostfile,
                 "Write a hostfile with the hosts that passed every per-host gate check");
  CLI::Option* timeout_opt = sub.add_option(
      "--timeout,-T", cli->timeout_s,
      "Watchdog: seconds an operation may go without progress before the run is stopped (exit 3; default "
      "the config's timeout_s, 120)");
  sub.add_option(
      "--backend", cli->backend,
      "Collective backend of the sweep step: mpi (host buffers) or nccl (CUDA buffers, one rank per "
      "GPU; NCCL's own log gives the transport section). Default: the config's sweep.backend, mpi");
  sub.add_flag("--no-counters", cli->no_counters, kNoCountersHelp);
  sub.add_flag("--dry-run", cli->dry_run, "Print the expanded plan and its time budget; measure nothing");
  sub.add_flag("--show-config", cli->show_config,
               "Print the effective config (every option of every step, defaults filled in; a valid "
               "--config) and exit");
  sub.add_flag("--quiet,-q", cli->quiet, "No progress line on stderr");
  sub.add_flag(
      "--verbose,-v", cli->verbose,
      "Every probe's full console output (nccl-tests tables, per-pair latency, histograms, inventory); "
      "default: a compact line or few per probe, the summary first and last");
  sub.add_flag("--progress", cli->progress, "Progress line on stderr even when it is not a terminal");
  return [cli, timeout_opt](const RunContext& ctx) -> int {
    auto world = comm::Communicator::world();
    // nan and inf pass every comparison-based check, and 0 given on the command line would silently mean "the
    // config's value": refuse all three, and more than a week.
    const bool given = timeout_opt->count() > 0;
    if (given && (!std::isfinite(cli->timeout_s) || cli->timeout_s < 0.1 || cli->timeout_s > 604800)) {
      throw UsageError(
          fmt::format("--timeout: {} is not a valid number of seconds (give e.g. 60)", cli->timeout_s));
    }
    // Rank 0 reads the files; every rank validates the same text, so every rank fails the same way.
    const auto files = on_root_agreed(world, [&] {
      nlohmann::json out;
      out["config"] = cli->config.empty()
                          ? suite::parse_json_text(suite::default_config_text(), "embedded default")
                          : suite::load_json_file(cli->config, "--config");
      out["criteria"] =
          cli->criteria.empty() ? nlohmann::json(nullptr) : suite::load_criteria(cli->criteria, "--criteria");
      return out;
    });
    suite::Plan plan = suite::make_plan(
        files["config"], cli->config.empty() ? "embedded default" : fmt::format("--config {}", cli->config));
    if (cli->timeout_s > 0) plan.timeout_s = cli->timeout_s;
    if (cli->no_counters) plan.counters = false;
    if (!files["criteria"].is_null()) {
      plan.gate_checks = files["criteria"];
      plan.gate_source = fmt::format("--criteria {}", cli->criteria);
      for (auto& st : plan.steps) {
        if (st.kind == suite::StepKind::kGate) {
          st.enabled = true;
          st.disabled_reason.clear();
        }
      }
    }
    if (!cli->backend.empty()) {
      if (cli->backend != "mpi" && cli->backend != "nccl") {
        throw UsageError(fmt::format("--backend: unknown backend \"{}\" (use mpi or nccl)", cli->backend));
      }
      suite::set_option(plan, suite::StepKind::kSweep, "backend", cli->backend, "--backend");
    }
    suite::validate_plan_options(plan);
    if (cli->show_config) {
      if (world.rank() == 0) std::printf("%s\n", suite::effective_config(plan).dump(2).c_str());
      return 0;
    }
    if (cli->dry_run) {
      if (world.rank() == 0) {
        std::string out = suite::render_plan(plan, world.size(), static_cast<int>(world.hosts().size()));
        std::string probes;
        for (const auto& p : suite::available_probes()) probes += " " + p;
        out += fmt::format("# probes built into this binary:{}\n", probes.empty() ? " none" : probes);
        out += fmt::format("# report: {} (dry run: nothing measured, nothing written)\n", cli->json);
        std::fputs(out.c_str(), stdout);
      }
      return 0;
    }
    // Asked for explicitly on the command line, a backend that cannot run here is a usage error (exit 2,
    // nothing written); from a config it is a skipped sweep section (DESIGN §7).
    if (cli->backend == "nccl") {
      if (const std::string why = comm::nccl_unusable_reason(world); !why.empty()) throw UsageError(why);
    }
    suite::RunOptions ro;
    ro.argv = ctx.argv;
    ro.json_path = cli->json;
    ro.junit_path = cli->junit;
    ro.exclude_hostfile = cli->exclude_hostfile;
    ro.html_path = cli->html;
    ro.inputs = {{"--config", cli->config}, {"--criteria", cli->criteria}};
    ro.quiet = cli->quiet;
    ro.verbose = cli->verbose;
    ro.force_progress = cli->progress;
    return suite::run_suite(world, plan, ro);
  };
}

const Registrar kRun{{"run",
                      "The main job: a suite from a config, a report written as it goes, a gate, no hangs",
                      true, 5, setup_run}};

}  // namespace
}  // namespace fabcheck::app
