#pragma once
/// @file Reading a fabcheck report file back (DESIGN §6): the one loader every offline subcommand uses
/// (`gate`, `report`, `compare`, ...), so that a missing, truncated, foreign or too-new file is refused the
/// same way everywhere: one line naming the file and the fix, thrown as UsageError (exit 2).
#include <nlohmann/json.hpp>

#include "fabcheck/core/input_limits.hpp"

#include <string>
#include <string_view>

namespace fabcheck::report {

/// Checks that `doc` is a fabcheck report this build can read: a JSON object with an integer
/// `schema_version` in [1, kSchemaVersion] and `tool: {name: "fabcheck", ...}`.
/// @param doc    the parsed document.
/// @param origin how the error names the input, e.g. "report r.json" or "compare B.json".
/// @throws UsageError "<origin>: is not a fabcheck report (...)" / "<origin>: schema_version N is newer
///         than this fabcheck reads (1) (...)".
void check_report(const nlohmann::json& doc, std::string_view origin);

/// Parses report text (already read) and checks it with check_report.
/// @param text   the file contents.
/// @param origin how errors name the input ("report r.json").
/// @throws UsageError on empty input, invalid or truncated JSON (with line and column), or check_report.
nlohmann::json parse_report_text(std::string_view text, std::string_view origin);

/// Reads a whole input file as text (reports, nccl-tests outputs). Errors read "<origin>: <problem> (<fix>)".
/// @param path    the file. @param origin how errors name the input ("report r.json", "import out.txt").
/// @param kind    what the caller expects, used in the fixes ("report file", "nccl-tests output file").
/// @param cap_mib the size cap of this kind of input (core/input_limits.hpp; FABCHECK_MAX_INPUT_MB
/// overrides).
/// @throws UsageError when the file is missing, a directory, unreadable, a read fails, or it holds more than
/// the cap (also a pipe or a device that never ends). Empty text is returned.
std::string read_input_file(const std::string& path, std::string_view origin, std::string_view kind,
                            std::uint64_t cap_mib = core::kReportCapMiB);

/// Reads and checks one report file: the shared entry point for every command that reads a report.
/// @param path the report file.
/// @param what the argument or flag named in errors ("report", "A", "--baseline"); errors read
///             "<what> <path>: <problem> (<fix>)".
/// @return the whole document (schema_version ≤ kSchemaVersion, tool.name == "fabcheck").
/// @throws UsageError when the file is missing, a directory, unreadable, empty, not valid JSON (truncated),
///         not a fabcheck report (no schema_version or tool), or has a newer schema_version than this build.
nlohmann::json load_report(const std::string& path, std::string_view what = "report");

}  // namespace fabcheck::report
