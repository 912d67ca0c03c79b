// The metric catalogue (model/metrics.hpp): lookups, the suffix -> unit rule over the whole table,
// and compare's coverage: every metric extract_metrics takes from the real reports of tests/data is a
// compared catalogue entry with the same direction.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "fabcheck/model/metrics.hpp"
#include "fabcheck/report/compare.hpp"
#include "fabcheck/report/gate.hpp"

namespace model = fabcheck::model;
namespace report = fabcheck::report;
using model::BetterIs;

namespace {

// The last '.'-segment of a field or path, without `[]` and `#count`.
std::string leaf(std::string_view s) {
  if (const auto h = s.find('#'); h != std::string_view::npos) s = s.substr(0, h);
  if (const auto d = s.rfind('.'); d != std::string_view::npos) s.remove_prefix(d + 1);
  std::string out(s);
  while (out.size() >= 2 && out.substr(out.size() - 2) == "[]") out.resize(out.size() - 2);
  return out;
}

// Every report of tests/data, outside the fuzz corpus: a JSON object with schema_version (a whole report, or
// a fixture holding some of its sections, like pairs_throttled_host.json).
std::vector<std::pair<std::filesystem::path, nlohmann::json>> reports() {
  std::vector<std::pair<std::filesystem::path, nlohmann::json>> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(FABCHECK_TEST_DATA)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    if (e.path().string().find("fuzz-corpus") != std::string::npos) continue;
    std::ifstream in(e.path());
    auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("schema_version")) out.emplace_back(e.path(), std::move(j));
  }
  return out;
}

}  // namespace

TEST(MetricCatalogue, LooksUpBySectionAndField) {
  const model::Metric& bus = model::metric("sweeps", "busbw_gbps");
  EXPECT_EQ(bus.unit, "GB/s");
  EXPECT_EQ(bus.better, BetterIs::kHigher);
  EXPECT_TRUE(bus.compared);
  EXPECT_EQ(bus.gate_path, "sweeps.<collective>.busbw_gbps@<size>");
  EXPECT_EQ(model::metric("sweeps", "per_iter.p99_us").unit, "us");
  EXPECT_EQ(model::metric("sweeps", "per_iter.p99_us").better, BetterIs::kLower);
  EXPECT_EQ(model::metric("incast", "congestion_impact.p99").unit, "ratio");
  EXPECT_EQ(model::metric("incast", "congestion_impact.p99").better, BetterIs::kLower);
  EXPECT_EQ(model::metric("scaling", "exposed_s").unit, "s");
  EXPECT_EQ(model::metric("scaling", "busbw_gbps").report_path, "scaling.groups[].busbw_gbps");
  EXPECT_EQ(model::metric("score", "scaling_efficiency").better, BetterIs::kHigher);
  EXPECT_EQ(model::metric("sweeps", "wrong").unit, "count");
  EXPECT_FALSE(model::metric("sweeps", "wrong").compared);
  EXPECT_EQ(model::find_metric("sweeps", "no_such_metric"), nullptr);
  EXPECT_EQ(model::find_metric("nosection", "busbw_gbps"), nullptr);
  EXPECT_THROW(model::metric("sweeps", "no_such_metric"), std::logic_error);
  EXPECT_EQ(model::name(BetterIs::kHigher), "higher");
  EXPECT_EQ(model::name(BetterIs::kLower), "lower");
  EXPECT_EQ(model::name(BetterIs::kNone), "none");
}

TEST(MetricCatalogue, LooksUpByReportLocation) {
  EXPECT_EQ(model::location_shape(".findings[12].evidence"), "findings[].evidence");
  EXPECT_EQ(model::location_shape("pairs.bw_gbps[0][13]"), "pairs.bw_gbps[][]");
  const auto at = [](std::string_view loc) {
    const model::Metric* m = model::find_metric_at(loc);
    return m ? std::string(m->section) + "." + std::string(m->field) : std::string("none");
  };
  EXPECT_EQ(at("sweeps[0].points[37].busbw_gbps"), "sweeps.busbw_gbps");
  EXPECT_EQ(at("sweeps[2].points[1].per_iter.p99_us"), "sweeps.per_iter.p99_us");
  EXPECT_EQ(at("sweeps[1].avg_busbw_gbps"), "sweeps.avg_busbw_gbps");
  EXPECT_EQ(at("latency[4].per_pair[2].p50_us"), "latency.per_pair.p50_us");
  EXPECT_EQ(at("latency[4].p50_us"), "latency.p50_us");
  EXPECT_EQ(at("scaling.model.allreduce.alpha_us"), "scaling.alpha_us");
  EXPECT_EQ(at("scaling.groups[1].busbw_gbps"), "scaling.busbw_gbps");
  EXPECT_EQ(at("pairs.bw_gbps[0][3]"), "pairs.bw_gbps");
  EXPECT_EQ(at("pairs.links[3].bw_gbps"), "pairs.links.bw_gbps");
  EXPECT_EQ(at("score.scaling_efficiency"), "score.scaling_efficiency");
  // Shapes that are not entries: an index where a key belongs, a key where an index belongs, a longer path.
  EXPECT_EQ(at("scaling.model[0].alpha_us"), "none");
  EXPECT_EQ(at("sweeps.points.busbw_gbps"), "none");
  EXPECT_EQ(at("sweeps[0].points[1].busbw_gbps.x"), "none");
  EXPECT_EQ(at("transport.verdict"), "none");
  // unit_at: the catalogue, else the suffix rule, else nothing.
  EXPECT_EQ(model::unit_at("incast[0].congestion_impact.mean"), "ratio");
  EXPECT_EQ(model::unit_at("incast[0].completion_p50_us"), "us");  // suffix rule, not an entry
  EXPECT_EQ(model::unit_at("pairs.lat_min_us[1][0]"), "us");       // a matrix cell
  EXPECT_EQ(model::unit_at("scaling.workloads[0].grad_bytes"), "bytes");
  EXPECT_EQ(model::unit_at("transport.verdict"), "");
  EXPECT_EQ(model::unit_at("run.status"), "");
}

TEST(MetricCatalogue, SuffixRule) {
  EXPECT_EQ(model::unit_from_suffix("busbw_gbps"), "GB/s");
  EXPECT_EQ(model::unit_from_suffix("per_iter.p99_us"), "us");
  EXPECT_EQ(model::unit_from_suffix("exposed_s"), "s");
  EXPECT_EQ(model::unit_from_suffix("size_bytes"), "bytes");
  EXPECT_EQ(model::unit_from_suffix("congestion_impact.p99"), std::nullopt);
  EXPECT_EQ(model::unit_from_suffix("status"), std::nullopt);
  EXPECT_EQ(model::unit_from_suffix("clock_offset_us_max"), std::nullopt);  // the suffix ends the name
  EXPECT_EQ(model::unit_from_suffix("_us"), std::nullopt);
}

// Every entry: its unit is the suffix rule's, or ratio/count for a name without a unit suffix; (section,
// field) and report paths unique; the report path and gate path start with the section and end with the
// field's name; a compared entry has a direction.
TEST(MetricCatalogue, EveryEntryFollowsTheSuffixRule) {
  const std::set<std::string_view> units = {model::kUnitGBps,  model::kUnitUs,    model::kUnitS,
                                            model::kUnitBytes, model::kUnitRatio, model::kUnitCount};
  std::set<std::pair<std::string_view, std::string_view>> keys;
  std::set<std::string_view> paths;
  ASSERT_GE(model::metric_catalogue().size(), 30u);
  for (const auto& m : model::metric_catalogue()) {
    const std::string what = std::string(m.section) + "." + std::string(m.field);
    EXPECT_TRUE(units.count(m.unit)) << what << ": unit " << m.unit;
    if (const auto u = model::unit_from_suffix(leaf(m.field))) {
      EXPECT_EQ(*u, m.unit) << what;
    } else {
      EXPECT_TRUE(m.unit == model::kUnitRatio || m.unit == model::kUnitCount) << what << ": " << m.unit;
    }
    EXPECT_TRUE(keys.insert({m.section, m.field}).second) << what << " twice";
    EXPECT_FALSE(m.meaning.empty()) << what;
    if (m.compared) {
      EXPECT_NE(m.better, BetterIs::kNone) << what;
    }
    if (!m.report_path.empty()) {
      EXPECT_TRUE(paths.insert(m.report_path).second) << m.report_path << " twice";
      // The counters of a step live in the run section of that step (run.sections.<step>.counters).
      const std::string prefix = m.section == "counters" ? "run.sections." : std::string(m.section);
      EXPECT_EQ(m.report_path.substr(0, prefix.size()), prefix) << what;
      EXPECT_EQ(leaf(m.report_path), leaf(m.field)) << what;
      EXPECT_EQ(model::find_metric_at(m.report_path), &m) << what;  // no earlier entry shadows it
    }
    if (!m.gate_path.empty()) {
      const std::string prefix = m.section == "counters" ? "run.sections." : std::string(m.section) + ".";
      EXPECT_EQ(m.gate_path.substr(0, prefix.size()), prefix) << what;
    }
  }
}

// Each gate path form, its placeholders filled in, is a valid gate metric path.
TEST(MetricCatalogue, GatePathsParse) {
  const std::pair<std::string_view, std::string_view> fill[] = {
      {"<collective>", "allreduce"}, {"<kind>", "p2p"},   {"<size>", "8"},    {"<k>", "2"},
      {"<test>", "ib_write_bw"},     {"<n>", "2"},        {"<name>", "demo"}, {"<bw|lat>", "bw"},
      {"<key>", "severity"},         {"<value>", "fail"}, {"<step>", "pairs"}};
  std::size_t n = 0;
  for (const auto& m : model::metric_catalogue()) {
    if (m.gate_path.empty()) continue;
    std::string p(m.gate_path);
    for (const auto& [from, to] : fill) {
      for (auto at = p.find(from); at != std::string::npos; at = p.find(from)) p.replace(at, from.size(), to);
    }
    EXPECT_EQ(p.find('<'), std::string::npos) << m.gate_path;
    EXPECT_NO_THROW(report::parse_metric_path(p)) << p;
    ++n;
  }
  EXPECT_GE(n, 30u);
}

// compare's extractor over every real report of tests/data: each metric and matrix it produces is a
// compared entry of the catalogue with the direction the row carries; every compared entry is produced by
// some report, and every section of the catalogue's compared entries is reached.
TEST(MetricCatalogue, CoversEveryMetricCompareExtractsFromTheRealReports) {
  const auto files = reports();
  ASSERT_GE(files.size(), 5u);  // reports/*.json (4) and pairs_throttled_host.json
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& [f, doc] : files) {
    const auto set = report::extract_metrics(doc);
    EXPECT_FALSE(set.metrics.empty()) << f;
    for (const auto& m : set.metrics) {
      const model::Metric* e = model::find_metric(m.section, m.metric);
      ASSERT_NE(e, nullptr) << f << ": " << m.section << "." << m.metric << " is not in the catalogue";
      EXPECT_TRUE(e->compared) << m.section << "." << m.metric;
      EXPECT_EQ(e->better, m.better) << m.section << "." << m.metric;
      seen.insert({m.section, m.metric});
    }
    for (const auto& l : set.links) {
      const model::Metric* e = model::find_metric("pairs", l.metric);
      ASSERT_NE(e, nullptr) << f << ": pairs." << l.metric;
      EXPECT_TRUE(e->compared);
      EXPECT_EQ(e->better, l.better) << l.metric;
      seen.insert({"pairs", l.metric});
    }
  }
  for (const auto& m : model::metric_catalogue()) {
    if (!m.compared) continue;
    EXPECT_TRUE(seen.count({std::string(m.section), std::string(m.field)}))
        << m.section << "." << m.field << " is marked compared but no real report produced it";
  }
}

TEST(MetricCatalogue, Text) {
  const std::string t = model::metric_catalogue_text();
  EXPECT_EQ(t.rfind("section", 0), 0u) << t;
  // One line per entry after the header.
  EXPECT_EQ(static_cast<std::size_t>(std::count(t.begin(), t.end(), '\n')),
            model::metric_catalogue().size() + 1);
  for (const char* s :
       {"sweeps", "busbw_gbps", "GB/s", "higher", "lower", "sweeps.<collective>.busbw_gbps@<size>",
        "latency.<kind>.p99_us@<size>", "- (pairs.bw_min_gbps)", "ratio", "count"}) {
    EXPECT_NE(t.find(s), std::string::npos) << s << " not in\n" << t;
  }
  // The busbw line carries its unit and direction.
  const auto at = t.find("sweeps.<collective>.busbw_gbps@<size>");
  const std::string line = t.substr(at, t.find('\n', at) - at);
  EXPECT_NE(line.find(" GB/s "), std::string::npos) << line;
  EXPECT_NE(line.find(" higher "), std::string::npos) << line;
}
