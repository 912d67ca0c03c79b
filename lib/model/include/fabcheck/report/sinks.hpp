#pragma once
/// @file A command's output files as sinks of its finished report (DESIGN §2). Every command that writes
/// files declares them here with the files it reads: Sinks::check() refuses, before anything is measured or
/// read, an output that cannot be written, that is another output of the command or one of its inputs;
/// Sinks::write() makes every text first, writes each to a new temporary file beside its target, and renames
/// them only when all are on disk — a failure (a full disk, a file size limit) leaves every target as it was
/// and no temporary file. The console is the command's stdout, not a sink.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabcheck::report {

/// One output: the flag that asked for it, its path ("" = not asked for) and the text it is, made from the
/// finished report.
struct Sink {
  std::string flag;  ///< "--json", "--html", "--junit", "--exclude-hostfile", "-J/--output_file", ...
  std::string path;  ///< "" = the user did not ask for it
  /// What the file holds, from the finished report. Empty: the command writes the file itself as it goes
  /// (nccl-tests' `-J`), so the sink is only checked.
  std::function<std::string(const nlohmann::json& report)> text;
};

/// The multiplexer of one command's outputs.
class Sinks {
 public:
  /// A file the command reads ("" = none): no output may be it.
  Sinks& input(std::string flag, std::string path);
  /// An output; one whose path is "" is skipped.
  Sinks& add(Sink s);
  /// The report itself as JSON (two-space indent; foreign bytes that are not UTF-8 replaced).
  Sinks& json(std::string flag, std::string path);
  /// Whether any output was asked for.
  bool any() const;
  /// Every asked output is writable and is neither another output nor an input (compared by device and
  /// inode where the files exist, by normalized name where they do not). Writes nothing.
  /// @throws UsageError "<flag>: <path> ..." with the fix.
  void check() const;
  /// Writes every asked output that has a text, all or none. @throws UsageError naming the flag whose file
  /// could not be written.
  void write(const nlohmann::json& report) const;

 private:
  std::vector<std::pair<std::string, std::string>> inputs_;
  std::vector<Sink> outputs_;
};

/// The report as the JSON sink writes it.
std::string json_text(const nlohmann::json& report);

/// Checks, before any measurement, that `path` can be written (its directory exists and is writable; an
/// existing file is a regular file and writable). Writes nothing.
/// @param flag the flag named in the error ("--json").
/// @throws UsageError "<flag>: cannot write <path>: <reason>".
void check_writable(const std::string& path, std::string_view flag);

/// Writes `text` to `path` atomically: a temporary file created exclusively beside it (never a name another
/// process planted), the mode of the file it replaces (0644 less the umask for a new one), then rename(2).
/// A symbolic link, device, FIFO, socket or directory at `path` is refused; on any failure (EFBIG under
/// `ulimit -f` included) the temporary file is removed. @throws UsageError naming `flag` and the path.
void write_text_atomic(const std::string& path, const std::string& text, std::string_view flag);

/// Refuses an output that is one of the inputs or another output of the same command, compared by
/// device and inode where the files exist, by name where they do not yet. Each entry is {flag, path}; empty
/// paths are skipped. @throws UsageError naming both flags and the fix.
void check_distinct_paths(const std::vector<std::pair<std::string, std::string>>& inputs,
                          const std::vector<std::pair<std::string, std::string>>& outputs);

}  // namespace fabcheck::report
