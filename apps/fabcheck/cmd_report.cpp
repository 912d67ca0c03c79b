// `fabcheck report REPORT.json [--html OUT.html]`: prints a saved report's first screen and renders it as one
// self-contained HTML page (offline, no MPI).
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "command.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/html.hpp"
#include "fabcheck/report/load.hpp"
#include "fabcheck/report/summary_text.hpp"

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
                 "Also write one self-contained HTML page (inline SVG plots, no script, works offline)");
  sub.footer(
      "Prints the report's first screen again, as `fabcheck run` printed it: the verdict, the headline\n"
      "findings, the transport verdict, the score, the steps and the gate. The page shows the same at the "
      "top;\n"
      "then busBw vs size per collective, latency histograms and percentiles, the pairs heatmap, incast,\n"
      "scaling and the environment. Sections the run skipped or failed say why.\n"
      "Exit: 0 printed (and written), 2 bad input (not a report, a newer schema_version, a truncated file,\n"
      "unwritable path).");
  return [cli](const RunContext&) -> int {
    report::Sinks sinks;
    sinks.input("report", cli->report).add(report::html_sink("--html", cli->html));
    sinks.check();
    // the first screen and the page never list the host-pair schedules (hosts² entries): they stay out of
    // memory
    const auto rep = report::load_report(cli->report, "report", report::html_load_options());
    // the screen first: a report it cannot be made from (a field of the wrong type) writes no page either
    const std::string screen = report::render_summary(rep, report::summary_facts_of(rep, cli->report));
    sinks.write(rep);
    std::fwrite(screen.data(), 1, screen.size(), stdout);
    return 0;
  };
}

const Registrar kReport{
    {"report", "Print a saved report's first screen again; --html FILE: as one self-contained page (offline)",
     false, 91, setup_report}};

}  // namespace
}  // namespace fabcheck::app
