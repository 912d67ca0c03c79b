// `fabcheck compare A.json B.json [--label A --label B] [--json OUT] [--html OUT]`: two reports side by side,
// offline (no MPI). Exit 0 when the comparison was made (whatever it found), 2 for bad input.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <future>
#include <memory>
#include <set>

#include "command.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/report/compare.hpp"
#include "fabcheck/report/compare_render.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/gate.hpp"
#include "fabcheck/report/load.hpp"

namespace fabcheck::app {
namespace {

struct CompareCli {
  std::string a, b, json, html;
  std::vector<std::string> labels;
  double alpha = 0.01;
  double min_delta_pct = 10.0;
};

nlohmann::json side_info(const nlohmann::json& rep) {
  nlohmann::json info = {{"schema_version", rep["schema_version"]}};
  if (rep.contains("tool") && rep["tool"].is_object())
    info["tool_version"] = rep["tool"].value("version", nlohmann::json());
  if (rep.contains("run") && rep["run"].is_object())
    info["started"] = rep["run"].value("started", nlohmann::json());
  if (rep.contains("topology") && rep["topology"].is_object()) {
    const auto& t = rep["topology"];
    info["nranks"] = t.value("nranks", nlohmann::json());
    info["hosts"] =
        t.contains("hosts") && t["hosts"].is_array() ? nlohmann::json(t["hosts"].size()) : nlohmann::json();
  }
  if (rep.contains("transport") && rep["transport"].is_object())
    info["transport_verdict"] = rep["transport"].value("verdict", nlohmann::json());
  return info;
}

// One side, as what the comparison needs of it: each run's metrics (the document is freed once they are
// taken: two 2048-host reports must not be held at once), the first run's identity and each run's
// rank count.
struct LoadedSide {
  std::vector<report::MetricSet> runs;
  nlohmann::json info;
  std::vector<nlohmann::json> nranks;
};

void take(LoadedSide& side, const nlohmann::json& rep) {
  if (side.runs.empty()) side.info = side_info(rep);
  side.nranks.push_back(rep.contains("topology") && rep["topology"].is_object()
                            ? rep["topology"].value("nranks", nlohmann::json())
                            : nlohmann::json());
  side.runs.push_back(report::extract_metrics(rep));
}

// One side: a report, or several runs of one fabric given as "A1.json,A2.json" (each loaded and checked; a
// file whose own name holds a comma is taken whole). A run given twice, or runs with different rank counts,
// are bad input.
LoadedSide load_runs(const std::string& list, const char* side) {
  LoadedSide runs;
  std::error_code ec;
  if (std::filesystem::is_regular_file(list, ec)) {
    take(runs, report::load_report(list, side, report::compare_load_options()));
    return runs;
  }
  std::set<std::filesystem::path> seen;
  std::vector<std::string> paths;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = list.find(',', start);
    const std::string path =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (path.empty()) {
      throw UsageError(
          fmt::format("{}: empty file name in '{}'; give one report or several separated by "
                      "commas (A1.json,A2.json)",
                      side, list));
    }
    const auto canonical = std::filesystem::weakly_canonical(path, ec);
    if (!seen.insert(ec ? std::filesystem::path(path) : canonical).second) {
      throw UsageError(fmt::format("{}: {} is given twice; give each run of a side once", side, path));
    }
    take(runs, report::load_report(path, side, report::compare_load_options()));
    paths.push_back(path);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (std::size_t i = 1; i < runs.runs.size(); ++i) {
    const auto& n0 = runs.nranks[0];
    const auto& ni = runs.nranks[i];
    if (n0.is_number() && ni.is_number() && n0 != ni) {
      throw UsageError(
          fmt::format("{}: the runs of one side must be of one fabric: {} has topology.nranks {}, {} "
                      "has {}; compare runs of the same size",
                      side, paths[0], n0.dump(), paths[i], ni.dump()));
    }
  }
  return runs;
}

std::function<int(const RunContext&)> setup_compare(CLI::App& sub) {
  auto cli = std::make_shared<CompareCli>();
  sub.add_option("a", cli->a,
                 "Report A (the reference: before, or RoCE); several runs of it: A1.json,A2.json")
      ->required();
  sub.add_option("b", cli->b,
                 "Report B (compared against A: after, or InfiniBand); several runs: B1.json,B2.json")
      ->required();
  sub.add_option("--label", cli->labels,
                 "Names of A and B in the output (give twice: --label roce --label ib)")
      ->allow_extra_args(false);
  sub.add_option("--json,-J,--out", cli->json,
                 "Write the comparison as a report (schema_version, compare section)");
  sub.add_option("--html", cli->html, "Write the comparison as a self-contained HTML page");
  sub.add_option("--alpha", cli->alpha,
                 "Holm-adjusted p-value below which a difference is beyond noise (0.01)")
      ->check(CLI::Range(1e-9, 0.5));
  sub.add_option("--min-delta", cli->min_delta_pct, "Smallest |delta| in percent called a difference (10)")
      ->check(CLI::Range(0.0, 1000.0));
  sub.footer(
      "Every metric both reports hold (sweep points: time, algbw, busbw, per-iteration p50/p99; latency\n"
      "percentiles; incast goodput, efficiency, fairness, impact; pairs bandwidth and latency; scaling "
      "groups,\n"
      "workloads, alpha-beta fit; the score), side by side with delta % = (B - A)/|A| and which is better.\n"
      "A difference is beyond run-to-run noise when a two-sided Mann-Whitney U test on the raw "
      "per-iteration\n"
      "samples, Holm-corrected over all tests, gives p < 0.01 AND |delta| >= 10 %. Metrics without raw "
      "samples\n"
      "(imported results, averages) say 'noise unknown'. Samples within one run cannot show a drift that\n"
      "lasts a whole run; give a side several runs (comma-separated) and a difference must also exceed 3x\n"
      "the run-to-run spread (|ln(B/A)| >= 3 ln(max/min) of the runs of either side).\n"
      "Exit: 0 the comparison was made (whatever it found; use gate for pass/fail), 2 bad input (not a "
      "report,\n"
      "a newer schema_version, truncated JSON, no metric in common).");
  return [cli](const RunContext& ctx) -> int {
    const auto t0 = std::chrono::steady_clock::now();
    if (cli->labels.size() == 1 || cli->labels.size() > 2) {
      throw UsageError(
          fmt::format("--label: given {} time(s); give it twice, for A then B (--label roce --label ib)",
                      cli->labels.size()));
    }
    // The page is the comparison's own (render_compare_html), made from the result computed below.
    auto result = std::make_shared<report::CompareResult>();
    report::Sinks sinks;
    for (const auto& [list, side] : {std::pair{cli->a, "A"}, std::pair{cli->b, "B"}}) {
      std::size_t start = 0;
      while (start <= list.size()) {
        const auto comma = list.find(',', start);
        sinks.input(side, list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    }
    sinks.json("--json", cli->json).add({"--html", cli->html, [result](const nlohmann::json&) {
                                           return report::render_compare_html(*result);
                                         }});
    sinks.check();
    // The two sides are read at once, B on a second thread (a 2048-host report is 171 MB of JSON).
    // A's error is the one reported when both are bad: its exception leaves this scope first, and the
    // future's destructor waits for B.
    auto loading_b = std::async(std::launch::async, [&] { return load_runs(cli->b, "B"); });
    LoadedSide a = load_runs(cli->a, "A");
    LoadedSide b = loading_b.get();
    report::CompareSide sa{cli->a, cli->labels.empty() ? "A" : cli->labels[0], a.info};
    report::CompareSide sb{cli->b, cli->labels.empty() ? "B" : cli->labels[1], b.info};
    // CLI11's Range lets nan through (every comparison with nan is false): refuse what is not a finite
    // number.
    if (!std::isfinite(cli->alpha) || cli->alpha <= 0 || cli->alpha > 0.5)
      throw UsageError(
          fmt::format("--alpha: {} is not a p-value threshold (give e.g. 0.01, in (0, 0.5])", cli->alpha));
    if (!std::isfinite(cli->min_delta_pct) || cli->min_delta_pct < 0 || cli->min_delta_pct > 1000)
      throw UsageError(
          fmt::format("--min-delta: {} is not a percentage (give e.g. 10, 0 to 1000)", cli->min_delta_pct));
    report::CompareRule rule;
    rule.alpha = cli->alpha;
    rule.min_delta = cli->min_delta_pct / 100.0;
    const report::SideMetrics side_a = report::merge_runs(std::move(a.runs));
    const report::SideMetrics side_b = report::merge_runs(std::move(b.runs));
    *result = report::compare_sides(side_a, side_b, sa, sb, rule);

    std::fputs(report::render_compare(*result).c_str(), stdout);
    std::fflush(stdout);
    if (sinks.any()) {
      report::Document doc(ctx.argv);
      report::add_compare(doc, *result);
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      doc.finish("complete", 0, secs);
      sinks.write(doc.json());
    }
    return 0;
  };
}

const Registrar kCompare{
    {"compare", "Two reports side by side (A vs B), differences tested against run-to-run noise, offline",
     false, 93, setup_compare}};

}  // namespace
}  // namespace fabcheck::app
