#pragma once
/// @file The suite runner of `fabcheck run` (DESIGN §1/§2): runs the plan's probes in order on every
/// rank, contains each probe's failure (its `run.sections` entry says `failed` with the reason, the rest
/// runs), makes all ranks agree on each outcome before going on, rewrites the report atomically after every
/// probe (status `incomplete` until the end), evaluates the gate and prints the summary (rank 0).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/suite/config.hpp"

namespace fabcheck::suite {

/// Options of one run (from the command line).
struct RunOptions {
  std::vector<std::string> argv;  ///< the command line (run.argv)
  std::string json_path;          ///< report path (written after every probe)
  std::string junit_path;         ///< JUnit XML of the gate ("" = none)
  std::string exclude_hostfile;   ///< hostfile with the hosts that passed ("" = none)
  std::string html_path;          ///< the final report as one HTML page ("" = none)
  /// The files the run read ({flag, path}: --config, --criteria): no output may be one of them.
  std::vector<std::pair<std::string, std::string>> inputs;
  bool quiet = false;           ///< no progress on stderr
  bool force_progress = false;  ///< progress even when stderr is not a terminal
  bool verbose = false;         ///< every probe's tables and histograms on the console (default: compact)
};

/// Outcome of one step on one rank.
struct StepOutcome {
  enum class Status { kOk = 0, kSkipped = 1, kFailed = 2 } status = Status::kOk;  ///< ordered by severity
  std::string reason;  ///< why skipped/failed ("" for ok)
};

/// Checks every enabled step's options with its probe's validate() (the same on every rank, no
/// communication).
/// @throws UsageError "/<step>: <probe's message>".
void validate_plan_options(const Plan& plan);

/// Names of the probes compiled into this binary ("sweep", ...), for --dry-run and the skipped reason.
std::vector<std::string> available_probes();

/// Runs the plan. Collective over `world`. Returns the exit code (0 ok, 1 a fail finding, 3 a failed
/// section); on rank 0 the report is at opts.json_path. A hung operation ends the process through the
/// watchdog (exit 3).
int run_suite(const comm::Communicator& world, const Plan& plan, const RunOptions& opts);

}  // namespace fabcheck::suite
