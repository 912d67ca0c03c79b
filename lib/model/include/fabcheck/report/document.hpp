#pragma once
/// @file The versioned JSON report (DESIGN §6, `schema_version: 1`): one document, written by rank 0,
/// atomically (temporary file + rename) after every probe. Absent values are `null` with a reason, never NaN.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "fabcheck/report/sinks.hpp"

namespace fabcheck::report {

/// Report schema version written into every document.
inline constexpr int kSchemaVersion = 1;

/// Severity of a finding (DESIGN §5). Only kFail changes the exit code (to 1).
enum class Severity { kInfo, kWarn, kFail };

/// A diagnosis: `{severity, code, message, evidence, remedy}` (DESIGN §5).
struct Finding {
  Severity severity = Severity::kInfo;  ///< info | warn | fail
  std::string code;                     ///< stable upper-case code, e.g. "WRONG_DATA", "RDMA_FALLBACK_SOCKET"
  std::string message;                  ///< one sentence for humans
  nlohmann::json evidence = nlohmann::json::object();  ///< the numbers or lines behind it
  std::string remedy;                                  ///< one line: what to do
};

/// Lowercase severity name ("info", "warn", "fail").
std::string_view name(Severity s);

/// Status of one report section in `run.sections`.
enum class SectionStatus { kOk, kSkipped, kFailed };

/// The report under construction. Holds the JSON tree; section writers fill their keys.
class Document {
 public:
  /// Creates the skeleton: schema_version, tool {name, version, features}, conventions, run {started, argv,
  /// status: incomplete, sections: {}}, findings: [].
  /// @param argv the command line as typed (recorded in run.argv).
  explicit Document(const std::vector<std::string>& argv = {});

  /// The whole tree (for section writers).
  nlohmann::json& json() { return doc_; }
  /// The whole tree, read-only.
  const nlohmann::json& json() const { return doc_; }

  /// Records a section's status in run.sections.<name> = {status, reason}; reason may be empty (null).
  void set_section(std::string_view section, SectionStatus status, std::string_view reason = {});
  /// Appends a finding to `findings`.
  void add_finding(const Finding& f);
  /// True when any finding has severity fail.
  bool has_fail() const;
  /// The exit code of every command that writes a report, decided here only: 3 (core::ExitCode::kRuntime)
  /// when a step failed, 1 (kFail) when a finding has severity fail, else 0. DESIGN §7.
  int exit_code(bool step_failed = false) const;
  /// Sets run.status (complete | incomplete | failed), run.exit_code and run.duration_s.
  void finish(std::string_view status, int exit_code, double duration_s);

  /// Writes the document to `path` atomically (write_text_atomic of sinks.hpp).
  /// @throws UsageError when the directory cannot be written (names the path and errno text).
  void write_atomic(const std::string& path) const;

 private:
  nlohmann::json doc_;
};

/// Current UTC time as ISO 8601 ("2026-11-29T09:45:30Z").
std::string utc_now_iso8601();

}  // namespace fabcheck::report
