#pragma once
/// @file The verdict block of `fabcheck run` (the summary is the first thing printed and the
/// last): the verdict line (PASS / PASS with warnings / FAIL / INCOMPLETE and why), the headline findings
/// naming hosts and links (report::render_findings), the transport verdict, the score with what it means, the
/// steps with their times, the gate, and a last line that repeats the verdict next to the report path. Pure:
/// reads a finished report document.
#include <nlohmann/json.hpp>

#include <string>

namespace fabcheck::report {

/// What the report does not hold itself.
struct SummaryFacts {
  int nranks = 0;                    ///< ranks of the run
  int nhosts = 0;                    ///< hosts of the run
  double duration_s = 0;             ///< wall time of the run
  double budget_s = 0;               ///< the plan's budget (sum of the enabled steps')
  std::string report_path;           ///< where the JSON was written
  std::string gate_disabled_reason;  ///< why there is no gate ("" when the gate ran)
};

/// The verdict word of a finished report: "PASS" (exit 0, no warn finding), "PASS with N warning(s)",
/// "FAIL" (exit 1), "INCOMPLETE" (exit 3 or a run that did not finish).
std::string verdict_word(const nlohmann::json& doc);

/// The facts as a finished report records them (topology.nranks, topology.hosts, run.duration_s,
/// run.budget_s, the reason of a skipped run.sections.gate): `run` prints its first screen from them, and
/// `fabcheck report FILE` prints the same screen again from the saved file.
SummaryFacts summary_facts_of(const nlohmann::json& doc, std::string report_path);

/// The block (every line starts with '#', so nccl-tests parsers skip it). `doc` is the finished report
/// (run.exit_code set, findings reconciled).
std::string render_summary(const nlohmann::json& doc, const SummaryFacts& facts);

}  // namespace fabcheck::report
