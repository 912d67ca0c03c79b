// The gate's units: a check's value carries the unit of its metric from the metric catalogue
// (model/metrics.hpp), in the console line (after the parts tests match) and in JUnit; a check whose operator
// runs against the metric's direction still runs.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "fabcheck/model/metrics.hpp"
#include "fabcheck/report/gate.hpp"
#include "fabcheck/report/load.hpp"

using nlohmann::json;
namespace model = fabcheck::model;
namespace report = fabcheck::report;

namespace {

json units_report() {
  return json::parse(R"({
    "schema_version": 1,
    "run": {"status": "complete", "duration_s": 12.5},
    "transport": {"verdict": "rdma"},
    "sweeps": [{"collective": "allreduce", "avg_busbw_gbps": 150.5, "points": [
        {"size_bytes": 1073741824, "placement": "out_of_place", "busbw_gbps": 180.25, "time_us": 9000.5,
         "wrong": 0, "per_iter": {"p99_us": 9100}}]}],
    "latency": [{"kind": "p2p", "pattern": "ring", "size_bytes": 8, "p99_us": 3.5, "stdev_us": 0.25}],
    "incast": [{"receiver": "n1", "fan_in": 2, "size_bytes": 4194304, "incast_efficiency": 0.9,
                "congestion_impact": {"mean": 1.5, "p99": 2.5}}],
    "pairs": {"bw_gbps": [[null, 40.0], [38.0, null]]},
    "score": {"scaling_efficiency": 0.82},
    "findings": [{"severity": "warn", "code": "X"}]
  })");
}

report::GateResult gate(const std::string& metric, const std::string& op, const json& threshold) {
  return report::evaluate_gate(
      units_report(), json::array({{{"metric", metric}, {"op", op}, {"threshold", threshold}}}), "test");
}

report::GateCheckResult one_rgu(const std::string& metric, const std::string& op, const json& threshold) {
  const auto g = gate(metric, op, threshold);
  EXPECT_EQ(g.checks.size(), 1u);
  return g.checks.at(0);
}

// The check's line of the console text (the second line).
std::string console(const std::string& metric, const std::string& op, const json& threshold) {
  const std::string text = report::render_gate(gate(metric, op, threshold));
  const auto nl = text.find('\n');
  return text.substr(nl + 1, text.find('\n', nl + 1) - nl - 1);
}

}  // namespace

TEST(GateUnits, EachCheckCarriesItsMetricsUnit) {
  // The unit is the metric's, whatever the check's operator and threshold.
  const std::pair<const char*, std::vector<const char*>> by_unit[] = {
      {"GB/s",
       {"sweeps.allreduce.busbw_gbps@1G", "sweeps.allreduce.avg_busbw_gbps", "pairs.bw_gbps.[0].[1]"}},
      // stdev_us: not an entry, the suffix rule
      {"us",
       {"sweeps.allreduce.time_us@1G", "sweeps.allreduce.per_iter@1G.p99_us", "latency.p2p.p99_us@8",
        "latency.p2p.stdev_us@8"}},
      {"count", {"sweeps.allreduce.wrong@1G", "findings.severity=warn#count", "pairs.bw_gbps#count"}},
      {"ratio",
       {"incast.fan_in=2.incast_efficiency@4M", "incast.fan_in=2.congestion_impact@4M.p99",
        "score.scaling_efficiency"}},
      {"s", {"run.duration_s"}},
      {"", {"score.no_such_metric"}},  // missing: no value, no unit
  };
  for (const auto& [unit, metrics] : by_unit) {
    for (const char* metric : metrics) {
      EXPECT_EQ(one_rgu(metric, "<=", 1e6).unit, unit) << metric;
      EXPECT_EQ(one_rgu(metric, ">=", 0).unit, unit) << metric;
    }
  }
  // A word has no unit.
  EXPECT_EQ(one_rgu("transport.verdict", "==", "rdma").unit, "");
  EXPECT_EQ(one_rgu("run.status", "==", "complete").unit, "");
}

// The console line: the unit follows the value, after the prefix tests grep (`^  FAIL  <metric>`) and before
// the reason, which is unchanged.
TEST(GateUnits, ConsoleLineShowsTheUnitAfterTheValue) {
  EXPECT_EQ(console("sweeps.allreduce.busbw_gbps@1G", ">=", 100),
            "  PASS  sweeps.allreduce.busbw_gbps@1G >= 100  value 180.25 GB/s");
  EXPECT_EQ(console("sweeps.allreduce.busbw_gbps@1G", ">=", 200),
            "  FAIL  sweeps.allreduce.busbw_gbps@1G >= 200  value 180.25 GB/s  (failed: "
            "sweeps[0].points[0].busbw_gbps = 180.25, not >= 200)");
  EXPECT_EQ(console("findings.severity=warn#count", "==", 0),
            "  FAIL  findings.severity=warn#count == 0  value 1 count  (failed: 1 == 0 is false)");
  EXPECT_EQ(console("transport.verdict", "==", "rdma"),
            "  PASS  transport.verdict == \"rdma\"  value \"rdma\"");
  EXPECT_EQ(console("score.no_such_metric", ">=", 0)
                .rfind("  FAIL  score.no_such_metric >= 0  value -  (missing", 0),
            0u);
}

TEST(GateUnits, JUnitShowsTheUnit) {
  const auto g = report::evaluate_gate(
      units_report(),
      json::array(
          {{{"metric", "sweeps.allreduce.busbw_gbps@1G"}, {"op", ">="}, {"threshold", 100}},
           {{"metric", "latency.p2p.p99_us@8"}, {"op", "<="}, {"threshold", 1}, {"why", "8 B floor"}}}),
      "test");
  const std::string xml = report::junit_xml(g);
  EXPECT_NE(xml.find("<system-out>value 180.25 GB/s</system-out>"), std::string::npos) << xml;
  // A failure: the reason, why, and last the value with its unit.
  EXPECT_NE(xml.find(">failed: latency[0].p99_us = 3.5, not &lt;= 1\nwhy: 8 B floor\nvalue 3.5 us</failure>"),
            std::string::npos)
      << xml;
}

// The catalogue says busBw is better higher; a check that bounds it from above still runs and is judged by
// its operator alone.
TEST(GateUnits, AnOperatorAgainstTheDirectionStillRuns) {
  ASSERT_EQ(model::metric("sweeps", "busbw_gbps").better, model::BetterIs::kHigher);
  auto c = one_rgu("sweeps.allreduce.busbw_gbps@1G", "<=", 200);
  EXPECT_TRUE(c.passed) << c.reason;
  EXPECT_EQ(c.unit, "GB/s");
  c = one_rgu("sweeps.allreduce.busbw_gbps@1G", "<=", 100);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.reason.rfind("failed: ", 0), 0u) << c.reason;
  ASSERT_EQ(model::metric("latency", "p99_us").better, model::BetterIs::kLower);
  EXPECT_TRUE(one_rgu("latency.p2p.p99_us@8", ">=", 1).passed);
}

// The gate paths of the catalogue read, on a real report, values of the catalogue's unit.
TEST(GateUnits, CatalogueGatePathsOnARealReport) {
  const auto rep = report::load_report(std::string(FABCHECK_TEST_DATA) + "/reports/vfabric-4x2.json");
  const std::pair<std::string, std::string> checks[] = {
      {"sweeps.allreduce.busbw_gbps@4M", "GB/s"},
      {"sweeps.allreduce.per_iter@4M.p99_us", "us"},
      {"latency.p2p.p99_us@8", "us"},
      {"latency.p2p.per_pair@8.*.p50_us", "us"},
      {"incast.fan_in=2.congestion_impact@256K.p99", "ratio"},
      {"scaling.groups.hosts=4.vs_2host", "ratio"},
      {"scaling.workloads.workload=vfabric-demo.exposed_s", "s"},
      {"scaling.model.allreduce.beta_gbps", "GB/s"},
      {"pairs.bw_median_gbps", "GB/s"},
  };
  for (const auto& [metric, unit] : checks) {
    const auto g = report::evaluate_gate(
        rep, json::array({{{"metric", metric}, {"op", ">="}, {"threshold", 0}}}), "test");
    ASSERT_EQ(g.checks.size(), 1u);
    EXPECT_FALSE(g.checks[0].values.empty()) << metric << ": " << g.checks[0].reason;
    EXPECT_TRUE(g.checks[0].value.is_number()) << metric << ": " << g.checks[0].reason;
    EXPECT_EQ(g.checks[0].unit, unit) << metric;
  }
}
