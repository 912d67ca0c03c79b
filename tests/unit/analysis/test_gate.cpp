// The acceptance gate: metric path syntax, fail-closed rule, per-host verdicts, JUnit XML, the gate section
// and findings. The round trip through a written report: tests/unit/suite/test_gate_round_trip.cpp.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "../support/gate_sample_report.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/gate.hpp"

using fabcheck::UsageError;
using nlohmann::json;
namespace report = fabcheck::report;

namespace {

using fabcheck::testing_fixtures::gate_sample_report;

json check(const std::string& metric, const std::string& op, const json& threshold) {
  return json::array({{{"metric", metric}, {"op", op}, {"threshold", threshold}}});
}

report::GateCheckResult one_rg(const json& rep, const std::string& metric, const std::string& op,
                               const json& threshold) {
  auto g = report::evaluate_gate(rep, check(metric, op, threshold), "test");
  EXPECT_EQ(g.checks.size(), 1u);
  return g.checks.at(0);
}

// sweeps.allreduce.busbw_gbps<at> of the sample report reads the 1 GiB points: out of place 180.25 passes
// >= 180 (its path named), in place 170 fails. Returns the in-place check.
report::GateCheckResult expect_reads_the_1g_points(const json& rep, const std::string& at) {
  auto c = one_rg(rep, "sweeps.allreduce.busbw_gbps" + at, ">=", 180);
  EXPECT_TRUE(c.passed) << c.reason;
  EXPECT_EQ(c.value, 180.25);
  EXPECT_EQ(c.values.at(0).path, "sweeps[0].points[2].busbw_gbps");
  c = one_rg(rep, "sweeps.allreduce.busbw_gbps" + at + ":in_place", ">=", 180);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.value, 170.0);
  return c;
}

}  // namespace

TEST(GatePath, Syntax) {
  auto p = report::parse_metric_path("sweeps.allreduce.busbw_gbps@1G");
  ASSERT_EQ(p.segments.size(), 3u);
  EXPECT_EQ(p.segments[2].name, "busbw_gbps");
  EXPECT_EQ(*p.segments[2].size_bytes, 1ull << 30);
  EXPECT_TRUE(p.segments[2].placement.empty());
  p = report::parse_metric_path("sweeps.allreduce.busbw_gbps@1M:in_place");
  EXPECT_EQ(p.segments[2].placement, "in_place");
  p = report::parse_metric_path("incast.fan_in=2.goodput_gbps@4M");
  EXPECT_EQ(p.segments[1].kind, report::PathSegment::Kind::kFilter);
  EXPECT_EQ(p.segments[1].name, "fan_in");
  EXPECT_EQ(p.segments[1].value, "2");
  p = report::parse_metric_path("transport.per_host.*.verdict");
  EXPECT_EQ(p.segments[2].kind, report::PathSegment::Kind::kAll);
  p = report::parse_metric_path("sweeps.[1].avg_busbw_gbps");
  EXPECT_EQ(p.segments[1].kind, report::PathSegment::Kind::kIndex);
  EXPECT_EQ(p.segments[1].index, 1u);
  EXPECT_TRUE(report::parse_metric_path("pairs.suspects#count").count);
  for (const char* bad :
       {"", "a..b", ".a", "a.", "a@", "a@1Q", "a@1G:sideways", "a#sum", "a.[x]", "a.=b", "a.b c", "*@8"}) {
    EXPECT_THROW(report::parse_metric_path(bad), UsageError) << bad;
  }
}

TEST(Gate, ReadsTheDocumentedExamples) {
  const auto rep = gate_sample_report();
  auto c = expect_reads_the_1g_points(rep, "@1G");
  EXPECT_EQ(c.reason.rfind("failed: sweeps[0].points[3].busbw_gbps = 170, not >= 180", 0), 0u) << c.reason;
  EXPECT_TRUE(one_rg(rep, "transport.verdict", "==", "rdma").passed);
  EXPECT_TRUE(one_rg(rep, "transport.verdict", "!=", "socket_fallback").passed);
  c = one_rg(rep, "latency.p2p.p99_us@8", "<=", 3.5);
  EXPECT_TRUE(c.passed);
  EXPECT_EQ(c.values.size(), 1u);  // the collective entry at 8 B is not p2p
  EXPECT_FALSE(one_rg(rep, "latency.p2p.p99_us@4K", "<=", 5).passed);
  EXPECT_TRUE(one_rg(rep, "score.scaling_efficiency", ">=", 0.8).passed);
  EXPECT_FALSE(one_rg(rep, "score.scaling_efficiency", ">=", 0.83).passed);
  EXPECT_TRUE(one_rg(rep, "sweeps.allreduce.avg_busbw_gbps", "==", 150.5).passed);
  EXPECT_TRUE(one_rg(rep, "run.sections.sweeps.status", "==", "ok").passed);
  EXPECT_TRUE(one_rg(rep, "findings.severity=fail#count", "==", 0).passed);
  EXPECT_FALSE(one_rg(rep, "findings.severity=warn#count", "==", 0).passed);
}

// "@max": the largest size measured, with the placement rule of @SIZE; a sweep that stopped early
// is read where it stopped.
TEST(Gate, AtMaxReadsTheLargestMeasuredSize) {
  auto rep = gate_sample_report();
  EXPECT_EQ(*report::parse_metric_path("sweeps.allreduce.busbw_gbps@max").segments[2].size_bytes,
            report::kLargestSize);
  expect_reads_the_1g_points(rep, "@max");
  // Both collectives, each at its own largest size (1 GiB for both here).
  EXPECT_EQ(one_rg(rep, "sweeps.*.busbw_gbps@max", ">=", 100).values.size(), 2u);
  // A truncated sweep: the 1 GiB points are gone, @max reads 1 MiB; @1G fails closed.
  auto& pts = rep["sweeps"][0]["points"];
  pts.erase(pts.begin() + 2, pts.end());
  auto c = one_rg(rep, "sweeps.allreduce.busbw_gbps@max", ">=", 50);
  EXPECT_TRUE(c.passed) << c.reason;
  EXPECT_EQ(c.value, 90.0);
  EXPECT_FALSE(one_rg(rep, "sweeps.allreduce.busbw_gbps@1G", ">=", 50).passed);
  // No point at all: missing, named as @max.
  pts = json::array();
  c = one_rg(rep, "sweeps.allreduce.busbw_gbps@max", ">=", 50);
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.reason.find("has no entry at size max"), std::string::npos) << c.reason;
  // Entries without points (latency: one entry per size) have no @max: missing, not the first entry.
  EXPECT_FALSE(one_rg(rep, "latency.collective.p99_us@max", "<=", 30).passed);
  EXPECT_THROW(report::parse_metric_path("a@maximum"), UsageError);
}

TEST(Gate, ASizeRoundedToTheRanksIsFoundByTheSizeAskedFor) {
  // allgather on 3 ranks: 2M asked, 2097144 B measured (count 174762 x 3 ranks x 4 B, nccl-tests' rounding).
  json pts = json::array();
  for (int cycle = 0; cycle < 2; ++cycle) {
    pts.push_back({{"size_bytes", 2097144},
                   {"requested_bytes", 2097152},
                   {"cycle", cycle},
                   {"placement", "out_of_place"},
                   {"busbw_gbps", 1.5 + cycle}});
  }
  pts.push_back({{"size_bytes", 1048572},
                 {"requested_bytes", 1048576},
                 {"placement", "out_of_place"},
                 {"busbw_gbps", 0.5}});
  const json rep = {{"sweeps", {{{"collective", "allgather"}, {"nranks", 3}, {"points", pts}}}}};
  auto c = one_rg(rep, "sweeps.allgather.busbw_gbps@2M", ">=", 1.0);
  EXPECT_TRUE(c.passed) << c.reason;
  ASSERT_EQ(c.values.size(), 2u);  // every cycle's row of that size
  EXPECT_EQ(c.values.at(0).path, "sweeps[0].points[0].busbw_gbps");
  // A size that was neither measured nor asked for still fails closed.
  c = one_rg(rep, "sweeps.allgather.busbw_gbps@4M", ">=", 1.0);
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.reason.find("has no entry at size 4M"), std::string::npos) << c.reason;
}

TEST(Gate, SeveralValuesMustAllPass) {
  const auto rep = gate_sample_report();
  // Both collectives at 1 GiB: 180.25 and 160.
  auto c = one_rg(rep, "sweeps.*.busbw_gbps@1G", ">=", 170);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.values.size(), 2u);
  EXPECT_NE(c.reason.find("(1 of 2 values failed)"), std::string::npos) << c.reason;
  EXPECT_TRUE(one_rg(rep, "sweeps.*.busbw_gbps@1G", ">=", 160).passed);
}

TEST(Gate, FailClosedOnMissingAndNull) {
  const auto rep = gate_sample_report();
  for (const char* metric :
       {"incast.goodput_gbps@4M", "sweeps.alltoall.busbw_gbps@1G", "sweeps.allreduce.busbw_gbps@2G",
        "score.no_such_field", "latency.p2p.p99_us@64K", "nothing#count"}) {
    auto c = one_rg(rep, metric, ">=", 0);
    EXPECT_FALSE(c.passed) << metric;
    EXPECT_EQ(c.reason.rfind("missing", 0), 0u) << metric << ": " << c.reason;
    EXPECT_TRUE(c.value.is_null());
  }
  // A null value (absent with a reason) is missing too, whatever the operator.
  auto c = one_rg(rep, "sweeps.allreduce.wrong@1G:in_place", "==", 0);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.reason.rfind("missing: sweeps[0].points[3].wrong is null", 0), 0u) << c.reason;
  c = one_rg(rep, "sweeps.allreduce.wrong@1G:in_place", "!=", 5);
  EXPECT_FALSE(c.passed);
  // A section that was skipped is null in the report.
  auto rep2 = rep;
  rep2["score"] = nullptr;
  c = one_rg(rep2, "score.scaling_efficiency", ">=", 0);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.reason, "missing: score is null");
  // Wrong type.
  c = one_rg(rep, "transport.verdict", ">=", 1);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.reason.rfind("type:", 0), 0u) << c.reason;
  c = one_rg(rep, "transport", "==", "rdma");
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.reason.rfind("type:", 0), 0u) << c.reason;
}

TEST(Gate, PerHostVerdictsAndExcludeHostfile) {
  const auto rep = gate_sample_report();
  json checks =
      json::array({{{"metric", "transport.per_host.*.verdict"}, {"op", "=="}, {"threshold", "rdma"}},
                   {{"metric", "score.scaling_efficiency"}, {"op", ">="}, {"threshold", 0.5}}});
  auto g = report::evaluate_gate(rep, checks, "test");
  EXPECT_FALSE(g.passed);
  EXPECT_TRUE(g.checks[0].per_host);
  EXPECT_EQ(g.checks[0].failed_hosts, std::vector<std::string>{"n2"});
  EXPECT_EQ(g.checks[0].values.size(), 4u);
  EXPECT_FALSE(g.checks[1].per_host);
  EXPECT_EQ(g.hosts_failed, std::vector<std::string>{"n2"});
  EXPECT_EQ(g.hosts_passed, (std::vector<std::string>{"n1", "n3", "n4"}));
  const auto hf = report::exclude_hostfile_text(g);
  EXPECT_NE(hf.find("excluded: n2"), std::string::npos);
  std::istringstream lines(hf);
  std::string line;
  std::vector<std::string> hosts;
  while (std::getline(lines, line)) {
    if (!line.empty() && line[0] != '#') hosts.push_back(line);
  }
  EXPECT_EQ(hosts, (std::vector<std::string>{"n1", "n3", "n4"}));
  // A failed #count over host entries implicates those hosts.
  g = report::evaluate_gate(rep, check("pairs.suspects#count", "==", 0), "test");
  EXPECT_FALSE(g.passed);
  EXPECT_EQ(g.hosts_failed, std::vector<std::string>{"n2"});
  EXPECT_EQ(g.checks[0].value, 1);
}

TEST(Gate, ANameThatIsNotAHostNameNeverReachesAHostfile) {
  // A host name from a report (or a node's own hostname) holding a newline would add a line to the next job's
  // hostfile ("evil\nnode9 slots=64"); such names are counted in the comment line, never written.
  const std::string t =
      report::good_hosts_text("# good", {"n1", "evil\nnode9 slots=64", "n_3.example-1"}, {"bad host", "n2"});
  EXPECT_EQ(t, "# good; excluded: n2; 2 name(s) that are not host names left out\nn1\nn_3.example-1\n");
  EXPECT_EQ(report::good_hosts_text("", {"n1", "n2"}, {}), "n1\nn2\n");
  EXPECT_EQ(report::good_hosts_text("", {"-n1", "n2"}, {}),
            "# 1 name(s) that are not host names left out\nn2\n");
}

TEST(Gate, AReportHostThatIsNotAHostNameIsAFinding) {
  // The same names in a report's topology: left out of the passed hosts and named by one warn finding.
  auto rep = gate_sample_report();
  rep["topology"]["hosts"].push_back({{"host", "evil\nnode9 slots=64"}});
  const auto g = report::evaluate_gate(rep, check("findings.severity=fail#count", "==", 0), "test");
  EXPECT_EQ(g.hosts_invalid, std::vector<std::string>{"evil\nnode9 slots=64"});
  EXPECT_EQ(std::count(g.hosts_passed.begin(), g.hosts_passed.end(), "evil\nnode9 slots=64"), 0);
  report::Document doc;
  doc.json() = rep;
  report::add_gate(doc, g);
  const auto& f = doc.json()["findings"];
  const auto it =
      std::find_if(f.begin(), f.end(), [](const json& x) { return x["code"] == "HOST_NAME_INVALID"; });
  ASSERT_NE(it, f.end());
  EXPECT_EQ((*it)["severity"], "warn");
  EXPECT_EQ((*it)["evidence"]["hosts"], json::array({"evil\nnode9 slots=64"}));
  EXPECT_EQ(report::exclude_hostfile_text(g).find("slots=64"), std::string::npos);
}

TEST(Gate, AHostWithAFailFindingNeverReachesTheGoodHostsFile) {
  // The criteria check nothing per host, yet a confirmed slow host (a `fail` finding naming it) is left out.
  auto rep = gate_sample_report();
  rep["findings"] = json::array({{{"severity", "fail"},
                                  {"code", "PAIRS_SLOW_HOST"},
                                  {"message", "host n3: ..."},
                                  {"evidence", {{"host", "n3"}, {"confirmed", true}}}},
                                 {{"severity", "warn"},
                                  {"code", "PAIRS_SLOW_HOST"},
                                  {"message", "host n4: not retested"},
                                  {"evidence", {{"host", "n4"}}}}});
  const auto g = report::evaluate_gate(rep, check("score.scaling_efficiency", ">=", 0), "test");
  EXPECT_TRUE(g.passed);
  EXPECT_EQ(g.hosts_failed, std::vector<std::string>{"n3"});
  EXPECT_EQ(g.hosts_passed, (std::vector<std::string>{"n1", "n2", "n4"}));
  // And the gate the embedded default and the acceptance configs carry fails on it.
  const auto f = report::evaluate_gate(rep, check("findings.severity=fail#count", "==", 0), "test");
  EXPECT_FALSE(f.passed);
  EXPECT_EQ(f.checks[0].value, 1);
}

TEST(Gate, JUnitHasOneTestcasePerCheck) {
  const auto rep = gate_sample_report();
  json checks = json::array({{{"metric", "transport.verdict"}, {"op", "=="}, {"threshold", "rdma"}},
                             {{"metric", "sweeps.allreduce.busbw_gbps@1G"},
                              {"op", ">="},
                              {"threshold", 400},
                              {"why", "NDR <line> & \"rate\""}},
                             {{"metric", "incast.goodput_gbps@4M"}, {"op", ">="}, {"threshold", 1}}});
  const auto g = report::evaluate_gate(rep, checks, "test");
  const auto xml = report::junit_xml(g);
  auto count = [&](const std::string& s) {
    std::size_t n = 0;
    for (auto p = xml.find(s); p != std::string::npos; p = xml.find(s, p + 1)) ++n;
    return n;
  };
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 0), 0u);
  EXPECT_EQ(count("<testcase "), 3u);
  EXPECT_EQ(count("<failure "), 2u);
  EXPECT_NE(xml.find("tests=\"3\" failures=\"2\""), std::string::npos);
  EXPECT_NE(xml.find("name=\"sweeps.allreduce.busbw_gbps@1G &gt;= 400\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("why: NDR &lt;line&gt; &amp; &quot;rate&quot;"), std::string::npos) << xml;
  EXPECT_NE(xml.find("type=\"missing\""), std::string::npos);
  EXPECT_EQ(xml.find("<line>"), std::string::npos);  // nothing unescaped
  EXPECT_EQ(report::xml_escape(std::string("a\x01"
                                           "b")),
            "ab");
}

TEST(Gate, AddGateWritesSectionAndFindings) {
  report::Document doc;
  doc.json()["score"] = {{"scaling_efficiency", 0.4}};
  auto g = report::evaluate_gate(doc.json(), check("score.scaling_efficiency", ">=", 0.5), "test");
  report::add_gate(doc, g);
  EXPECT_TRUE(doc.has_fail());
  EXPECT_EQ(doc.json()["gate"]["passed"], false);
  EXPECT_EQ(doc.json()["gate"]["checks"][0]["value"], 0.4);
  EXPECT_EQ(doc.json()["run"]["sections"]["gate"]["status"], "ok");
  // Gating again replaces the gate findings instead of piling them up.
  g = report::evaluate_gate(doc.json(), check("score.scaling_efficiency", ">=", 0.3), "test");
  report::add_gate(doc, g);
  EXPECT_FALSE(doc.has_fail());
  EXPECT_EQ(doc.json()["gate"]["passed"], true);
}
