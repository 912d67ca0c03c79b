// Overlap fraction and kernel sizing (core/overlap_math.hpp), the overlap section's findings and JSON. The
// probe's compute kernel and option checks: tests/unit/probes/test_overlap.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../support/overlap_point.hpp"
#include "../support/text.hpp"
#include "fabcheck/core/overlap_math.hpp"
#include "fabcheck/report/overlap.hpp"

namespace fabcheck {
namespace {

using testing_fixtures::overlap_point;

TEST(OverlapMath, FractionFollowsOsuAndClamps) {
  // t_comm 100, t_compute 100: fully hidden (t_both = t_compute), none (t_both = sum), half.
  EXPECT_DOUBLE_EQ(*core::overlap_fraction(100, 100, 100), 1.0);
  EXPECT_DOUBLE_EQ(*core::overlap_fraction(100, 100, 200), 0.0);
  EXPECT_DOUBLE_EQ(*core::overlap_fraction(100, 100, 150), 0.5);
  // OSU: 100 − ((overall − compute)/comm)·100 = 100 − (130 − 100)/80·100 = 62.5 %.
  EXPECT_DOUBLE_EQ(*core::overlap_fraction(80, 100, 130), 0.625);
  // Slower than serial (t_both > t_compute + t_comm) clamps to 0; faster than the compute alone to 1.
  EXPECT_DOUBLE_EQ(*core::overlap_fraction(100, 100, 260), 0.0);
  EXPECT_DOUBLE_EQ(*core::overlap_fraction(100, 100, 90), 1.0);
  // Nothing to overlap, or not a number.
  EXPECT_FALSE(core::overlap_fraction(0, 100, 100).has_value());
  EXPECT_FALSE(core::overlap_fraction(-1, 100, 100).has_value());
  EXPECT_FALSE(core::overlap_fraction(100, std::numeric_limits<double>::quiet_NaN(), 100).has_value());
}

TEST(OverlapMath, ComputeUnitsForTarget) {
  EXPECT_EQ(core::compute_units_for(1000, 0.25), 4000u);
  EXPECT_EQ(core::compute_units_for(0.1, 0.25), 1u);  // at least one unit
  EXPECT_EQ(core::compute_units_for(0, 0.25), 0u);
  EXPECT_EQ(core::compute_units_for(1000, 0), 0u);
  EXPECT_EQ(core::compute_units_for(1000, std::numeric_limits<double>::infinity()), 0u);
}

model::OverlapResult overlap_result(std::vector<model::OverlapPoint> pts) {
  model::OverlapResult r;
  r.nranks = 4;
  r.hosts = {"h0", "h1"};
  r.options.collectives = {core::Collective::kAllReduce, core::Collective::kAllGather};
  r.points = std::move(pts);
  return r;
}

TEST(OverlapFindings, QuietWhenCommunicationHides) {
  const auto r = overlap_result({overlap_point(core::Collective::kAllReduce, 8 << 20, 1000, 1000, 1100, 1050),
                                 overlap_point(core::Collective::kAllGather, 8 << 20, 800, 800, 900, 850)});
  EXPECT_TRUE(report::overlap_findings(r).empty());
}

TEST(OverlapFindings, NoProgressNamesWorstAndPollingRemedy) {
  // allreduce 64M: 0.05 without polling, 0.80 with polling; allgather 0.60 (fine).
  const auto r =
      overlap_result({overlap_point(core::Collective::kAllReduce, 1 << 20, 100, 100, 190, 130),
                      overlap_point(core::Collective::kAllReduce, 64 << 20, 2000, 2000, 3900, 2400),
                      overlap_point(core::Collective::kAllGather, 64 << 20, 1000, 1000, 1400, 1200)});
  const auto f = report::overlap_findings(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "OVERLAP_NO_PROGRESS");
  EXPECT_EQ(f[0].severity, report::Severity::kWarn);
  testing_fixtures::expect_contains(f[0].message, {"allreduce 64M", "0.05", "0.80"});
  EXPECT_NE(f[0].remedy.find("MPI_Test"), std::string::npos);
  EXPECT_EQ(f[0].evidence["judged"].size(), 2u);  // the largest size of each collective
}

TEST(OverlapFindings, PollingThatDoesNotHelpPointsAtContention) {
  const auto r =
      overlap_result({overlap_point(core::Collective::kAllReduce, 64 << 20, 2000, 2000, 3900, 3800)});
  const auto f = report::overlap_findings(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("even when MPI is polled"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].remedy.find("CPU contention"), std::string::npos);
}

TEST(OverlapFindings, LatencyBoundSizesAreNotJudged) {
  // 20 us collectives: the kernel is too short to tell; no finding even at overlap 0.
  const auto r = overlap_result({overlap_point(core::Collective::kAllReduce, 4096, 20, 20, 40, 0)});
  EXPECT_TRUE(report::overlap_findings(r).empty());
}

TEST(OverlapJson, PointsCarryPercentilesAndNullWithoutPolling) {
  auto r = overlap_result({overlap_point(core::Collective::kAllReduce, 1 << 20, 100, 100, 150, 0)});
  r.options.poll_us = 0;
  const auto j = report::overlap_json(r);
  ASSERT_EQ(j["points"].size(), 1u);
  const auto& p = j["points"][0];
  EXPECT_EQ(p["coll"], "allreduce");
  EXPECT_DOUBLE_EQ(p["t_comm_us"]["p99"].get<double>(), 100);
  EXPECT_DOUBLE_EQ(p["overlap"].get<double>(), 0.5);
  EXPECT_TRUE(p["t_both_poll_us"].is_null());
  EXPECT_TRUE(p["overlap_poll"].is_null());
  EXPECT_NE(j["definition"].get<std::string>().find("t_both - t_compute"), std::string::npos);
  const auto text = report::render_overlap(r);
  EXPECT_NE(text.find("allreduce"), std::string::npos);
  EXPECT_NE(text.find("0.50"), std::string::npos);
}

}  // namespace
}  // namespace fabcheck
