#pragma once
/// @file Error types and the exit codes of DESIGN §7, shared by every subcommand.
#include <stdexcept>
#include <string>

namespace fabcheck {

/// Process exit codes (DESIGN §7). Identical across subcommands.
enum class ExitCode : int {
  kOk = 0,       ///< success (gate passed)
  kFail = 1,     ///< a `fail` finding: wrong data, a failed gate check
  kUsage = 2,    ///< usage or input error, or an explicitly requested feature that cannot run here
  kRuntime = 3,  ///< runtime failure: rank lost, timeout, backend error
};

/// Bad input (flag, config, log, report file). `what()` is one line naming the field and the fix. Exit
/// code 2.
class UsageError : public std::runtime_error {
 public:
  /// @param message one line: "<field>: <what is wrong> (<fix>)".
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

/// Failure while measuring (backend error, lost rank, timeout). Exit code 3.
class RuntimeFailure : public std::runtime_error {
 public:
  /// @param message one line describing the failure, with rank/host where known.
  explicit RuntimeFailure(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace fabcheck
