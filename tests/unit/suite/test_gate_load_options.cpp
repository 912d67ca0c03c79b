// The gate reader's LoadOptions leave out only what the gate never reads: with the checks of a real report's
// config (validated by suite::validate_gate_block), the gate's output is the same as with the whole document,
// and a check that names a matrix makes the reader load everything. The other readers' options:
// tests/unit/model/test_load_fast.cpp.
#include <gtest/gtest.h>

#include <string>

#include "../support/test_data.hpp"
#include "fabcheck/report/gate.hpp"
#include "fabcheck/report/load.hpp"
#include "fabcheck/suite/config.hpp"

using nlohmann::json;
namespace report = fabcheck::report;

namespace gate_load_options {
namespace {

using fabcheck::testing_fixtures::read_test_data;

TEST(LoadFast, GateIsTheSameWithoutWhatItsOptionsLeaveOut) {
  const std::string text = read_test_data("reports/vfabric-4x2.json");
  const json whole = json::parse(text);
  const json checks =
      fabcheck::suite::validate_gate_block(whole["run"]["config"]["gate"], "/run/config/gate");
  const json part = report::parse_report_text(text, "r", report::gate_load_options());
  EXPECT_FALSE(part["pairs"].contains("bw_gbps"));
  EXPECT_EQ(report::render_gate(report::evaluate_gate(part, checks, "config")),
            report::render_gate(report::evaluate_gate(whole, checks, "config")));
  // a check that names a matrix makes the reader load the whole document
  EXPECT_TRUE(report::names_skipped(report::gate_load_options(), {"pairs.bw_gbps[][]"}));
  EXPECT_FALSE(report::names_skipped(report::gate_load_options(), {"sweeps.allreduce.busbw_gbps@2M"}));
}

}  // namespace
}  // namespace gate_load_options
