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

/// An error line fit for a terminal: a word longer than 160 characters — a 100k-character
/// value echoed back — keeps its first 120 characters and says how long it was; control characters become
/// '?'; the line stops at 2000 characters.
inline std::string clip_error_line(const std::string& line) {
  std::string out;
  std::size_t i = 0;
  while (i < line.size() && out.size() < 2000) {
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ') ++j;
    std::string word = line.substr(i, j - i);
    if (word.size() > 160)
      word = word.substr(0, 120) + "... (" + std::to_string(word.size()) + " characters)";
    for (char& c : word)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    out += word;
    if (j < line.size()) out += ' ';
    i = j + 1;
  }
  if (out.size() > 2000) out = out.substr(0, 2000) + "...";
  return out;
}

/// Failure while measuring (backend error, lost rank, timeout). Exit code 3.
class RuntimeFailure : public std::runtime_error {
 public:
  /// @param message one line describing the failure, with rank/host where known.
  explicit RuntimeFailure(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace fabcheck
