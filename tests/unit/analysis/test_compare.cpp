// compare_reports: metric matching, verdicts (worse / better / within noise / noise unknown), the shared test
// per sample set, Holm over the tests, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "fabcheck/core/error.hpp"
#include "fabcheck/report/compare.hpp"
#include "fabcheck/report/compare_render.hpp"

using namespace fabcheck;
using namespace fabcheck::report;
using json = nlohmann::json;

namespace {

// A sweep point whose per-iteration samples are base·(1 + k/100) for k = 0..n−1 (distinct, no ties).
json point(std::uint64_t size, const char* placement, double time_us, int n, double base_us) {
  json samples = json::array();
  for (int k = 0; k < n; ++k) samples.push_back(base_us * (1.0 + k / 100.0));
  const double algbw = static_cast<double>(size) / 1e3 / time_us;
  return {
      {"size_bytes", size},
      {"count", size / 4},
      {"placement", placement},
      {"time_us", time_us},
      {"algbw_gbps", algbw},
      {"busbw_gbps", algbw * 1.5},
      {"wrong", 0},
      {"per_iter",
       n > 0 ? json{{"samples", n}, {"p50_us", base_us}, {"p99_us", base_us * 1.2}, {"samples_us", samples}}
             : json(nullptr)}};
}

json report_with_rc(json points) {
  return {{"schema_version", 1},
          {"sweeps", json::array({{{"collective", "allreduce"},
                                   {"dtype", "float"},
                                   {"redop", "sum"},
                                   {"root", nullptr},
                                   {"avg_busbw_gbps", 1.0},
                                   {"points", std::move(points)}}})}};
}

const CompareRow* find(const CompareResult& r, std::uint64_t size, const std::string& metric) {
  for (const auto& row : r.rows)
    if (row.a_metric.section == "sweeps" && row.a_metric.key.value("size_bytes", json()) == size &&
        row.a_metric.metric == metric)
      return &row;
  return nullptr;
}

// compare of a report with the points `a` (path a, labelled `label_a`) and one with `b` (b, `label_b`).
CompareResult compare_ab(json a, json b, const CompareRule& rule = {}, const std::string& label_a = "A",
                         const std::string& label_b = "B") {
  return compare_reports(report_with_rc(std::move(a)), report_with_rc(std::move(b)), {"a", label_a, {}},
                         {"b", label_b, {}}, rule);
}

}  // namespace

TEST(Compare, SlowerPointIsWorseEqualPointIsWithinNoise) {
  // 1 MiB: B takes twice as long, samples fully separated → worse. 4 KiB: same samples, same time → within
  // noise.
  const json a = report_with_rc(
      {point(1 << 20, "out_of_place", 1000, 30, 1000), point(4096, "out_of_place", 50, 30, 50)});
  const json b = report_with_rc(
      {point(1 << 20, "out_of_place", 2000, 30, 2000), point(4096, "out_of_place", 50, 30, 50)});
  const auto r = compare_reports(a, b, {"a.json", "A", {}}, {"b.json", "B", {}});
  const auto* bw = find(r, 1 << 20, "busbw_gbps");
  ASSERT_NE(bw, nullptr);
  EXPECT_NEAR(*bw->delta_pct, -50.0, 1e-9);
  EXPECT_EQ(bw->better, "a");
  EXPECT_EQ(bw->verdict, CompareVerdict::kWorse);
  EXPECT_EQ(bw->method, "exact");
  EXPECT_EQ(bw->n_a, 30u);
  const auto* t = find(r, 1 << 20, "time_us");
  EXPECT_NEAR(*t->delta_pct, 100.0, 1e-9);
  EXPECT_EQ(t->verdict, CompareVerdict::kWorse);  // time up = worse, the same test as busbw
  EXPECT_EQ(*t->p_holm, *bw->p_holm);
  const auto* same = find(r, 4096, "busbw_gbps");
  EXPECT_EQ(same->better, "equal");
  EXPECT_EQ(same->verdict, CompareVerdict::kWithinNoise);
  EXPECT_DOUBLE_EQ(*same->p, 1.0);
  // Two sample sets → two tests in the Holm family; the separated one: exact p = 2/C(60,30), times 2 (Holm).
  EXPECT_EQ(r.tests, 2u);
  EXPECT_LT(*bw->p_holm, 1e-15);
  // avg_busbw_gbps has no samples.
  bool avg_unknown = false;
  for (const auto& row : r.rows)
    if (row.a_metric.metric == "avg_busbw_gbps") avg_unknown = row.verdict == CompareVerdict::kNoiseUnknown;
  EXPECT_TRUE(avg_unknown);
}

TEST(Compare, SmallDeltaIsNotSignificantEvenWithTinyP) {
  // 5 % slower and samples shifted by 5 %: p is tiny but |delta| < 10 % → within noise; with --min-delta 4 →
  // worse.
  const json a = {point(1 << 20, "in_place", 1000, 40, 1000)};
  const json b = {point(1 << 20, "in_place", 1050, 40, 1500)};
  const auto r = compare_ab(a, b);
  const auto* bw = find(r, 1 << 20, "busbw_gbps");
  EXPECT_LT(*bw->p_holm, 0.01);
  EXPECT_EQ(bw->verdict, CompareVerdict::kWithinNoise);
  CompareRule loose;
  loose.min_delta = 0.04;
  const auto r2 = compare_ab(a, b, loose);
  EXPECT_EQ(find(r2, 1 << 20, "busbw_gbps")->verdict, CompareVerdict::kWorse);
}

TEST(Compare, BetterAndDirectionConflict) {
  // B twice as fast with samples that agree → better. A point whose table time improved while its samples got
  // slower is not called significant (the value moved against its own samples).
  const auto r = compare_ab(
      {point(1 << 20, "out_of_place", 2000, 30, 2000), point(2 << 20, "out_of_place", 4000, 30, 4000)},
      {point(1 << 20, "out_of_place", 1000, 30, 1000), point(2 << 20, "out_of_place", 2000, 30, 8000)}, {},
      "roce", "ib");
  EXPECT_EQ(find(r, 1 << 20, "busbw_gbps")->verdict, CompareVerdict::kBetter);
  EXPECT_EQ(find(r, 1 << 20, "busbw_gbps")->better, "b");
  // Moved 2x against its samples: not called, and too large a move to be "within noise".
  EXPECT_EQ(find(r, 2 << 20, "busbw_gbps")->verdict, CompareVerdict::kInconclusive);
  const std::string text = render_compare(r);
  EXPECT_NE(text.find("ib better"), std::string::npos);
  const std::string html = render_compare_html(r);
  EXPECT_NE(html.find("<table id=\"compare\">"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  // Self-contained: no external reference (the inline SVGs' namespace is a name, not a fetch).
  std::string stripped = html;
  for (std::size_t at; (at = stripped.find("http://www.w3.org/2000/svg")) != std::string::npos;)
    stripped.erase(at, 26);
  EXPECT_EQ(stripped.find("http"), std::string::npos);
}

TEST(Compare, HtmlLeadsWithCurvesAndTopChangesTableCollapsedBelow) {
  // B takes 3x the time at 1 MiB and 2 MiB (busBw a third): both points worse; the page shows the A/B busBw
  // curve of the series with those points marked, lists them as the top regressions, and keeps the table
  // below, collapsed.
  const auto r = compare_ab(
      {point(1 << 20, "out_of_place", 1000, 30, 1000), point(2 << 20, "out_of_place", 2000, 30, 2000)},
      {point(1 << 20, "out_of_place", 3000, 30, 3000), point(2 << 20, "out_of_place", 6000, 30, 6000)}, {},
      "clean", "throttled");
  ASSERT_EQ(find(r, 1 << 20, "busbw_gbps")->verdict, CompareVerdict::kWorse);
  const std::string html = render_compare_html(r);
  const auto curve = html.find("<figure class=\"curve\" data-block=\"allreduce float sum\">");
  const auto regress = html.find("<h2 id=\"regressions\">Top regressions");
  const auto table = html.find("<details id=\"all\"><summary>All ");
  ASSERT_NE(curve, std::string::npos) << html;
  ASSERT_NE(regress, std::string::npos);
  ASSERT_NE(table, std::string::npos);
  EXPECT_LT(curve, regress);
  EXPECT_LT(regress, table);
  EXPECT_LT(table, html.find("<table id=\"compare\">"));
  // Two B points drawn as worse, two A points.
  std::size_t worse_b = 0, a_pts = 0;
  for (std::size_t at = 0;
       (at = html.find("data-verdict=\"worse\" data-side=\"b\"", at)) != std::string::npos; ++at)
    ++worse_b;
  for (std::size_t at = 0; (at = html.find("data-side=\"a\"", at)) != std::string::npos; ++at) ++a_pts;
  EXPECT_EQ(worse_b, 2u);
  EXPECT_EQ(a_pts, 2u);
  // The regression list names the busBw rows with their delta.
  EXPECT_NE(html.find("busbw_gbps: "), std::string::npos);
  EXPECT_NE(html.find("(-66.7 %)"), std::string::npos) << html.substr(regress, 2000);
}

TEST(Compare, NoSamplesMeansNoiseUnknown) {
  // Imported results carry no per-iteration samples: every row says noise unknown, even with a 50 % change.
  const auto r =
      compare_ab({point(1 << 20, "out_of_place", 1000, 0, 0)}, {point(1 << 20, "out_of_place", 2000, 0, 0)});
  EXPECT_EQ(r.tests, 0u);
  for (const auto& row : r.rows) EXPECT_EQ(row.verdict, CompareVerdict::kNoiseUnknown) << row.a_metric.id;
  EXPECT_NEAR(*find(r, 1 << 20, "busbw_gbps")->delta_pct, -50.0, 1e-9);
  const json j = compare_json(r);
  EXPECT_EQ(j["summary"]["noise_unknown"], r.rows.size());
  EXPECT_TRUE(j["metrics"][0]["p"].is_null());
}

TEST(Compare, UnmatchedMetricsAndNoneInCommon) {
  const json a = report_with_rc({point(1 << 20, "out_of_place", 1000, 5, 1000)});
  const json b = report_with_rc({point(2 << 20, "out_of_place", 1000, 5, 1000)});
  const auto r = compare_reports(a, b, {"a", "A", {}}, {"b", "B", {}});
  EXPECT_EQ(r.rows.size(), 1u);  // only avg_busbw_gbps is shared
  EXPECT_EQ(r.only_in_a.size(), 5u);
  EXPECT_EQ(r.only_in_b.size(), 5u);
  const json latency_only = {{"schema_version", 1},
                             {"latency", json::array({{{"kind", "p2p"},
                                                       {"pattern", "pingpong"},
                                                       {"size_bytes", 8},
                                                       {"p50_us", 10.0},
                                                       {"histogram", json::array({{10000, 10100, 5}})}}})}};
  try {
    (void)compare_reports(a, latency_only, {"a.json", "A", {}}, {"lat.json", "B", {}});
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("no metric in common"), std::string::npos);
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
}

TEST(Compare, LatencyHistogramsAreTestedWithTies) {
  // The latency section keeps histograms, not raw samples: buckets expand to ties at their lower edge.
  auto lat = [](double p50, json hist) {
    return json{{"schema_version", 1},
                {"latency", json::array({{{"kind", "p2p"},
                                          {"pattern", "pingpong"},
                                          {"size_bytes", 8},
                                          {"p50_us", p50},
                                          {"p99_us", p50 * 2},
                                          {"histogram", std::move(hist)}}})}};
  };
  const json a = lat(10, json::array({{10000, 10240, 300}, {20000, 20480, 10}}));
  const json b = lat(30, json::array({{30000, 30720, 300}, {60000, 61440, 10}}));
  const auto r = compare_reports(a, b, {"a", "A", {}}, {"b", "B", {}});
  ASSERT_FALSE(r.rows.empty());
  for (const auto& row : r.rows) {
    EXPECT_EQ(row.samples_source, "histogram");
    EXPECT_EQ(row.method, "normal");
    EXPECT_EQ(row.n_a, 310u);
    EXPECT_EQ(row.verdict, CompareVerdict::kWorse) << row.a_metric.metric;
  }
}

TEST(Compare, AddCompareWritesSectionAndFinding) {
  const json a = report_with_rc({point(1 << 20, "out_of_place", 1000, 30, 1000)});
  const json b = report_with_rc({point(1 << 20, "out_of_place", 2000, 30, 2000)});
  const auto r = compare_reports(a, b, {"a.json", "A", {}}, {"b.json", "B", {}});
  Document doc({"fabcheck", "compare", "a.json", "b.json"});
  add_compare(doc, r);
  const json& j = doc.json();
  EXPECT_EQ(j["schema_version"], kSchemaVersion);
  EXPECT_EQ(j["run"]["sections"]["compare"]["status"], "ok");
  EXPECT_EQ(j["compare"]["summary"]["worse"], r.count(CompareVerdict::kWorse));
  EXPECT_EQ(j["compare"]["a"]["path"], "a.json");
  ASSERT_EQ(j["findings"].size(), 1u);
  EXPECT_EQ(j["findings"][0]["code"], "COMPARE_B_WORSE");
  EXPECT_EQ(j["findings"][0]["severity"], "warn");
}

TEST(CompareRuns, MergeTakesTheMedianPoolsSamplesAndDropsPartialMetrics) {
  // Three runs of one point: time 1000, 1200, 1100 µs → median 1100; 30 samples each → 90 pooled. The 4 KiB
  // point is missing from run 2: left out of the merge and listed.
  const json r1 =
      report_with_rc({point(1 << 20, "in_place", 1000, 30, 1000), point(4096, "in_place", 50, 30, 50)});
  const json r2 = report_with_rc({point(1 << 20, "in_place", 1200, 30, 1200)});
  const json r3 =
      report_with_rc({point(1 << 20, "in_place", 1100, 30, 1100), point(4096, "in_place", 50, 30, 50)});
  const SideMetrics s = merge_runs({extract_metrics(r1), extract_metrics(r2), extract_metrics(r3)});
  EXPECT_EQ(s.runs, 3u);
  const CompareMetric* time = nullptr;
  for (const auto& m : s.merged.metrics)
    if (m.metric == "time_us") time = &m;
  ASSERT_NE(time, nullptr);
  EXPECT_DOUBLE_EQ(time->value, 1100.0);
  EXPECT_EQ(s.run_values.at(time->id), (std::vector<double>{1000, 1200, 1100}));
  ASSERT_FALSE(time->samples_id.empty());
  EXPECT_EQ(s.merged.samples.at(time->samples_id).values.size(), 90u);
  EXPECT_EQ(s.merged.samples.at(time->samples_id).values[30], 1200.0);  // run 2's first sample
  std::size_t partial_4k = 0;
  for (const auto& id : s.not_in_every_run) partial_4k += id.find("\"size_bytes\":4096") != std::string::npos;
  EXPECT_EQ(partial_4k, 5u);  // time, algbw, busbw, p50, p99 of the 4 KiB point
  for (const auto& m : s.merged.metrics) {
    EXPECT_NE(m.key.value("size_bytes", json()), 4096);
  }
  // Two runs: the mean of the two middle values.
  const SideMetrics two = merge_runs({extract_metrics(r1), extract_metrics(r2)});
  for (const auto& m : two.merged.metrics)
    if (m.metric == "time_us") {
      EXPECT_DOUBLE_EQ(m.value, 1100.0);
    }
  EXPECT_THROW(merge_runs({}), std::invalid_argument);
}

TEST(CompareRuns, RunSpreadIsTheLogOfMaxOverMin) {
  EXPECT_NEAR(*run_spread_ln({2.0, 1.0, 1.5}), std::log(2.0), 1e-12);
  EXPECT_FALSE(run_spread_ln({1.0}).has_value());
  EXPECT_FALSE(run_spread_ln({0.0, 1.0}).has_value());
  EXPECT_DOUBLE_EQ(*run_spread_ln({3.0, 3.0}), 0.0);
}

TEST(CompareRuns, AWholeRunDriftIsWithinTheRunSpread) {
  // A: two runs at 1000 µs. B: one run at 1000 µs and one where the whole run drifted 25 % slower. Compared
  // run to run (B's slow run alone) the point is "worse"; with both runs per side the difference (B's median
  // time 1125 µs, busbw −10 %) is within 3 × B's run spread ln(1.25), so within noise.
  const json a1 = report_with_rc({point(1 << 20, "in_place", 1000, 30, 1000)});
  const json a2 = report_with_rc({point(1 << 20, "in_place", 1000, 30, 1000)});
  const json b1 = report_with_rc({point(1 << 20, "in_place", 1000, 30, 1000)});
  const json b2 = report_with_rc({point(1 << 20, "in_place", 1250, 30, 1250)});
  const auto single = compare_reports(a1, b2, {"a1", "A", {}}, {"b2", "B", {}});
  EXPECT_EQ(find(single, 1 << 20, "busbw_gbps")->verdict, CompareVerdict::kWorse);
  EXPECT_FALSE(find(single, 1 << 20, "busbw_gbps")->run_spread_pct.has_value());

  const auto r = compare_reports(std::vector<json>{a1, a2}, std::vector<json>{b1, b2}, {"a1,a2", "A", {}},
                                 {"b1,b2", "B", {}});
  EXPECT_EQ(r.a.runs, 2u);
  EXPECT_EQ(r.b.runs, 2u);
  const auto* bw = find(r, 1 << 20, "busbw_gbps");
  ASSERT_NE(bw, nullptr);
  EXPECT_NEAR(*bw->delta_pct, -10.0, 1e-9);  // B's busbw: the mean of its runs' x and x / 1.25
  EXPECT_LT(*bw->p_holm, 0.01);              // the pooled samples alone would call it
  EXPECT_NEAR(*bw->run_spread_pct, 25.0, 1e-9);
  EXPECT_NEAR(*bw->needed_delta_pct, (std::exp(-3.0 * std::log(1.25)) - 1.0) * 100.0, 1e-9);  // −48.8 %
  EXPECT_TRUE(bw->within_run_spread);
  EXPECT_EQ(bw->verdict, CompareVerdict::kWithinNoise);
  EXPECT_EQ(bw->b_runs.size(), 2u);
  const json j = compare_json(r);
  EXPECT_EQ(j["a"]["runs"], 2);
  EXPECT_EQ(j["summary"]["within_run_spread"].get<int>(), 5);  // time, algbw, busbw, p50, p99 share the test
  EXPECT_EQ(j["summary"]["flagged"], 0);
}

TEST(CompareRuns, ADifferenceBeyondTheRunSpreadIsCalled) {
  // A runs 1000 and 1050 µs, B runs 2000 and 2100 µs: spread ln(1.05) → needs |ln(B/A)| >= 0.146; the
  // difference is ln 2 → worse. A single run on one side uses the other side's spread.
  const json a1 = report_with_rc({point(1 << 20, "in_place", 1000, 30, 1000)});
  const json a2 = report_with_rc({point(1 << 20, "in_place", 1050, 30, 1050)});
  const json b1 = report_with_rc({point(1 << 20, "in_place", 2000, 30, 2000)});
  const json b2 = report_with_rc({point(1 << 20, "in_place", 2100, 30, 2100)});
  const auto r =
      compare_reports(std::vector<json>{a1, a2}, std::vector<json>{b1, b2}, {"a", "A", {}}, {"b", "B", {}});
  const auto* t = find(r, 1 << 20, "time_us");
  EXPECT_NEAR(*t->delta_pct, 100.0, 1e-9);
  EXPECT_NEAR(*t->needed_delta_pct, (std::pow(1.05, 3.0) - 1.0) * 100.0, 1e-9);
  EXPECT_EQ(t->verdict, CompareVerdict::kWorse);
  const auto one_b =
      compare_reports(std::vector<json>{a1, a2}, std::vector<json>{b1}, {"a", "A", {}}, {"b", "B", {}});
  EXPECT_EQ(find(one_b, 1 << 20, "busbw_gbps")->verdict, CompareVerdict::kWorse);
  EXPECT_NEAR(*find(one_b, 1 << 20, "busbw_gbps")->run_spread_pct, 5.0, 1e-9);
}

TEST(CompareRuns, UnknownSpreadFailsClosedAndPartialMetricsAreListedPerSide) {
  // A's first run reports busbw 0 at 1 MiB (a broken run): its spread has no ratio, so even a large,
  // significant difference is not called. A metric missing from one of A's runs (4 KiB) is listed as not in
  // every run of A, not as "only in B".
  json a1 = report_with_rc({point(1 << 20, "in_place", 1000, 30, 1000), point(4096, "in_place", 50, 30, 50)});
  a1["sweeps"][0]["points"][0]["busbw_gbps"] = 0.0;
  const json a2 = report_with_rc({point(1 << 20, "in_place", 1000, 30, 1000)});
  const json b1 =
      report_with_rc({point(1 << 20, "in_place", 4000, 30, 4000), point(4096, "in_place", 50, 30, 50)});
  const auto r =
      compare_reports(std::vector<json>{a1, a2}, std::vector<json>{b1}, {"a", "A", {}}, {"b", "B", {}});
  const auto* bw = find(r, 1 << 20, "busbw_gbps");
  ASSERT_NE(bw, nullptr);
  EXPECT_TRUE(bw->run_spread_unknown);
  EXPECT_TRUE(bw->within_run_spread);
  EXPECT_FALSE(bw->run_spread_pct.has_value());
  EXPECT_EQ(bw->verdict, CompareVerdict::kInconclusive);  // 4x: not called, not "within noise" either
  EXPECT_EQ(find(r, 1 << 20, "time_us")->verdict, CompareVerdict::kWorse);  // its runs agree: 1000, 1000
  EXPECT_EQ(r.not_in_every_run_a.size(), 5u);
  EXPECT_TRUE(r.not_in_every_run_b.empty());
  EXPECT_TRUE(r.only_in_b.empty());
  EXPECT_TRUE(r.only_in_a.empty());
  const json j = compare_json(r);
  EXPECT_EQ(j["not_in_every_run_a"].size(), 5u);
}

TEST(Compare, TooFewSamplesAreNotTestableNeverWithinNoise) {
  // The default run's 3 samples per point: a 2x slower B is "not testable (n = 3/3)", not "within noise" —
  // even A's 3 samples all below B's 3 give exact p = 2/C(6,3) = 0.1 > 0.01.
  EXPECT_NEAR(report::min_attainable_p_holm(3, 3, 1), 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(report::min_attainable_p_holm(3, 3, 20), 1.0);                        // capped
  EXPECT_NEAR(report::min_attainable_p_holm(10, 10, 100), 100 * 2.0 / 184756.0, 1e-12);  // C(20,10)
  EXPECT_LT(report::min_attainable_p_holm(30, 30, 700), 1e-10);
  EXPECT_DOUBLE_EQ(report::min_attainable_p_holm(0, 5, 1), 1.0);
  const json a = report_with_rc({point(1 << 20, "out_of_place", 1000, 3, 1000)});
  const json b = report_with_rc({point(1 << 20, "out_of_place", 2000, 3, 2000)});
  const auto r = compare_reports(a, b, {"a", "A", {}}, {"b", "B", {}});
  const auto* bw = find(r, 1 << 20, "busbw_gbps");
  ASSERT_NE(bw, nullptr);
  EXPECT_NEAR(*bw->delta_pct, -50.0, 1e-9);
  EXPECT_EQ(bw->verdict, CompareVerdict::kNotTestable);
  EXPECT_EQ(std::string(report::name(bw->verdict)), "not_testable");
  EXPECT_EQ(r.count(CompareVerdict::kWithinNoise), 0u);
  EXPECT_NE(report::render_compare(r).find("not testable (n = 3/3)"), std::string::npos);
  EXPECT_EQ(report::compare_json(r)["summary"]["not_testable"], r.count(CompareVerdict::kNotTestable));
  // With 30 samples a side the same change is testable, and worse.
  const auto r30 = compare_ab({point(1 << 20, "out_of_place", 1000, 30, 1000)},
                              {point(1 << 20, "out_of_place", 2000, 30, 2000)});
  EXPECT_EQ(find(r30, 1 << 20, "busbw_gbps")->verdict, CompareVerdict::kWorse);
}

TEST(Compare, AValueMovedTwofoldWhoseSamplesOverlapIsInconclusiveNeverWithinNoise) {
  // A busBw point 10x lower in B whose per-iteration samples do not differ (the clean side stalled)
  // is "inconclusive", not "within noise"; a 1.5x move with the same samples stays "within noise".
  const auto r = compare_ab(
      {point(1 << 20, "out_of_place", 1000, 12, 1000), point(2 << 20, "out_of_place", 1000, 12, 1000)},
      {point(1 << 20, "out_of_place", 10000, 12, 1000), point(2 << 20, "out_of_place", 1500, 12, 1000)});
  const auto* ten = find(r, 1 << 20, "busbw_gbps");
  ASSERT_NE(ten, nullptr);
  EXPECT_NEAR(*ten->delta_pct, -90.0, 1e-9);
  EXPECT_EQ(ten->verdict, CompareVerdict::kInconclusive);
  EXPECT_EQ(std::string(report::name(ten->verdict)), "inconclusive");
  EXPECT_EQ(find(r, 2 << 20, "busbw_gbps")->verdict, CompareVerdict::kWithinNoise);
  EXPECT_EQ(report::compare_json(r)["summary"]["inconclusive"], r.count(CompareVerdict::kInconclusive));
  EXPECT_EQ(report::compare_json(r)["summary"]["flagged"], 0u);
  EXPECT_NE(report::render_compare(r).find("inconclusive (x10"), std::string::npos);
}

TEST(Compare, SeriesThatDifferOnlyInRankCountKeepApart) {
  // IMB-MPI1 prints one Allreduce table per #processes block: imported, they are two sweeps
  // entries with the same collective/dtype/redop/root. Their metrics must not collide; a report with one rank
  // count per series keys exactly as before (no np=), so runs at different scales still match.
  json two = report_with_rc(json::array({point(1024, "out_of_place", 10.0, 0, 0)}));
  json second = two["sweeps"][0];
  two["sweeps"][0]["nranks"] = 2;
  second["nranks"] = 4;
  second["points"][0]["time_us"] = 20.0;
  two["sweeps"].push_back(second);
  const MetricSet m = extract_metrics(two);
  std::set<std::string> ids;
  int np2 = 0, np4 = 0;
  for (const auto& x : m.metrics) {
    EXPECT_TRUE(ids.insert(x.id).second) << "duplicate metric id " << x.id;
    np2 += x.item.find(" np=2") != std::string::npos;
    np4 += x.item.find(" np=4") != std::string::npos;
  }
  EXPECT_GT(np2, 0);
  EXPECT_EQ(np2, np4);
  json one = report_with_rc(json::array({point(1024, "out_of_place", 10.0, 0, 0)}));
  one["sweeps"][0]["nranks"] = 8;
  for (const auto& x : extract_metrics(one).metrics)
    EXPECT_EQ(x.item.find(" np="), std::string::npos) << x.item;
}
