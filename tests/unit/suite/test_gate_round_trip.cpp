// The gate on a report written by this version (Document::write_atomic) and read back the way `fabcheck gate`
// reads it (suite::load_json_file): the checks see the same values, and a missing section fails closed.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "../support/gate_sample_report.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/gate.hpp"
#include "fabcheck/suite/config.hpp"

using nlohmann::json;
namespace report = fabcheck::report;
using fabcheck::testing_fixtures::gate_sample_report;

TEST(Gate, RoundTripThroughAWrittenReport) {
  // A report written by this version (Document::write_atomic) and read back the way `fabcheck gate` reads it.
  report::Document doc({"fabcheck", "run"});
  doc.json()["sweeps"] = gate_sample_report()["sweeps"];
  doc.json()["topology"] = gate_sample_report()["topology"];
  doc.set_section("sweeps", report::SectionStatus::kOk);
  doc.finish("complete", 0, 1.5);
  const std::string path = ::testing::TempDir() + "gate_roundtrip.json";
  doc.write_atomic(path);
  const auto back = fabcheck::suite::load_json_file(path, "report");
  EXPECT_EQ(back["schema_version"], report::kSchemaVersion);
  json checks = json::array({{{"metric", "sweeps.allreduce.busbw_gbps@1G"}, {"op", ">="}, {"threshold", 100}},
                             {{"metric", "run.status"}, {"op", "=="}, {"threshold", "complete"}},
                             {{"metric", "run.sections.sweeps.status"}, {"op", "=="}, {"threshold", "ok"}},
                             {{"metric", "latency.p2p.p99_us@8"}, {"op", "<="}, {"threshold", 10}}});
  const auto g = report::evaluate_gate(back, checks, path);
  ASSERT_EQ(g.checks.size(), 4u);
  EXPECT_TRUE(g.checks[0].passed);
  EXPECT_EQ(g.checks[0].value, 180.25);
  EXPECT_TRUE(g.checks[1].passed);
  EXPECT_TRUE(g.checks[2].passed);
  EXPECT_FALSE(g.checks[3].passed);  // no latency section in this report: fail-closed
  EXPECT_EQ(g.checks[3].reason.rfind("missing", 0), 0u);
  std::remove(path.c_str());
}
