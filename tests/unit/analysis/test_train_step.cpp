// Unit tests of the emulated training step: the step arithmetic (efficiency, exposed
// communication, scaling of buckets), the plan of a scaled DDP and FSDP step, the `step` section's projection
// and finding, and score.basis.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "../support/flat_summary.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/step_math.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/scaling.hpp"
#include "fabcheck/report/train_step.hpp"
#include "fabcheck/report/workloads.hpp"

using namespace fabcheck;
using namespace fabcheck::report;
using core::Collective;
using model::StepOp;
using nlohmann::json;

namespace {

core::Summary ts_summary(double p50) {
  return testing_fixtures::flat_summary(p50, 5);
}

const WorkloadProfile& ts_builtin(const std::string& name) {
  return find_workload(builtin_workloads(), name);
}

// A step result of the built-in vfabric-demo profile at scale 1 with constructed timings: every allreduce of
// the plan measured alone at t_comm_us, overlap `ov` (polled).
model::TrainStepResult ts_result(double t_compute_us, double t_step_us, double t_comm_us, double ov) {
  model::TrainStepResult r;
  r.nranks = 4;
  r.hosts = {"h0", "h1", "h2", "h3"};
  r.options.poll_us = 100;
  r.options.iters = 5;
  r.plan = plan_train_step(ts_builtin("vfabric-demo"), 1.0, 8);
  for (std::uint64_t size : {3417088ull, 4194304ull}) {
    model::OverlapPoint p;
    p.coll = Collective::kAllReduce;
    p.size_bytes = size;
    p.t_comm = ts_summary(t_comm_us);
    p.t_compute = ts_summary(t_comm_us);
    p.t_both = ts_summary(2 * t_comm_us);
    p.polled = true;
    p.t_both_poll = ts_summary(t_comm_us * (2 - ov));
    p.have_overlap = p.have_overlap_poll = true;
    p.overlap = 0;
    p.overlap_poll = ov;
    r.comm_points.push_back(p);
  }
  r.t_compute = ts_summary(t_compute_us);
  r.t_step = ts_summary(t_step_us);
  r.measured_efficiency = *core::step_efficiency(t_compute_us, t_step_us);
  r.have_efficiency = true;
  r.exposed_us = core::exposed_comm(t_step_us, t_compute_us);
  return r;
}

}  // namespace

TEST(StepMath, EfficiencyAndExposed) {
  EXPECT_DOUBLE_EQ(*core::step_efficiency(150, 200), 0.75);
  EXPECT_DOUBLE_EQ(*core::step_efficiency(0, 10), 0.0);
  EXPECT_FALSE(core::step_efficiency(1, 0).has_value());
  EXPECT_FALSE(core::step_efficiency(-1, 5).has_value());
  EXPECT_FALSE(core::step_efficiency(NAN, 5).has_value());
  EXPECT_DOUBLE_EQ(core::exposed_comm(200, 150), 50);
  EXPECT_DOUBLE_EQ(core::exposed_comm(140, 150), 0);  // noise: never negative
}

TEST(StepMath, ScalingOfBuckets) {
  EXPECT_DOUBLE_EQ(core::auto_step_scale(535, 8), 8.0 / 535);
  EXPECT_DOUBLE_EQ(core::auto_step_scale(4, 8), 1.0);
  EXPECT_DOUBLE_EQ(core::auto_step_scale(0, 8), 1.0);
  EXPECT_EQ(core::scaled_count(535, 8.0 / 535), 8u);
  EXPECT_EQ(core::scaled_count(80, 0.05), 4u);
  EXPECT_EQ(core::scaled_count(80, 0.001), 1u);  // at least one
  EXPECT_EQ(core::scaled_count(80, 1.0), 80u);
  EXPECT_EQ(core::scaled_count(3, 0.5), 2u);  // round(1.5)
  EXPECT_EQ(core::scaled_count(0, 0.5), 0u);
  EXPECT_TRUE(core::within_factor(0.5, 0.74, 1.5));
  EXPECT_FALSE(core::within_factor(0.5, 0.76, 1.5));
  EXPECT_TRUE(core::within_factor(0.76, 0.76, 1.0));
  EXPECT_FALSE(core::within_factor(0.0, 0.5, 1.5));
}

TEST(StepPlan, DdpWholeStepRemainderFirst) {
  // vfabric-demo: 4e6 fp32 gradients = 16e6 bytes in 4 MiB buckets: 3 full + 3417088 remainder.
  const auto pl = plan_train_step(ts_builtin("vfabric-demo"), 0, 8);
  EXPECT_EQ(pl.real_buckets, 4u);
  EXPECT_EQ(pl.buckets, 4u);
  EXPECT_DOUBLE_EQ(pl.scale, 1.0);
  EXPECT_EQ(pl.bucket_bytes, 4194304u);
  EXPECT_NEAR(pl.compute_s, 0.15, 1e-12);
  ASSERT_EQ(pl.ops.size(), 9u);
  const std::uint64_t sizes[] = {16000000 - 3 * 4194304ull, 4194304, 4194304, 4194304};
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(pl.ops[2 * k].kind, StepOp::Kind::kCompute);
    EXPECT_NEAR(pl.ops[2 * k].compute_us, 37500, 1e-6);
    EXPECT_EQ(pl.ops[2 * k + 1].kind, StepOp::Kind::kPost);
    EXPECT_EQ(pl.ops[2 * k + 1].coll, Collective::kAllReduce);
    EXPECT_EQ(pl.ops[2 * k + 1].size_bytes, sizes[k]);
  }
  EXPECT_EQ(pl.ops.back().kind, StepOp::Kind::kWaitAll);
}

TEST(StepPlan, DdpAutoScaleKeepsComputePerByte) {
  // llama-7b: 14e9 bytes in 25 MiB buckets = 534 full + 1 remainder; 8 full buckets emulated.
  const auto& p = ts_builtin("llama-7b-ddp-bf16");
  const auto pl = plan_train_step(p, 0, 8);
  EXPECT_EQ(pl.real_buckets, 535u);
  EXPECT_EQ(pl.buckets, 8u);
  EXPECT_DOUBLE_EQ(pl.scale, 8.0 / 535);
  const double bytes = 8.0 * (25 << 20);
  EXPECT_NEAR(pl.compute_s, p.compute_s * bytes / 14e9, 1e-15);
  int posts = 0;
  for (const auto& op : pl.ops) {
    if (op.kind == StepOp::Kind::kPost) {
      ++posts;
      EXPECT_EQ(op.size_bytes, 25u << 20);  // bucket sizes are the real ones
    }
  }
  EXPECT_EQ(posts, 8);
  // The projection of the scaled profile counts the same buckets and compute.
  const WorkloadProfile q = scaled_profile(p, pl);
  EXPECT_DOUBLE_EQ(q.compute_s, pl.compute_s);
  EXPECT_NEAR(q.parameters * q.bytes_per_grad, bytes, 1e-3);
}

TEST(StepPlan, FsdpPrefetchAndReducescatter) {
  const auto& p = ts_builtin("llama-70b-fsdp-bf16");
  const auto pl = plan_train_step(p, 0.05, 8);
  EXPECT_EQ(pl.real_buckets, 80u);
  EXPECT_EQ(pl.buckets, 4u);
  EXPECT_EQ(pl.allgather_bytes, 1750000000u);  // 7e10 / 80 parameters x 2 bytes
  EXPECT_EQ(pl.reducescatter_bytes, 1750000000u);
  EXPECT_NEAR(pl.compute_s, 5.7 * 4 / 80, 1e-12);
  int ag = 0, rs = 0, waits = 0;
  double compute_us = 0;
  for (const auto& op : pl.ops) {
    if (op.kind == StepOp::Kind::kPost) (op.coll == Collective::kAllGather ? ag : rs)++;
    if (op.kind == StepOp::Kind::kWaitAll) ++waits;
    if (op.kind == StepOp::Kind::kCompute) compute_us += op.compute_us;
  }
  EXPECT_EQ(ag, 8);  // 2 per unit, as the projection counts
  EXPECT_EQ(rs, 4);
  EXPECT_EQ(waits, 9);  // one per unit forward and backward, one at the end
  EXPECT_NEAR(compute_us, pl.compute_s * 1e6, 1e-6);
  // Forward prefetches: the op after unit 0's wait is unit 1's allgather, then unit 0's compute.
  EXPECT_EQ(pl.ops[0].kind, StepOp::Kind::kPost);
  EXPECT_EQ(pl.ops[1].kind, StepOp::Kind::kWaitAll);
  EXPECT_EQ(pl.ops[2].kind, StepOp::Kind::kPost);
  EXPECT_EQ(pl.ops[3].kind, StepOp::Kind::kCompute);
  EXPECT_NEAR(pl.ops[3].compute_us, 5.7 / 80 * 1e6 / 3, 1e-6);
}

TEST(StepPlan, PipelineProfileIsABadInput) {
  WorkloadProfile p;
  p.name = "pp-demo";
  p.parallelism = Parallelism::kPp;
  try {
    (void)plan_train_step(p, 0, 8);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--workload"), std::string::npos);
  }
}

TEST(StepSection, ProjectionFromTheStepsOwnPointsAndMeasuredOverlap) {
  // Compute 150 ms, every allreduce 30 ms alone, overlap 1 (polled): projected exposed = max(t_last,
  // 4·30 − 150) = 30 ms, efficiency 150/180; measured 150/185.
  const auto r = ts_result(150000, 185000, 30000, 1.0);
  Document doc;
  add_step(doc, r, ts_builtin("vfabric-demo"));
  const json& s = doc.json()["step"];
  EXPECT_DOUBLE_EQ(s["measured_efficiency"].get<double>(), 150000.0 / 185000);
  EXPECT_DOUBLE_EQ(s["exposed_us"].get<double>(), 35000);
  EXPECT_EQ(s["projected"]["curves"], "step");
  EXPECT_DOUBLE_EQ(s["projected"]["overlap"].get<double>(), 1.0);
  EXPECT_NEAR(s["projected"]["efficiency"].get<double>(), 0.15 / (0.15 + 0.03), 1e-9);
  EXPECT_NEAR(s["measured_vs_projected"].get<double>(), (150.0 / 185) / (150.0 / 180), 1e-9);
  EXPECT_EQ(s["buckets"], 4);
  EXPECT_EQ(doc.json()["run"]["sections"]["step"]["status"], "ok");
  for (const auto& f : doc.json()["findings"]) EXPECT_NE(f["code"], "STEP_PROJECTION_MISMATCH");
  EXPECT_NE(render_step(s).find("measured efficiency 81.1 %"), std::string::npos) << render_step(s);
}

TEST(StepSection, MismatchBeyondTheFactorIsAWarning) {
  // Projected 150/180 = 0.833; measured 150/400 = 0.375: a factor 2.2 apart.
  const auto r = ts_result(150000, 400000, 30000, 1.0);
  Document doc;
  add_step(doc, r, ts_builtin("vfabric-demo"));
  bool found = false;
  for (const auto& f : doc.json()["findings"]) {
    if (f["code"] != "STEP_PROJECTION_MISMATCH") continue;
    found = true;
    EXPECT_EQ(f["severity"], "warn");
    EXPECT_DOUBLE_EQ(f["evidence"]["factor"].get<double>(), kStepAgreementFactor);
  }
  EXPECT_TRUE(found);
}

TEST(StepSection, ScoreBasisIsTheMeasuredStep) {
  const auto r = ts_result(150000, 200000, 30000, 1.0);
  Document doc;
  // A sweeps entry: allreduce times at sizes around the buckets, 4 ranks.
  json pts = json::array();
  for (double s = 1 << 20; s <= 16 << 20; s *= 2) pts.push_back({{"size_bytes", s}, {"time_us", s / 140.0}});
  doc.json()["sweeps"] = json::array({{{"collective", "allreduce"}, {"nranks", 4}, {"points", pts}}});
  add_step(doc, r, ts_builtin("vfabric-demo"));
  EXPECT_EQ(doc.json()["step"]["projected"]["curves"], "sweeps");
  model::ScalingResult sr;
  sr.options.workload = "vfabric-demo";
  sr.world_nranks = 4;
  sr.world_hosts = 4;
  add_scaling(doc, sr, builtin_workloads());
  const json& sc = doc.json()["score"];
  EXPECT_EQ(sc["basis"], "measured");
  EXPECT_DOUBLE_EQ(sc["scaling_efficiency"].get<double>(), 0.75);
  EXPECT_TRUE(sc["scaling_efficiency_projected"].is_number());
  EXPECT_NEAR(sc["step_measured"]["exposed_s_full_step"].get<double>(), 0.15 * (1 / 0.75 - 1), 1e-12);
  EXPECT_NE(sc["sentence"].get<std::string>().find("75.0 %"), std::string::npos);

  // Another reference workload: the step does not stand for it.
  Document doc2;
  doc2.json()["sweeps"] = doc.json()["sweeps"];
  doc2.json()["step"] = doc.json()["step"];
  sr.options.workload = "llama-7b-ddp-bf16";
  add_scaling(doc2, sr, builtin_workloads());
  EXPECT_EQ(doc2.json()["score"]["basis"], "projected");
}
