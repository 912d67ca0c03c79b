// `fabcheck report REPORT.json --html OUT.html`: renders a report as one self-contained HTML page (offline,
// no MPI).
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "command.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/html.hpp"
#include "fabcheck/report/load.hpp"

namespace fabcheck::app {
namespace {

struct ReportCli {
  std::string report, html;
};

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
    report::check_distinct_paths({{"report", cli->report}}, {{"--html", cli->html}});
    // the page never lists the host-pair schedules (hosts² entries): they stay out of memory
    const auto rep = report::load_report(cli->report, "report", report::html_load_options());
    report::write_html(cli->html, rep, "--html");
    return 0;
  };
}

const Registrar kReport{{"report", "Render a report as one self-contained HTML page: --html FILE (offline)",
                         false, 92, setup_report}};

}  // namespace
}  // namespace fabcheck::app
