// `fabcheck report REPORT.json --html OUT.html`: renders a report as one self-contained HTML page (offline,
// no MPI).
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "command.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/html.hpp"

namespace fabcheck::app {
namespace {

struct ReportCli {
  std::string report, html;
};

// Reads a report file and checks that it is one this fabcheck can read. Stand-in for the shared report loader
// (report::load_report of lib/report/load.hpp, same contract) until it is on main.
// @throws UsageError "<what> <path>: <problem> (<fix>)".
nlohmann::json load_report_file(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw UsageError(fmt::format("{} {}: cannot read: {} (give an existing report JSON file)", what, path,
                                 std::strerror(errno)));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw UsageError(
        fmt::format("{} {}: the file is empty (give a report written by fabcheck --json)", what, path));
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const bool at_end = e.byte >= text.size();
    throw UsageError(fmt::format("{} {}: {} at byte {} (give a complete report written by fabcheck --json)",
                                 what, path, at_end ? "truncated JSON" : "invalid JSON", e.byte));
  }
  if (!j.is_object() || !j.contains("schema_version") || !j["schema_version"].is_number_integer()) {
    throw UsageError(
        fmt::format("{} {}: not a fabcheck report (no integer schema_version; give a report written by "
                    "fabcheck --json)",
                    what, path));
  }
  const auto v = j["schema_version"].get<long long>();
  if (v > report::kSchemaVersion) {
    throw UsageError(
        fmt::format("{} {}: schema_version {} is newer than this fabcheck reads ({}; use a newer fabcheck)",
                    what, path, v, report::kSchemaVersion));
  }
  return j;
}

std::function<int(const RunContext&)> setup_report(CLI::App& sub) {
  auto cli = std::make_shared<ReportCli>();
  sub.add_option("report", cli->report, "A report JSON written by fabcheck (run, sweep, import, ...)")
      ->required();
  sub.add_option("--html", cli->html,
                 "Write one self-contained HTML page (inline SVG plots, no script, works offline)")
      ->required();
  sub.footer(
      "The page shows at the top the score, the transport verdict, the gate result and the findings; then\n"
      "busBw vs size per collective, latency histograms and percentiles, the pairs heatmap, incast, scaling\n"
      "and the environment. Sections the run skipped or failed say why.\n"
      "Exit: 0 written, 2 bad input (not a report, a newer schema_version, a truncated file, unwritable "
      "path).");
  return [cli](const RunContext&) -> int {
    report::check_writable(cli->html, "--html");
    const auto rep = load_report_file(cli->report, "report");
    report::write_html(cli->html, rep, "--html");
    return 0;
  };
}

const Registrar kReport{{"report", "Render a report as one self-contained HTML page: --html FILE (offline)",
                         false, 92, setup_report}};

}  // namespace
}  // namespace fabcheck::app
