// Unit tests of the scaling model (DESIGN §5): ring model, α–β fit, curves, workload projection,
// bucket advice, workloads file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "fabcheck/core/error.hpp"
#include "fabcheck/report/scaling_model.hpp"
#include "fabcheck/report/workloads.hpp"

using namespace fabcheck;
using namespace fabcheck::report;
using core::Collective;

namespace {

// Rounds to 3 significant digits (the precision the worked example below is stated in).
double sig3(double x) {
  const double e = std::floor(std::log10(std::abs(x)));
  const double scale = std::pow(10.0, 2.0 - e);
  return std::round(x * scale) / scale;
}

// Allreduce times on 8 ranks exactly on the ring model `truth`, at sizes from `from` up to 64 MiB, each
// `step` times the one before.
std::vector<CurvePoint> allreduce_on_model(const AlphaBeta& truth, double from, double step) {
  std::vector<CurvePoint> pts;
  for (double s = from; s <= 64.0 * 1024 * 1024; s *= step)
    pts.push_back({s, ring_time_us(Collective::kAllReduce, 8, truth, s)});
  return pts;
}

// A profile of `parameters` 2-byte parameters and gradients, `compute_s` of compute per step, `overlap`.
WorkloadProfile bf16_profile(const std::string& name, Parallelism par, double parameters, double compute_s,
                             double overlap) {
  WorkloadProfile p;
  p.name = name;
  p.parallelism = par;
  p.parameters = parameters;
  p.bytes_per_grad = 2;
  p.bytes_per_param = 2;
  p.compute_s = compute_s;
  p.overlap = overlap;
  return p;
}

// The worked example's profile: 7e9 parameters, 2 bytes each, 25 MiB buckets, t_compute 1.0 s, overlap 0.8.
WorkloadProfile worked_example_ddp() {
  WorkloadProfile p = bf16_profile("worked-example", Parallelism::kDdp, 7e9, 1.0, 0.8);
  p.bucket_bytes = 25ull << 20;
  return p;
}

}  // namespace

TEST(RingModel, Coefficients) {
  // allreduce: 2(n-1) latency steps, 2(n-1)/n bandwidth factor; allgather/reducescatter: (n-1), (n-1)/n.
  EXPECT_DOUBLE_EQ(ring_coefficients(Collective::kAllReduce, 8).latency_steps, 14.0);
  EXPECT_DOUBLE_EQ(ring_coefficients(Collective::kAllReduce, 8).bandwidth_factor, 1.75);
  EXPECT_DOUBLE_EQ(ring_coefficients(Collective::kAllGather, 4).latency_steps, 3.0);
  EXPECT_DOUBLE_EQ(ring_coefficients(Collective::kAllGather, 4).bandwidth_factor, 0.75);
  EXPECT_DOUBLE_EQ(ring_coefficients(Collective::kReduceScatter, 2).latency_steps, 1.0);
  EXPECT_DOUBLE_EQ(ring_coefficients(Collective::kReduceScatter, 2).bandwidth_factor, 0.5);
  EXPECT_DOUBLE_EQ(ring_coefficients(Collective::kAllReduce, 1).latency_steps, 0.0);
  EXPECT_THROW(ring_coefficients(Collective::kAllToAll, 4), std::invalid_argument);
  EXPECT_THROW(ring_coefficients(Collective::kAllReduce, 0), std::invalid_argument);
  // The bandwidth factor is the busBw factor of DESIGN §3.
  for (int n : {2, 3, 4, 8, 64}) {
    for (Collective c : {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter}) {
      EXPECT_DOUBLE_EQ(ring_coefficients(c, n).bandwidth_factor, core::busbw_factor(c, n));
    }
  }
}

// Worked example, by hand:
//   α = 20 µs, β = 10 GB/s = 1e10 B/s, n = 8, S = 1 GiB = 1073741824 B, ring allreduce:
//   t = 2(n−1)α + 2(n−1)/n · S/β = 14 · 20 µs + 1.75 · 1073741824 / 1e10 s
//     = 280 µs + 1.75 · 0.1073741824 s = 0.00028 s + 0.1879048192 s = 0.1881848192 s = 188184.8192 µs  (0.188
//     s)
TEST(RingModel, WorkedExampleOneGiB) {
  const AlphaBeta m{20.0, 10.0};
  const double t = ring_time_us(Collective::kAllReduce, 8, m, 1073741824.0);
  EXPECT_NEAR(t, 188184.8192, 1e-6);
  EXPECT_DOUBLE_EQ(sig3(t * 1e-6), 0.188);
}

// Worked example, DDP on that curve (α = 20 µs, β = 10 GB/s, n = 8), by hand:
//   gradients G = 7e9 · 2 B = 14 000 000 000 B; bucket B = 25 MiB = 26 214 400 B
//   ⌊G/B⌋ = 534 full buckets (13 998 489 600 B) + a remainder bucket of 1 510 400 B → 535 buckets
//   t(B)   = 280 µs + 1.75 · 26214400/1e10 s = 280 µs + 4587.52 µs = 4867.52 µs
//   t(rem) = 280 µs + 1.75 · 1510400/1e10 s  = 280 µs +  264.32 µs =  544.32 µs
//   t_comm = 534 · 4867.52 µs + 544.32 µs = 2 599 255.68 µs + 544.32 µs = 2.5998 s
//            (check: 535 latency terms · 280 µs = 0.1498 s, plus 1.75 · 14e9/1e10 s = 2.45 s → 2.5998 s)
//   t_last_bucket = t(B) = 4.86752 ms (a full bucket)
//   exposed = max(0.00486752, 2.5998 − 0.8 · 1.0) = 1.7998 s              → 1.80 s (3 significant digits)
//   efficiency = 1.0 / (1.0 + 1.7998) = 0.3571684...                      → 0.357
TEST(WorkloadProjection, WorkedExampleDdp) {
  const CommCurve curve = CommCurve::model(Collective::kAllReduce, 8, AlphaBeta{20.0, 10.0});
  WorkloadCurves curves;
  curves.allreduce = &curve;
  const WorkloadProjection w = project_workload(worked_example_ddp(), curves);
  EXPECT_EQ(w.grad_bytes, 14000000000ull);
  EXPECT_EQ(w.buckets, 535u);
  ASSERT_EQ(w.steps.size(), 2u);
  EXPECT_EQ(w.steps[0].count, 534u);
  EXPECT_NEAR(w.steps[0].lookup.time_us, 4867.52, 1e-6);
  EXPECT_EQ(w.steps[1].count, 1u);
  EXPECT_DOUBLE_EQ(w.steps[1].lookup.size_bytes, 1510400.0);
  EXPECT_NEAR(w.steps[1].lookup.time_us, 544.32, 1e-6);
  EXPECT_NEAR(w.t_comm_s, 2.5998, 1e-9);
  EXPECT_NEAR(w.t_last_bucket_s, 0.00486752, 1e-12);
  EXPECT_NEAR(w.exposed_s, 1.7998, 1e-9);
  EXPECT_NEAR(w.efficiency, 1.0 / 2.7998, 1e-12);
  EXPECT_DOUBLE_EQ(sig3(w.exposed_s), 1.80);
  EXPECT_DOUBLE_EQ(sig3(w.efficiency), 0.357);
  EXPECT_EQ(w.method, "model");
  EXPECT_EQ(w.nranks, 8);
}

// exposed = max(t_last_bucket, t_comm − overlap · t_compute): with full overlap of a long compute, the last
// bucket remains exposed (it can only start when backward ends).
TEST(WorkloadProjection, LastBucketAlwaysExposed) {
  const CommCurve curve = CommCurve::model(Collective::kAllReduce, 8, AlphaBeta{20.0, 10.0});
  WorkloadCurves curves;
  curves.allreduce = &curve;
  WorkloadProfile p = worked_example_ddp();
  p.compute_s = 10.0;
  p.overlap = 1.0;  // t_comm − 10 s < 0
  const WorkloadProjection w = project_workload(p, curves);
  EXPECT_NEAR(w.exposed_s, 0.00486752, 1e-12);
  EXPECT_NEAR(w.efficiency, 10.0 / 10.00486752, 1e-12);
  // Gradients smaller than one bucket: the one bucket holds everything and is the exposed one.
  p.parameters = 1e6;  // 2 MB < 25 MiB
  const WorkloadProjection small = project_workload(p, curves);
  EXPECT_EQ(small.buckets, 1u);
  EXPECT_NEAR(small.t_last_bucket_s, (280.0 + 1.75 * 2e6 / 1e4) * 1e-6, 1e-12);
}

// FSDP by hand on the same curve model (α = 20 µs, β = 10 GB/s, n = 8): 7e10 parameters, 2 B, 80 units
//   unit bytes = 7e10 · 2 / 80 = 1.75e9 B (allgather total gathered = reducescatter total input)
//   t_ag = t_rs = 7 · 20 µs + 0.875 · 1.75e9/1e10 s = 140 µs + 153125 µs = 153265 µs
//   t_comm = 80 · (2 · 153265 + 153265) µs = 36.7836 s; last bucket = one reducescatter = 0.153265 s
//   exposed = max(0.153265, 36.7836 − 0.9 · 5.7) = 31.6536 s; efficiency = 5.7 / 37.3536 = 0.15259...
TEST(WorkloadProjection, FsdpByHand) {
  const CommCurve ag = CommCurve::model(Collective::kAllGather, 8, AlphaBeta{20.0, 10.0});
  const CommCurve rs = CommCurve::model(Collective::kReduceScatter, 8, AlphaBeta{20.0, 10.0});
  WorkloadProfile p = bf16_profile("fsdp", Parallelism::kFsdp, 7e10, 5.7, 0.9);
  p.fsdp_units = 80;
  WorkloadCurves curves;
  EXPECT_THROW(project_workload(p, curves), std::invalid_argument);  // no curves
  curves.allgather = &ag;
  curves.reducescatter = &rs;
  const WorkloadProjection w = project_workload(p, curves);
  ASSERT_EQ(w.steps.size(), 2u);
  EXPECT_EQ(w.steps[0].count, 160u);
  EXPECT_EQ(w.steps[1].count, 80u);
  EXPECT_NEAR(w.steps[0].lookup.time_us, 153265.0, 1e-6);
  EXPECT_NEAR(w.t_comm_s, 36.7836, 1e-9);
  EXPECT_NEAR(w.t_last_bucket_s, 0.153265, 1e-12);
  EXPECT_NEAR(w.exposed_s, 31.6536, 1e-9);
  EXPECT_NEAR(w.efficiency, 5.7 / 37.3536, 1e-12);
}

// The fit recovers α and β within 5 % from synthetic points with 3 % noise (fixed seed, multiplicative noise
// uniform in [−3 %, +3 %] drawn from mt19937's raw output, which is identical on every standard library).
TEST(AlphaBetaFit, RecoversParametersFromNoisyPoints) {
  struct Case {
    Collective c;
    int n;
    AlphaBeta truth;
  };
  for (const Case& k :
       {Case{Collective::kAllReduce, 4, {25.0, 12.0}}, Case{Collective::kAllGather, 8, {8.0, 40.0}},
        Case{Collective::kReduceScatter, 16, {3.5, 2.5}}}) {
    std::mt19937 gen(20261129);
    std::vector<CurvePoint> pts;
    for (double s = 8; s <= 512.0 * 1024 * 1024; s *= 2) {
      const double noise = (static_cast<double>(gen()) / 4294967295.0 * 2.0 - 1.0) * 0.03;
      pts.push_back({s, ring_time_us(k.c, k.n, k.truth, s) * (1.0 + noise)});
    }
    std::string why;
    const auto fit = fit_alpha_beta(k.c, k.n, pts, &why);
    ASSERT_TRUE(fit.has_value()) << why;
    EXPECT_NEAR(fit->model.alpha_us, k.truth.alpha_us, 0.05 * k.truth.alpha_us) << core::name(k.c);
    EXPECT_NEAR(fit->model.beta_gbps, k.truth.beta_gbps, 0.05 * k.truth.beta_gbps) << core::name(k.c);
    EXPECT_EQ(fit->residuals.size(), pts.size());
    EXPECT_LE(fit->max_abs_rel_residual, 0.07);  // noise ±3 % plus the fit's own error
    EXPECT_GT(fit->rms_rel_residual, 0.0);
    EXPECT_FALSE(fit->alpha_clamped);
  }
}

TEST(AlphaBetaFit, ExactPointsGiveExactFitAndZeroResiduals) {
  const AlphaBeta truth{20.0, 10.0};
  const std::vector<CurvePoint> pts = allreduce_on_model(truth, 1024, 4);
  const auto fit = fit_alpha_beta(Collective::kAllReduce, 8, pts);
  ASSERT_TRUE(fit.has_value());
  EXPECT_NEAR(fit->model.alpha_us, 20.0, 1e-6);
  EXPECT_NEAR(fit->model.beta_gbps, 10.0, 1e-9);
  EXPECT_LT(fit->rms_rel_residual, 1e-9);
}

TEST(AlphaBetaFit, NegativeAlphaIsClampedAndDegenerateInputsRefused) {
  // Time exactly proportional to size minus a bit at small sizes would want α < 0: clamp to 0.
  std::vector<CurvePoint> pts = {{1e3, 0.5}, {1e6, 1000.0}, {1e7, 10000.0}};
  const auto fit = fit_alpha_beta(Collective::kAllReduce, 2, pts);
  ASSERT_TRUE(fit.has_value());
  EXPECT_TRUE(fit->alpha_clamped);
  EXPECT_EQ(fit->model.alpha_us, 0.0);
  EXPECT_GT(fit->model.beta_gbps, 0.0);
  std::string why;
  const std::vector<CurvePoint> one = {{1e6, 100.0}, {1e6, 110.0}};
  EXPECT_FALSE(fit_alpha_beta(Collective::kAllReduce, 4, one, &why).has_value());
  EXPECT_NE(why.find("2 distinct"), std::string::npos);
  EXPECT_FALSE(fit_alpha_beta(Collective::kAllReduce, 1, pts, &why).has_value());
  // Time falling with size: no positive β.
  const std::vector<CurvePoint> falling = {{1e3, 1000.0}, {1e6, 10.0}, {1e7, 1.0}};
  EXPECT_FALSE(fit_alpha_beta(Collective::kAllReduce, 4, falling, &why).has_value());
}

TEST(CommCurve, LogLogInterpolationBetweenMeasuredSizes) {
  // (1e6, 100 µs) and (4e6, 200 µs): log-log slope 0.5, so at 2e6: 100 · 2^0.5 = 141.421... µs.
  const CommCurve c = CommCurve::measured(Collective::kAllReduce, 4, {{4e6, 200.0}, {1e6, 100.0}});
  const CurveLookup mid = c.time_at(2e6);
  EXPECT_EQ(mid.method, LookupMethod::kInterpolated);
  EXPECT_NEAR(mid.time_us, 100.0 * std::sqrt(2.0), 1e-9);
  ASSERT_EQ(mid.points_used.size(), 2u);
  EXPECT_EQ(mid.points_used[0].size_bytes, 1e6);
  EXPECT_EQ(mid.points_used[1].size_bytes, 4e6);
  const CurveLookup exact = c.time_at(4e6);
  EXPECT_EQ(exact.method, LookupMethod::kMeasured);
  EXPECT_EQ(exact.time_us, 200.0);
  // Duplicate sizes are averaged; zero sizes dropped.
  const CommCurve d =
      CommCurve::measured(Collective::kAllReduce, 4, {{0, 5.0}, {1e6, 90.0}, {1e6, 110.0}, {2e6, 150.0}});
  EXPECT_EQ(d.points().size(), 2u);
  EXPECT_EQ(d.time_at(1e6).time_us, 100.0);
  EXPECT_THROW(CommCurve::measured(Collective::kAllReduce, 4, {{0, 5.0}}), std::invalid_argument);
  EXPECT_THROW(c.time_at(0), std::invalid_argument);
}

TEST(CommCurve, AlphaBetaExtrapolationBeyondMeasuredSizes) {
  // Points exactly on the model (α = 20 µs, β = 10 GB/s, n = 8) up to 64 MiB: 1 GiB extrapolates to the model
  // value.
  const AlphaBeta truth{20.0, 10.0};
  const CommCurve c = CommCurve::measured(Collective::kAllReduce, 8, allreduce_on_model(truth, 8, 2));
  const CurveLookup big = c.time_at(1073741824.0);
  EXPECT_EQ(big.method, LookupMethod::kExtrapolated);
  EXPECT_NEAR(big.time_us, 188184.8192, 1e-3);
  ASSERT_EQ(big.points_used.size(), 1u);
  EXPECT_EQ(big.points_used[0].size_bytes, 64.0 * 1024 * 1024);
  // Anchored: a curve measured 10 % slower than the model at its largest size stays 10 % slower beyond it.
  std::vector<CurvePoint> slow = {{1e6, ring_time_us(Collective::kAllReduce, 8, truth, 1e6)},
                                  {1e7, 1.1 * ring_time_us(Collective::kAllReduce, 8, truth, 1e7)}};
  const CommCurve s = CommCurve::measured(Collective::kAllReduce, 8, slow);
  ASSERT_TRUE(s.fit().has_value());
  const double m1e7 = ring_time_us(Collective::kAllReduce, 8, s.fit()->model, 1e7);
  const double m1e8 = ring_time_us(Collective::kAllReduce, 8, s.fit()->model, 1e8);
  EXPECT_NEAR(s.time_at(1e8).time_us, slow[1].time_us * m1e8 / m1e7, 1e-9);
  // Projection to 2× ranks multiplies by the ring-model ratio; the model curve projects to the model itself.
  const CommCurve m = CommCurve::model(Collective::kAllReduce, 8, truth);
  EXPECT_NEAR(m.at_nranks(16).time_at(1e9).time_us, ring_time_us(Collective::kAllReduce, 16, truth, 1e9),
              1e-6);
  EXPECT_TRUE(m.at_nranks(16).time_at(1e9).projected);
}

TEST(CommCurve, WorkedExampleOnMeasuredPointsMatchesTheModel) {
  // The DDP worked example on a curve *measured* at powers of two from the same model: 25 MiB is interpolated
  // (between 16 and 32 MiB) and the result stays within 1 % of the exact 0.357.
  const AlphaBeta truth{20.0, 10.0};
  const CommCurve c = CommCurve::measured(Collective::kAllReduce, 8, allreduce_on_model(truth, 8, 2));
  WorkloadCurves curves;
  curves.allreduce = &c;
  const WorkloadProjection w = project_workload(worked_example_ddp(), curves);
  EXPECT_EQ(w.method, "interpolation");
  EXPECT_NEAR(w.efficiency, 1.0 / 2.7998, 0.01 / 2.7998);
}

TEST(BucketAdvice, SmallestSizeReachingNinetyPercentOfPlateau) {
  // allreduce on 2 ranks (factor 1): busBw = S/t/1e3 GB/s with t in µs.
  // 1 MiB at 1 GB/s, 4 MiB at 4.5 GB/s, 16 MiB at 5 GB/s (plateau), 64 MiB at 4.8 GB/s.
  auto t = [](double s, double gbps) { return s / (gbps * 1e3); };
  const double M = 1024.0 * 1024.0;
  const CommCurve c = CommCurve::measured(
      Collective::kAllReduce, 2,
      {{M, t(M, 1.0)}, {4 * M, t(4 * M, 4.5)}, {16 * M, t(16 * M, 5.0)}, {64 * M, t(64 * M, 4.8)}});
  const BucketAdvice a = advise_bucket(c);
  EXPECT_NEAR(a.plateau_busbw_gbps, 5.0, 1e-9);
  EXPECT_EQ(a.plateau_size_bytes, 16 * M);
  EXPECT_FALSE(a.plateau_at_largest_size);
  EXPECT_EQ(a.advised_bucket_bytes, 4 * M);  // 4.5 ≥ 0.9 · 5.0
  EXPECT_NEAR(a.advised_busbw_gbps, 4.5, 1e-9);
  EXPECT_EQ(a.default_bucket_bytes, 25 * M);
  EXPECT_EQ(a.default_method, "interpolation");
  EXPECT_GT(a.default_busbw_gbps, 4.8);
  EXPECT_LT(a.default_busbw_gbps, 5.0);
  const CommCurve ag = CommCurve::measured(Collective::kAllGather, 2, {{M, 1.0}});
  EXPECT_THROW(advise_bucket(ag), std::invalid_argument);
}

TEST(WorkloadValidation, BadComputeAndOverlapRefused) {
  WorkloadProfile p = worked_example_ddp();
  EXPECT_NO_THROW(validate(p, "x"));
  p.compute_s = 0;
  EXPECT_THROW(validate(p, "x"), UsageError);
  p.compute_s = -1;
  EXPECT_THROW(validate(p, "x"), UsageError);
  p = worked_example_ddp();
  p.overlap = 1.5;
  EXPECT_THROW(validate(p, "x"), UsageError);
  p.overlap = -0.1;
  EXPECT_THROW(validate(p, "x"), UsageError);
  p.overlap = 1.0;
  EXPECT_NO_THROW(validate(p, "x"));
  p.bucket_bytes = 0;
  EXPECT_THROW(validate(p, "x"), UsageError);
  try {
    p = worked_example_ddp();
    p.overlap = 2;
    validate(p, "workload demo");
    FAIL() << "no throw";
  } catch (const UsageError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("workload demo"), std::string::npos);
    EXPECT_NE(msg.find("overlap"), std::string::npos);
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
}

TEST(Workloads, BuiltInFileHasTheRequiredProfilesWithAssumptions) {
  const WorkloadSet& set = builtin_workloads();
  const WorkloadProfile& ddp = find_workload(set, "llama-7b-ddp-bf16");
  EXPECT_EQ(ddp.parallelism, Parallelism::kDdp);
  EXPECT_EQ(ddp.parameters, 7e9);
  EXPECT_EQ(ddp.bytes_per_grad, 2.0);
  EXPECT_EQ(ddp.bucket_bytes, 25ull << 20);
  const WorkloadProfile& fsdp = find_workload(set, "llama-70b-fsdp-bf16");
  EXPECT_EQ(fsdp.parallelism, Parallelism::kFsdp);
  EXPECT_GE(fsdp.fsdp_units, 1);
  EXPECT_EQ(fsdp.bytes_per_param, 2.0);
  const WorkloadProfile& demo = find_workload(set, "vfabric-demo");
  EXPECT_GT(demo.compute_s, 0.0);
  EXPECT_EQ(find_workload(set, "").name, set.default_name);
  for (const auto& p : set.profiles) {
    // Every number has its why.
    std::vector<std::string> need = {"parallelism", "parameters", "bytes_per_grad", "compute_s", "overlap"};
    need.push_back(p.parallelism == Parallelism::kDdp ? "bucket_bytes" : "fsdp_units");
    for (const auto& f : need) {
      bool found = false;
      for (const auto& a : p.assumptions) found = found || (a.field == f && !a.why.empty());
      EXPECT_TRUE(found) << p.name << " lacks the assumption for " << f;
    }
  }
  EXPECT_THROW(find_workload(set, "gpt-5"), UsageError);
}

TEST(Workloads, ParserNamesTheJsonPointer) {
  auto msg_of = [](const std::string& text) {
    try {
      parse_workloads(text, "w.json");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string ok_profile =
      R"({"name": "a", "parallelism": {"value": "ddp", "why": "w"}, "parameters": {"value": 1e6, "why": "w"},
          "bytes_per_grad": {"value": 4, "why": "w"}, "bucket_bytes": {"value": "1M", "why": "w"},
          "compute_s": {"value": 0.1, "why": "w"}, "overlap": {"value": 0.5, "why": "w"}})";
  const WorkloadSet s = parse_workloads(R"({"workloads": [)" + ok_profile + "]}", "w.json");
  EXPECT_EQ(s.profiles.at(0).bucket_bytes, 1u << 20);
  EXPECT_EQ(s.default_name, "a");
  EXPECT_NE(msg_of(R"({"workloads": [], "x": 1})").find("/x"), std::string::npos);
  EXPECT_NE(msg_of(R"({"workloads": []})").find("/workloads"), std::string::npos);
  std::string no_why = ok_profile;
  const std::string params = R"("parameters": {"value": 1e6, "why": "w"})";
  no_why.replace(no_why.find(params), params.size(), R"("parameters": {"value": 1e6})");
  EXPECT_NE(msg_of(R"({"workloads": [)" + no_why + "]}").find("/workloads/0/parameters"), std::string::npos);
  std::string bad_overlap = ok_profile;
  bad_overlap.replace(bad_overlap.find("0.5"), 3, "1.5");
  const std::string m = msg_of(R"({"workloads": [)" + bad_overlap + "]}");
  EXPECT_NE(m.find("overlap"), std::string::npos) << m;
  std::string bad_compute = ok_profile;
  bad_compute.replace(bad_compute.find("0.1"), 3, "-2");
  EXPECT_NE(msg_of(R"({"workloads": [)" + bad_compute + "]}").find("compute_s"), std::string::npos);
  EXPECT_NE(msg_of(R"({"default": "zz", "workloads": [)" + ok_profile + "]}").find("/default"),
            std::string::npos);
  EXPECT_NE(msg_of("{not json").find("not valid JSON"), std::string::npos);
}

TEST(Workloads, NumberPastADoubleIsAUsageError) {
  EXPECT_THROW(parse_workloads(R"({"workloads": [{"parameters": 1e309}]})", "w.json"), UsageError);
}
