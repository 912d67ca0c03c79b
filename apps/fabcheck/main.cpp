// fabcheck: CLI wiring, MPI init/finalize, exit codes (DESIGN §7). Thin: every command lives in
// cmd_<name>.cpp.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "command.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/build_info.hpp"
#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/input_limits.hpp"
#include "fabcheck/suite/probe_spec.hpp"
#include "huge_pages.hpp"
#include "list_options.hpp"

namespace fabcheck::app {

std::vector<CommandSpec>& registry() {
  static std::vector<CommandSpec> r;
  return r;
}

CommandSpec probe_command(suite::StepKind kind,
                          std::function<std::function<int(const RunContext&)>(CLI::App& sub)> setup) {
  const auto& spec = suite::probe_spec(kind);
  return {std::string(spec.command), std::string(spec.help), true, spec.help_order, std::move(setup)};
}

std::map<std::string, std::function<bool()>>& mpi_deciders() {
  static std::map<std::string, std::function<bool()>> m;
  return m;
}

namespace {

// The rank a launcher (mpirun, srun) gave this process, read from its environment; nullopt when none did.
std::optional<int> launcher_rank_env() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    if (const char* v = std::getenv(var)) return std::atoi(v);
  }
  return std::nullopt;
}

bool under_launcher() {
  return launcher_rank_env().has_value();
}

}  // namespace

int launcher_rank() {
  return launcher_rank_env().value_or(0);
}

bool launched_by_mpi() {
  return under_launcher();
}

namespace {

// Rank 0 prints the one line; the other ranks leave a moment later. A launcher (mpirun) kills the job when
// the first process exits non-zero: were it one of the silent ranks, rank 0 could be killed before its line
// left (seen under load: exit code 2 and no fabcheck line at all).
constexpr auto kSilentRankExitDelay = std::chrono::milliseconds(1500);

/// `mpi`: MPI is initialized, and every rank throws its usage error alike (options are validated on every
/// rank, files on rank 0 and agreed): the silent ranks leave as soon as every rank has arrived here, after
/// rank 0's line is out, instead of the full delay.
void print_error_once(const std::string& msg, bool mpi) {
  if (launcher_rank() == 0) {
    std::fprintf(stderr, "fabcheck: error: %s\n", clip_error_line(msg).c_str());
    std::fflush(stderr);
  } else if (!mpi && under_launcher()) {
    std::this_thread::sleep_for(kSilentRankExitDelay);
  }
  // Not every rank got here (an error on some ranks only): no MPI_Finalize, which would wait for the others;
  // a non-zero exit makes the launcher end the job.
  if (mpi && !comm::all_arrive_within(std::chrono::duration<double>(kSilentRankExitDelay).count())) {
    std::fflush(stdout);
    std::_Exit(static_cast<int>(ExitCode::kUsage));
  }
}

std::string features_line() {
  // nccl: the backend is compiled in, against the NCCL headers of this version (the library found at run
  // time may be newer; `sweep --backend nccl` prints the one it loaded).
  return fmt::format("features: nccl={} ibverbs={} mpi=yes",
                     build::kHaveNccl
                         ? fmt::format("yes (NCCL {} headers, CUDA runtime)", build::kNcclHeaderVersion)
                         : std::string("no"),
                     build::kHaveIbverbs ? "yes" : "no");
}

}  // namespace

int main_impl(int argc, char** argv) {
  CLI::App app{"fabcheck: tells a cluster team the truth about their GPU/HPC network fabric", "fabcheck"};
  app.require_subcommand(0, 1);
  bool show_version = false, list = false, list_options = false;
  app.add_flag("--version", show_version, "Print the version and the compiled-in features");
  app.add_flag("--list", list, "List subcommands and collectives");
  std::uint64_t max_input_mb = 0;
  app.add_option(
         "--max-input-mb", max_input_mb,
         "Size cap in MiB for every input file (reports, configs, tables, NCCL logs; default per kind: "
         "docs/DESIGN.md §7); wins over FABCHECK_MAX_INPUT_MB")
      ->check(CLI::Range(std::uint64_t{1}, core::kMaxInputCapMiB));
  // A parent option may follow the subcommand: `fabcheck report --max-input-mb 512 …`.
  app.fallthrough();
  app.add_flag(
      "--list-options", list_options,
      "Every probe's option table (config key, flags, default) as JSON, beside its subcommand's flags");

  auto& reg = registry();
  std::stable_sort(reg.begin(), reg.end(),
                   [](const CommandSpec& a, const CommandSpec& b) { return a.order < b.order; });
  std::vector<std::pair<CLI::App*, std::function<int(const RunContext&)>>> runners;
  std::vector<bool> needs_mpi;
  for (auto& spec : reg) {
    CLI::App* sub = app.add_subcommand(spec.name, spec.help);
    runners.emplace_back(sub, spec.setup(*sub));
    needs_mpi.push_back(spec.needs_mpi);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    if (launcher_rank() == 0) app.exit(e);
    return 0;
  } catch (const CLI::CallForAllHelp& e) {
    if (launcher_rank() == 0) app.exit(e);
    return 0;
  } catch (const CLI::ParseError& e) {
    // One line naming the flag; CLI11's messages already name it.
    print_error_once(fmt::format("{} (see fabcheck --help)", e.what()), false);
    return static_cast<int>(ExitCode::kUsage);
  }

  core::set_input_cap_mib(max_input_mb);
  if (show_version) {
    if (launcher_rank() == 0) std::printf("fabcheck %s\n%s\n", build::kVersion, features_line().c_str());
    return 0;
  }
  if (list_options) {
    if (launcher_rank() == 0) std::printf("%s\n", list_options_json(app).c_str());
    return 0;
  }
  if (list) {
    if (launcher_rank() == 0) {
      std::printf("subcommands:\n");
      for (const auto& spec : reg) std::printf("  %-10s %s\n", spec.name.c_str(), spec.help.c_str());
      std::printf("collectives:");
      for (auto c : core::all_collectives())
        std::printf(" %.*s", static_cast<int>(core::name(c).size()), core::name(c).data());
      std::printf("\n");
    }
    return 0;
  }

  RunContext ctx;
  ctx.argv.assign(argv, argv + argc);
  for (std::size_t i = 0; i < runners.size(); ++i) {
    if (!runners[i].first->parsed()) continue;
    std::unique_ptr<comm::Runtime> runtime;
    try {
      auto decider = mpi_deciders().find(runners[i].first->get_name());
      if (decider != mpi_deciders().end() ? decider->second() : needs_mpi[i]) {
        runtime = std::make_unique<comm::Runtime>(&argc, &argv);
        ctx.mpi = true;
      }
      return runners[i].second(ctx);
    } catch (const UsageError& e) {
      print_error_once(e.what(), ctx.mpi && comm::Runtime::initialized());
      return static_cast<int>(ExitCode::kUsage);
    } catch (const nlohmann::json::type_error& e) {
      if (ctx.mpi) {  // a document this process built: a fault of ours
        std::fprintf(stderr, "fabcheck: error: %s\n", clip_error_line(e.what()).c_str());
        comm::abort_world(static_cast<int>(ExitCode::kRuntime));
        return static_cast<int>(ExitCode::kRuntime);
      }
      // An offline command reads only the files it was given: a field of the wrong type there (a severity
      // that is a number, sections that are a list) is bad input, not a runtime failure.
      std::string what = e.what();
      if (const auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
      print_error_once("an input file holds a field of the wrong type: " + what +
                           " (give a report or config as fabcheck writes it, or fix the field)",
                       false);
      return static_cast<int>(ExitCode::kUsage);
    } catch (const RuntimeFailure& e) {
      std::fprintf(stderr, "fabcheck: error: %s\n", clip_error_line(e.what()).c_str());
      if (ctx.mpi) comm::abort_world(static_cast<int>(ExitCode::kRuntime));
      return static_cast<int>(ExitCode::kRuntime);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fabcheck: error: %s\n", clip_error_line(e.what()).c_str());
      if (ctx.mpi) comm::abort_world(static_cast<int>(ExitCode::kRuntime));
      return static_cast<int>(ExitCode::kRuntime);
    }
  }
  if (launcher_rank() == 0) std::printf("%s", app.help().c_str());
  return 0;
}

}  // namespace fabcheck::app

int main(int argc, char** argv) {
  fabcheck::app::restart_on_huge_pages(argc, argv);
  return fabcheck::app::main_impl(argc, argv);
}
