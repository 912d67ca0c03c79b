// The pipeline bubble: a worked example computed by hand, through core::pipeline_step, the
// workloads parser and project_workload.
#include <gtest/gtest.h>

#include "../support/test_data.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/pipeline_math.hpp"
#include "fabcheck/report/scaling_model.hpp"
#include "fabcheck/report/workloads.hpp"

namespace fabcheck {
namespace {

// By hand: p = 4, m = 8, t_f = 10 ms, t_b = 20 ms, t_p2p = 1 ms.
//   t_ideal  = m (t_f + t_b)                = 8 x 30 ms        = 240 ms
//   t_bubble = (p - 1)(t_f + t_b + 2 t_p2p) = 3 x 32 ms        =  96 ms
//   bubble   = 96 / (240 + 96)              = 2/7              = 0.2857142857...
//   efficiency = 240 / 336                  = 5/7              = 0.7142857142...
TEST(Pipeline, WorkedExampleByHand) {
  for (auto sched : {core::PipelineSchedule::kOneFOneB, core::PipelineSchedule::kGpipe}) {
    const auto s = core::pipeline_step(sched, 4, 8, 0.010, 0.020, 0.001);
    ASSERT_TRUE(s);
    EXPECT_NEAR(s->t_ideal_s, 0.240, 1e-12);
    EXPECT_NEAR(s->t_bubble_s, 0.096, 1e-12);
    EXPECT_NEAR(s->t_step_s, 0.336, 1e-12);
    EXPECT_NEAR(s->bubble_fraction, 2.0 / 7.0, 1e-12);
    EXPECT_NEAR(s->efficiency, 5.0 / 7.0, 1e-12);
  }
  // Without communication: GPipe's (p - 1)/(m + p - 1) = 3/11.
  EXPECT_NEAR(core::pipeline_step(core::PipelineSchedule::kGpipe, 4, 8, 0.010, 0.020, 0)->bubble_fraction,
              3.0 / 11.0, 1e-12);
  // One stage: no bubble.
  EXPECT_DOUBLE_EQ(
      core::pipeline_step(core::PipelineSchedule::kOneFOneB, 1, 8, 0.01, 0.02, 0.5)->bubble_fraction, 0.0);
}

TEST(Pipeline, RefusesBadInput) {
  std::string why;
  EXPECT_FALSE(core::pipeline_step(core::PipelineSchedule::kOneFOneB, 0, 8, 0.01, 0.02, 0, &why));
  EXPECT_NE(why.find("stages"), std::string::npos);
  EXPECT_FALSE(core::pipeline_step(core::PipelineSchedule::kOneFOneB, 4, 0, 0.01, 0.02, 0, &why));
  EXPECT_FALSE(core::pipeline_step(core::PipelineSchedule::kOneFOneB, 4, 8, 0, 0, 0, &why));
  EXPECT_FALSE(core::pipeline_step(core::PipelineSchedule::kOneFOneB, 4, 8, 0.01, 0.02, -1, &why));
}

std::string pipeline_test_data(const std::string& name) {
  return testing_fixtures::read_test_data("workloads/" + name);
}

TEST(Pipeline, ProfileParsesAndProjects) {
  const auto set =
      report::parse_workloads(pipeline_test_data("pp_worked_example.json"), "pp_worked_example.json");
  const auto& p = report::find_workload(set, "");
  ASSERT_EQ(p.parallelism, report::Parallelism::kPp);
  EXPECT_EQ(p.pp_stages, 4);
  EXPECT_EQ(p.pp_micro_batches, 8);
  EXPECT_DOUBLE_EQ(p.pp_activation_bytes, 2.0 * 1024 * 1024);
  EXPECT_NEAR(p.compute_s, 0.240, 1e-12);
  report::WorkloadCurves none;
  EXPECT_THROW(report::project_workload(p, none), std::invalid_argument);  // no hop time: says so
  report::WorkloadCurves c;
  c.p2p_us = 1000;
  c.p2p_source = "--p2p-us";
  const auto w = report::project_workload(p, c);
  ASSERT_TRUE(w.pipeline);
  EXPECT_NEAR(w.efficiency, 5.0 / 7.0, 1e-12);
  EXPECT_NEAR(w.exposed_s, 0.096, 1e-12);
  EXPECT_NEAR(w.t_comm_s, 0.006, 1e-12);  // 2 (p - 1) hops of 1 ms
  EXPECT_NEAR(w.pipeline->bubble_fraction_gpipe, 2.0 / 7.0, 1e-12);
}

TEST(Pipeline, ProfileErrorsNameTheField) {
  auto text = pipeline_test_data("pp_worked_example.json");
  auto bad = text;
  bad.replace(bad.find("\"value\": 4,"), 11, "\"value\": 1,");
  try {
    report::parse_workloads(bad, "x.json");
    FAIL() << "one stage accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("pp_stages"), std::string::npos) << e.what();
  }
  bad = text;
  bad.replace(bad.find("\"pp_stages\""), 11, "\"overlap\"");
  EXPECT_THROW(report::parse_workloads(bad, "x.json"), UsageError);
}

}  // namespace
}  // namespace fabcheck
