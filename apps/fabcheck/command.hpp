#pragma once
// Subcommand registry of the fabcheck executable. Each cmd_<name>.cpp registers itself with a static
// Registrar, so adding a subcommand touches no shared file.
#include <CLI/CLI.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fabcheck/suite/config.hpp"

namespace fabcheck::app {

/// What a subcommand's runner gets.
struct RunContext {
  std::vector<std::string> argv;  ///< the command line as typed
  bool mpi = false;               ///< MPI was initialized for this command
};

/// A subcommand: `setup` adds its options to `sub` and returns the function that runs it (exit code).
struct CommandSpec {
  std::string name;        ///< subcommand name, e.g. "sweep"
  std::string help;        ///< one line for --help
  bool needs_mpi = false;  ///< initialize MPI before running (measurement commands)
  int order = 100;         ///< position in --help (DESIGN §7 order)
  std::function<std::function<int(const RunContext&)>(CLI::App& sub)> setup;
};

/// A probe's command: its name, help line and place in --help from the probe's row (suite::probe_spec).
CommandSpec probe_command(suite::StepKind kind,
                          std::function<std::function<int(const RunContext&)>(CLI::App& sub)> setup);

/// All registered commands.
std::vector<CommandSpec>& registry();

/// Optional per-command decision, made after parsing, whether to initialize MPI (overrides
/// CommandSpec::needs_mpi); keyed by command name. E.g. `inspect` runs offline with --nccl-log and under MPI
/// otherwise. May throw UsageError.
std::map<std::string, std::function<bool()>>& mpi_deciders();

/// Registers a command at static-initialization time.
struct Registrar {
  explicit Registrar(CommandSpec spec) { registry().push_back(std::move(spec)); }
};

/// The launcher's rank from the environment (OMPI/PMIx/PMI/Slurm), 0 when not launched by MPI. Valid before
/// MPI_Init, so that usage errors are printed once.
int launcher_rank();

/// True when a launcher (mpirun, srun) started this process (its rank variable is set). Valid before
/// MPI_Init.
bool launched_by_mpi();

}  // namespace fabcheck::app
