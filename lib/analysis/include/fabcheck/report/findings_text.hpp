#pragma once
/// @file The findings as console lines, the same for `run`'s summary and every standalone probe command
/// (commands print their conclusions, not only their tables). Comment lines (`#`), so that
/// nccl-tests table parsers skip them.
#include <nlohmann/json.hpp>

#include <string>

namespace fabcheck::report {

/// How many findings of each severity an array holds (anything that is not an object or has another severity
/// is not counted).
struct FindingCounts {
  int fail = 0, warn = 0, info = 0;
};
FindingCounts count_findings(const nlohmann::json& findings);

/// "# findings: F fail, W warn, I info" and one "#   [sev] CODE: message" line per fail, then per warn
/// finding (info findings are counted, not listed), each headline followed by up to 4 "#          also: CODE
/// (severity): message" lines — the evidence other probes gave for it (report::reconcile_findings).
/// @param findings the report's `findings` array, reconciled.
std::string render_findings(const nlohmann::json& findings);

}  // namespace fabcheck::report
