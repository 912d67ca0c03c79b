// `fabcheck gate REPORT --criteria FILE`: the acceptance gate offline (no MPI).
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "command.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/model/metrics.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/gate.hpp"
#include "fabcheck/report/html.hpp"
#include "fabcheck/report/load.hpp"
#include "fabcheck/suite/config.hpp"

namespace fabcheck::app {
namespace {

struct GateCli {
  std::string report, criteria, junit, exclude_hostfile, json, html;
  bool quiet = false;
  bool list_metrics = false;
};

std::function<int(const RunContext&)> setup_gate(CLI::App& sub) {
  auto cli = std::make_shared<GateCli>();
  // Required unless --list-metrics (checked in the runner).
  sub.add_option("report", cli->report, "A report JSON written by fabcheck (run, sweep, ...)");
  sub.add_flag("--list-metrics", cli->list_metrics,
               "Print the metric catalogue (section, gate path, unit, better, compared, meaning) and exit");
  sub.add_option(
      "--criteria", cli->criteria,
      "Criteria: a config with a gate section or {\"gate\": {\"checks\": [{metric, op, threshold}]}} "
      "(default: the gate of the config recorded in the report)");
  sub.add_option("--junit", cli->junit, "Write JUnit XML (one testcase per check)");
  sub.add_option("--exclude-hostfile", cli->exclude_hostfile,
                 "Write a hostfile with the hosts that passed every per-host check");
  sub.add_option("--json,-J,--out", cli->json, "Write the report with its gate section replaced to FILE");
  sub.add_option("--html", cli->html, "Also write that report as one self-contained HTML page (offline)");
  sub.footer(
      "Metric paths address the report (DESIGN §6): segments joined by '.'; on an array a NAME selects "
      "entries by\n"
      "collective/kind/pattern/host/receiver/name/code, KEY=VALUE filters, * takes all, [i] one; FIELD@SIZE "
      "reads the\n"
      "point measured at SIZE (out_of_place unless @SIZE:in_place), FIELD@max the largest size measured;\n"
      "#count at the end counts matches.\n"
      "Examples: sweeps.allreduce.busbw_gbps@1G  transport.verdict  latency.p2p.p99_us@8  "
      "score.scaling_efficiency\n"
      "          pairs.suspects#count  transport.per_host.*.verdict  findings.severity=fail#count\n"
      "Operators >= <= == !=. Fail-closed: a metric that is absent or null fails its check (reason "
      "'missing').\n"
      "Units and directions of the metrics: fabcheck gate --list-metrics.\n"
      "Exit: 0 every check passed, 1 a check failed, 2 bad input.");
  return [cli](const RunContext&) -> int {
    if (cli->list_metrics) {
      std::fputs(model::metric_catalogue_text().c_str(), stdout);
      return 0;
    }
    if (cli->report.empty()) throw UsageError("report is required (see fabcheck gate --help)");
    // Without --json nothing writes the document back: the pairs matrices and schedules (hosts² entries, read
    // by no gate metric) stay out of memory.
    const auto partial =
        cli->json.empty() && cli->html.empty() ? report::gate_load_options() : report::LoadOptions{};
    // The outputs, checked before the report is read; their texts come from the gate evaluated below.
    auto g = std::make_shared<report::GateResult>();
    report::Sinks sinks;
    sinks.input("report", cli->report)
        .input("--criteria", cli->criteria)
        .add({"--junit", cli->junit, [g](const nlohmann::json&) { return report::junit_xml(*g); }})
        .add({"--exclude-hostfile", cli->exclude_hostfile,
              [g](const nlohmann::json&) { return report::exclude_hostfile_text(*g); }})
        .json("--json", cli->json)
        .add(report::html_sink("--html", cli->html));
    sinks.check();
    auto rep = report::load_report(cli->report, "report", partial);
    nlohmann::json checks;
    std::string source;
    if (!cli->criteria.empty()) {
      checks = suite::load_criteria(cli->criteria, "--criteria");
      source = cli->criteria;
    } else {
      const auto& cfg =
          rep["run"].is_object() && rep["run"].contains("config") ? rep["run"]["config"] : nlohmann::json();
      if (!cfg.is_object() || !cfg.contains("gate")) {
        throw UsageError(fmt::format("--criteria: {} records no gate; give --criteria FILE", cli->report));
      }
      checks = suite::validate_gate_block(cfg["gate"], "/run/config/gate");
      source = fmt::format("{} (run.config.gate)", cli->report);
      if (checks.empty())
        throw UsageError(fmt::format("--criteria: {} records no checks; give --criteria FILE", cli->report));
    }
    std::vector<std::string> metrics;
    for (const auto& c : checks)
      if (c.is_object() && c.contains("metric") && c["metric"].is_string()) metrics.push_back(c["metric"]);
    if (report::names_skipped(partial, metrics))
      rep = report::load_report(cli->report, "report");  // a check that names a left-out key reads it whole
    *g = report::evaluate_gate(rep, checks, source);
    std::fputs(report::render_gate(*g).c_str(), stdout);
    std::fflush(stdout);
    if (sinks.any()) {
      report::Document doc;
      doc.json() = std::move(rep);  // the last use: no second copy of a large report
      if (!doc.json().contains("findings") || !doc.json()["findings"].is_array())
        doc.json()["findings"] = nlohmann::json::array();
      if (!doc.json().contains("run") || !doc.json()["run"].is_object())
        doc.json()["run"] = nlohmann::json::object();
      report::add_gate(doc, *g);
      sinks.write(doc.json());
    }
    return g->passed ? 0 : 1;
  };
}

const Registrar kGate{{"gate",
                       "Acceptance gate on a report, offline: --criteria FILE, --junit, --exclude-hostfile",
                       false, 95, setup_gate}};

}  // namespace
}  // namespace fabcheck::app
