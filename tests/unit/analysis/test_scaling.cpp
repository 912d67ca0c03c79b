// Unit tests of the `scaling` and `score` sections: curves read from a report's sweeps, group
// scaling, the score and its inputs, the projection, findings, console text.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "fabcheck/core/error.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/scaling.hpp"
#include "fabcheck/report/scaling_overlap.hpp"

using namespace fabcheck;
using namespace fabcheck::report;
using core::Collective;
using nlohmann::json;

namespace {

const AlphaBeta kTruth{20.0, 10.0};

// A sweeps entry per DESIGN §6 with both placements; out-of-place exactly on the model, in-place 3× slower
// (must be ignored).
json sweep_entry(Collective c, int n, double max_bytes) {
  json pts = json::array();
  for (double s = 1024; s <= max_bytes; s *= 4) {
    const double t = ring_time_us(c, n, kTruth, s);
    pts.push_back({{"size_bytes", s}, {"count", s / 4}, {"placement", "out_of_place"}, {"time_us", t}});
    pts.push_back({{"size_bytes", s}, {"count", s / 4}, {"placement", "in_place"}, {"time_us", 3 * t}});
  }
  return {{"collective", std::string(core::name(c))}, {"dtype", "float"}, {"nranks", n}, {"points", pts}};
}

std::string fmt_profile(double compute_s, double overlap) {
  return R"({"default": "demo", "workloads": [{"name": "demo", "parallelism": {"value": "ddp", "why": "t"},
    "parameters": {"value": 4e6, "why": "t"}, "bytes_per_grad": {"value": 4, "why": "t"},
    "bucket_bytes": {"value": "4M", "why": "t"}, "compute_s": {"value": )" +
         std::to_string(compute_s) + R"(, "why": "t"}, "overlap": {"value": )" + std::to_string(overlap) +
         R"(, "why": "t"}}]})";
}

WorkloadSet one_profile(double compute_s, double overlap) {
  const std::string text = fmt_profile(compute_s, overlap);
  return parse_workloads(text, "test");
}

}  // namespace

namespace {

model::ScalingResult groups_result(double busbw2, double busbw4) {
  model::ScalingResult r;
  r.options.workload = "demo";
  r.world_nranks = 4;
  r.world_hosts = 4;
  r.groups.push_back({2, 2, {"h0", "h1"}, 64u << 20, 1000.0, 1.0, busbw2, false});
  r.groups.push_back({4, 4, {"h0", "h1", "h2", "h3"}, 64u << 20, 1000.0, 1.0, busbw4, false});
  return r;
}

}  // namespace

TEST(ScalingSection, CurvesFromSweepsUseOutOfPlaceTimes) {
  json sweeps = json::array({sweep_entry(Collective::kAllReduce, 4, 64.0 * 1024 * 1024),
                             sweep_entry(Collective::kAllGather, 4, 16.0 * 1024 * 1024),
                             {{"collective", "alltoall"}, {"nranks", 4}, {"points", json::array()}}});
  const MeasuredCurves c = curves_from_sweeps(sweeps);
  ASSERT_TRUE(c.allreduce.has_value());
  ASSERT_TRUE(c.allgather.has_value());
  EXPECT_FALSE(c.reducescatter.has_value());
  EXPECT_EQ(c.nranks, 4);
  EXPECT_EQ(c.dtype, "float");
  EXPECT_EQ(c.allreduce->points().size(), 9u);  // 1K, 4K, ..., 64M (in-place dropped)
  ASSERT_TRUE(c.allreduce->fit().has_value());
  EXPECT_NEAR(c.allreduce->fit()->model.alpha_us, 20.0, 1e-6);
  EXPECT_NEAR(c.allreduce->fit()->model.beta_gbps, 10.0, 1e-9);
  EXPECT_FALSE(curves_from_sweeps(json()).allreduce.has_value());
}

TEST(ScalingSection, ScoreIsTheReferenceProjectionWithInputs) {
  Document doc;
  doc.json()["sweeps"] = json::array({sweep_entry(Collective::kAllReduce, 4, 64.0 * 1024 * 1024)});
  const model::ScalingResult r = groups_result(2.0, 1.9);
  const WorkloadSet set = one_profile(0.004, 0.25);
  add_scaling(doc, r, set);
  const json& j = doc.json();

  // The same projection computed directly on the same curve.
  const MeasuredCurves c = curves_from_sweeps(j["sweeps"]);
  const WorkloadProjection w = project_workload(set.profiles.at(0), c.view());
  ASSERT_TRUE(j["score"]["scaling_efficiency"].is_number());
  EXPECT_DOUBLE_EQ(j["score"]["scaling_efficiency"].get<double>(), w.efficiency);
  EXPECT_GT(w.efficiency, 0.0);
  EXPECT_LT(w.efficiency, 1.0);
  const json& in = j["score"]["inputs"];
  EXPECT_DOUBLE_EQ(in["t_compute_s"].get<double>(), 0.004);
  EXPECT_DOUBLE_EQ(in["overlap"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(in["t_comm_s"].get<double>(), w.t_comm_s);
  EXPECT_DOUBLE_EQ(in["exposed_s"].get<double>(), w.exposed_s);
  EXPECT_EQ(in["method"], "measured+interpolation");  // 4M buckets measured, the remainder interpolated
  ASSERT_FALSE(in["curve_points"].empty());
  EXPECT_EQ(in["curve_points"][0]["points"].size(), 1u);  // the measured 4M point
  EXPECT_EQ(in["curve_points"][1]["points"].size(), 2u);  // 1M and 4M around the remainder
  EXPECT_FALSE(j["score"]["assumptions"].empty());
  EXPECT_EQ(j["score"]["workload"], "demo");
  EXPECT_EQ(j["score"]["hosts"], 4);

  // Groups divided by the 2-host value.
  EXPECT_DOUBLE_EQ(j["scaling"]["groups"][1]["vs_2host"].get<double>(), 0.95);
  // Projection to 2×, 4×, 8× hosts, labelled.
  ASSERT_EQ(j["scaling"]["projection"].size(), 3u);
  EXPECT_EQ(j["scaling"]["projection"][0]["hosts"], 8);
  EXPECT_EQ(j["scaling"]["projection"][2]["nranks"], 32);
  EXPECT_EQ(j["scaling"]["projection"][0]["label"], kRingProjectionLabel);
  // More ranks never make the ring model faster: efficiency does not rise with hosts.
  const double e8 = j["scaling"]["projection"][0]["workloads"][0]["efficiency"].get<double>();
  const double e32 = j["scaling"]["projection"][2]["workloads"][0]["efficiency"].get<double>();
  EXPECT_LE(e8, w.efficiency);
  EXPECT_LE(e32, e8);
  // Model: the fit recovers the model the points came from, residuals reported.
  EXPECT_NEAR(j["scaling"]["model"]["allreduce"]["alpha_us"].get<double>(), 20.0, 1e-6);
  EXPECT_EQ(j["scaling"]["model"]["allreduce"]["residuals"].size(), 9u);
  // Bucket advice present, with the 25 MiB default beside it.
  EXPECT_EQ(j["scaling"]["bucket_advice"]["default_bucket_bytes"].get<double>(), 25.0 * 1024 * 1024);
  EXPECT_TRUE(j["scaling"]["bucket_advice"]["advised_bucket_bytes"].is_number());
  EXPECT_EQ(j["run"]["sections"]["scaling"]["status"], "ok");
  // No NaN anywhere: dump() would write null for NaN, so compare against a re-parse.
  EXPECT_EQ(json::parse(j.dump()), j);

  const std::string text = render_scaling(r, doc);
  EXPECT_NE(text.find("For demo on 4 hosts this fabric delivers "), std::string::npos) << text;
  EXPECT_NE(text.find("of ideal scaling; communication exposes "), std::string::npos);
  EXPECT_NE(text.find("ring model, upper bound on latency terms"), std::string::npos);
}

TEST(ScalingSection, NoSweepGivesNullScoreWithReason) {
  Document doc;
  add_scaling(doc, groups_result(2.0, 2.0), one_profile(0.04, 0.25));
  const json& j = doc.json();
  EXPECT_TRUE(j["score"]["scaling_efficiency"].is_null());
  EXPECT_TRUE(j["score"]["reason"].is_string());
  EXPECT_TRUE(j["scaling"]["projection"].empty());
  EXPECT_TRUE(j["scaling"]["bucket_advice"]["advised_bucket_bytes"].is_null());
  EXPECT_EQ(j["run"]["sections"]["scaling"]["status"], "ok");  // the groups ran
  // Nothing at all: skipped with the reason.
  Document empty;
  model::ScalingResult none;
  none.options.workload = "demo";
  none.skipped_reason = "one rank: nothing to scale";
  add_scaling(empty, none, one_profile(0.04, 0.25));
  EXPECT_EQ(empty.json()["run"]["sections"]["scaling"]["status"], "skipped");
  EXPECT_EQ(empty.json()["run"]["sections"]["scaling"]["reason"], "one rank: nothing to scale");
  EXPECT_NE(render_scaling(none).find("skipped: one rank"), std::string::npos);
}

TEST(ScalingSection, FsdpWithoutAllgatherSweepHasNullWithReason) {
  Document doc;
  doc.json()["sweeps"] = json::array({sweep_entry(Collective::kAllReduce, 4, 1024.0 * 1024)});
  model::ScalingResult r = groups_result(2.0, 2.0);
  r.options.workload = "llama-70b-fsdp-bf16";
  add_scaling(doc, r, builtin_workloads());
  const json& j = doc.json();
  EXPECT_TRUE(j["score"]["scaling_efficiency"].is_null());
  EXPECT_NE(j["score"]["reason"].get<std::string>().find("allgather"), std::string::npos);
  // The DDP profile still projects (extrapolated beyond 1 MiB).
  bool ddp_found = false;
  for (const auto& w : j["scaling"]["workloads"]) {
    if (w["workload"] == "llama-7b-ddp-bf16") {
      ddp_found = true;
      EXPECT_TRUE(w["efficiency"].is_number());
      EXPECT_EQ(w["method"], "extrapolation");
    }
  }
  EXPECT_TRUE(ddp_found);
}

TEST(ScalingSection, BusbwDropIsAWarning) {
  Document doc;
  add_scaling(doc, groups_result(2.0, 1.0), one_profile(0.04, 0.25));
  bool found = false;
  for (const auto& f : doc.json()["findings"]) found = found || f["code"] == "SCALING_BUSBW_DROP";
  EXPECT_TRUE(found);
  Document ok;
  add_scaling(ok, groups_result(2.0, 1.9), one_profile(0.04, 0.25));
  for (const auto& f : ok.json()["findings"]) EXPECT_NE(f["code"], "SCALING_BUSBW_DROP");
  EXPECT_THROW(add_scaling(
                   ok,
                   [] {
                     auto r = groups_result(1, 1);
                     r.options.workload = "nope";
                     return r;
                   }(),
                   one_profile(0.04, 0.25)),
               UsageError);
}

TEST(ScalingSection, ACutByTheTimeLimitIsSaidAndStatesWhatWasLeftOut) {
  // A slow host joining the groups: the 4-host group would have outrun the step's limit and was not measured.
  auto r = groups_result(2.0, 1.9);
  r.groups.pop_back();
  r.options.time_limit_s = 12;
  r.cut.from_hosts = 4;
  r.cut.predicted_s = 27.5;
  r.cut.allowance_s = 10.25;
  Document doc;
  add_scaling(doc, r, one_profile(0.04, 0.25));
  const json& t = doc.json()["scaling"]["truncated"];
  EXPECT_EQ(t["from_group"], 4);
  EXPECT_EQ(t["predicted_s"], 27.5);
  const json* f = nullptr;
  for (const auto& x : doc.json()["findings"])
    if (x["code"] == "SCALING_TRUNCATED") f = &x;
  ASSERT_NE(f, nullptr);
  EXPECT_EQ((*f)["severity"], "warn");
  EXPECT_NE((*f)["message"].get<std::string>().find("group of 4 hosts"), std::string::npos)
      << (*f)["message"];
  // No cut: nothing said, `truncated` null.
  Document clean;
  add_scaling(clean, groups_result(2.0, 1.9), one_profile(0.04, 0.25));
  EXPECT_TRUE(clean.json()["scaling"]["truncated"].is_null());
  for (const auto& x : clean.json()["findings"]) EXPECT_NE(x["code"], "SCALING_TRUNCATED");
}

// The measured overlap (an `overlap` section) replaces the profile's assumed one.
namespace {

json overlap_section_for_test() {
  auto pt = [](const char* coll, double size, double ov, json ov_poll) {
    return json{{"coll", coll}, {"size_bytes", size}, {"overlap", ov}, {"overlap_poll", ov_poll}};
  };
  return {{"poll_us", 100.0},
          {"points", json::array({pt("allreduce", 1 << 20, 0.9, 0.95), pt("allreduce", 8 << 20, 0.05, 0.10),
                                  pt("allgather", 8 << 20, 0.0, nullptr)})}};
}

}  // namespace

TEST(ScalingOverlap, NearestSizePolledFirst) {
  const WorkloadSet set = one_profile(0.004, 0.65);  // ddp, 4M buckets
  const auto m = measured_overlap_for(overlap_section_for_test(), set.profiles.at(0));
  ASSERT_TRUE(m);
  // 4M is nearer 8M than 1M in log size (|ln 2| < |ln 4|): the 8M point, its polled figure.
  EXPECT_EQ(m->size_bytes, 8u << 20);
  EXPECT_DOUBLE_EQ(m->value, 0.10);
  EXPECT_EQ(m->variant, "polled");
  EXPECT_FALSE(measured_overlap_for(json(), set.profiles.at(0)));
  const WorkloadSet used = with_measured_overlap(set, overlap_section_for_test());
  EXPECT_DOUBLE_EQ(used.profiles.at(0).overlap, 0.10);
  bool said = false;
  for (const auto& a : used.profiles.at(0).assumptions)
    said |= a.field == "overlap" && a.why.find("measured by the overlap step") != std::string::npos &&
            a.why.find("assumed 0.65") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(ScalingOverlap, ScoreUsesMeasuredOverlapAndSaysSo) {
  Document doc;
  doc.json()["sweeps"] = json::array({sweep_entry(Collective::kAllReduce, 4, 64.0 * 1024 * 1024)});
  doc.json()["overlap"] = overlap_section_for_test();
  const WorkloadSet set = one_profile(0.004, 0.65);
  add_scaling(doc, groups_result(2.0, 1.9), set);
  const json& s = doc.json()["score"];
  EXPECT_EQ(s["overlap_basis"], "measured");
  EXPECT_DOUBLE_EQ(s["overlap_assumed"].get<double>(), 0.65);
  EXPECT_DOUBLE_EQ(s["overlap_measured"].get<double>(), 0.10);
  EXPECT_DOUBLE_EQ(s["inputs"]["overlap"].get<double>(), 0.10);
  // The same projections computed directly with each overlap.
  const MeasuredCurves c = curves_from_sweeps(doc.json()["sweeps"]);
  WorkloadProfile measured = set.profiles.at(0);
  measured.overlap = 0.10;
  EXPECT_DOUBLE_EQ(s["scaling_efficiency"].get<double>(), project_workload(measured, c.view()).efficiency);
  EXPECT_DOUBLE_EQ(s["scaling_efficiency_assumed_overlap"].get<double>(),
                   project_workload(set.profiles.at(0), c.view()).efficiency);
  int below = 0;
  for (const auto& f : doc.json()["findings"]) {
    if (f["code"] != "OVERLAP_BELOW_ASSUMPTION") continue;
    ++below;
    EXPECT_EQ(f["severity"], "warn");
    EXPECT_NE(f["message"].get<std::string>().find("assumed 0.65, measured 0.10"), std::string::npos) << f;
  }
  EXPECT_EQ(below, 1);
  EXPECT_NE(render_scaling(groups_result(2.0, 1.9), doc).find("overlap 0.10 measured (assumed 0.65)"),
            std::string::npos);
}

TEST(ScalingOverlap, NoOverlapSectionKeepsTheAssumption) {
  Document doc;
  doc.json()["sweeps"] = json::array({sweep_entry(Collective::kAllReduce, 4, 64.0 * 1024 * 1024)});
  add_scaling(doc, groups_result(2.0, 1.9), one_profile(0.004, 0.65));
  const json& s = doc.json()["score"];
  EXPECT_EQ(s["overlap_basis"], "assumed");
  EXPECT_TRUE(s["overlap_measured"].is_null());
  for (const auto& f : doc.json()["findings"]) EXPECT_NE(f["code"], "OVERLAP_BELOW_ASSUMPTION");
}
