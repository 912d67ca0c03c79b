// compare_reports: match the metrics of two reports, test each shared sample set (Mann–Whitney U, two-sided),
// Holm-correct across the tests, and give each row its verdict.
#include "fabcheck/report/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

#include "fabcheck/core/error.hpp"
#include "fabcheck/core/mann_whitney.hpp"

namespace fabcheck::report {

using json = nlohmann::json;

double min_attainable_p_holm(std::size_t n_a, std::size_t n_b, std::size_t tests) {
  if (n_a == 0 || n_b == 0) return 1.0;
  const double a = static_cast<double>(n_a), b = static_cast<double>(n_b);
  const double log_choose = std::lgamma(a + b + 1) - std::lgamma(a + 1) - std::lgamma(b + 1);
  const double p = 2.0 * std::exp(-log_choose) * static_cast<double>(std::max<std::size_t>(tests, 1));
  return std::min(1.0, p);
}

namespace {

std::string better_side(double a, double b, BetterIs dir) {
  if (a == b) return "equal";
  const bool b_higher = b > a;
  return (b_higher == (dir == BetterIs::kHigher)) ? "b" : "a";
}

}  // namespace

CompareResult compare_reports(const json& a, const json& b, CompareSide side_a, CompareSide side_b,
                              const CompareRule& rule) {
  return compare_reports(std::vector<json>{a}, std::vector<json>{b}, std::move(side_a), std::move(side_b),
                         rule);
}

CompareResult compare_reports(const std::vector<json>& a_runs, const std::vector<json>& b_runs,
                              CompareSide side_a, CompareSide side_b, const CompareRule& rule) {
  auto side_of = [](const std::vector<json>& docs) {
    std::vector<MetricSet> runs;
    for (const auto& d : docs) runs.push_back(extract_metrics(d));
    return merge_runs(runs);
  };
  return compare_sides(side_of(a_runs), side_of(b_runs), std::move(side_a), std::move(side_b), rule);
}

CompareResult compare_sides(const SideMetrics& side_a_m, const SideMetrics& side_b_m, CompareSide side_a,
                            CompareSide side_b, const CompareRule& rule) {
  CompareResult r;
  r.a = std::move(side_a);
  r.b = std::move(side_b);
  r.rule = rule;
  r.a.runs = side_a_m.runs;
  r.b.runs = side_b_m.runs;
  const MetricSet& ma = side_a_m.merged;
  const MetricSet& mb = side_b_m.merged;

  std::unordered_map<std::string, const CompareMetric*> in_b;
  for (const auto& m : mb.metrics) in_b.emplace(m.id, &m);
  std::unordered_map<std::string, bool> matched_b;

  // One test per sample set that both sides hold for a matched metric: (A's samples_id, B's samples_id).
  struct Test {
    const SampleSet* a;
    const SampleSet* b;
    core::MannWhitneyResult result;
  };
  std::vector<Test> tests;
  std::map<std::pair<std::string, std::string>, std::size_t> test_of;
  std::vector<std::optional<std::size_t>> row_test;

  const std::set<std::string> partial_a(side_a_m.not_in_every_run.begin(), side_a_m.not_in_every_run.end());
  const std::set<std::string> partial_b(side_b_m.not_in_every_run.begin(), side_b_m.not_in_every_run.end());
  for (const auto& m : ma.metrics) {
    auto it = in_b.find(m.id);
    if (it == in_b.end()) {
      if (!partial_b.count(m.id)) r.only_in_a.push_back(m.id);
      continue;
    }
    const CompareMetric& mbm = *it->second;
    matched_b[m.id] = true;
    CompareRow row;
    row.a_metric = m;
    row.a = m.value;
    row.b = mbm.value;
    if (m.value != 0) row.delta_pct = (mbm.value - m.value) / std::fabs(m.value) * 100.0;
    if (m.value > 0 && mbm.value > 0) row.fold_change = std::max(mbm.value / m.value, m.value / mbm.value);
    row.better = better_side(m.value, mbm.value, m.better);
    row.a_runs = side_a_m.run_values.at(m.id);
    row.b_runs = side_b_m.run_values.at(m.id);
    std::optional<std::size_t> t;
    if (!m.samples_id.empty() && !mbm.samples_id.empty()) {
      const auto key = std::pair{m.samples_id, mbm.samples_id};
      auto found = test_of.find(key);
      if (found == test_of.end()) {
        const SampleSet& sa = ma.samples.at(m.samples_id);
        const SampleSet& sb = mb.samples.at(mbm.samples_id);
        tests.push_back({&sa, &sb, core::mann_whitney_u_counts(sa.values, sa.counts, sb.values, sb.counts)});
        found = test_of.emplace(key, tests.size() - 1).first;
      }
      t = found->second;
    }
    row_test.push_back(t);
    r.rows.push_back(std::move(row));
  }
  for (const auto& m : mb.metrics)
    if (!matched_b.count(m.id) && !partial_a.count(m.id)) r.only_in_b.push_back(m.id);
  r.not_in_every_run_a = side_a_m.not_in_every_run;
  r.not_in_every_run_b = side_b_m.not_in_every_run;
  r.links = compare_links(ma.links, mb.links, rule);
  auto has_link = [](const MetricSet& m, const std::string& id) {
    return std::any_of(m.links.begin(), m.links.end(), [&](const LinkValues& l) { return l.id == id; });
  };
  for (const auto& l : ma.links)
    if (!has_link(mb, l.id) && !partial_b.count(l.id)) r.only_in_a.push_back(l.id);
  for (const auto& l : mb.links)
    if (!has_link(ma, l.id) && !partial_a.count(l.id)) r.only_in_b.push_back(l.id);

  if (r.rows.empty() && r.links.empty()) {
    throw UsageError(
        fmt::format("compare: {} and {} have no metric in common ({} has {} metrics, {} has {}; compare "
                    "reports of the same "
                    "probes, e.g. two sweeps)",
                    r.a.path, r.b.path, r.a.path, ma.metrics.size(), r.b.path, mb.metrics.size()));
  }

  std::vector<double> raw;
  raw.reserve(tests.size());
  for (const auto& t : tests) raw.push_back(t.result.p);
  const std::vector<double> holm = core::holm_adjust(raw);
  r.tests = tests.size();

  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    CompareRow& row = r.rows[i];
    if (!row_test[i]) {
      row.verdict = CompareVerdict::kNoiseUnknown;
      continue;
    }
    const std::size_t t = *row_test[i];
    const auto& mw = tests[t].result;
    row.samples_source = tests[t].a->source == tests[t].b->source
                             ? tests[t].a->source
                             : tests[t].a->source + "/" + tests[t].b->source;
    row.n_a = mw.n_a;
    row.n_b = mw.n_b;
    row.u_a = mw.u_a;
    row.p = mw.p;
    row.p_holm = holm[t];
    row.method = mw.method == core::MannWhitneyMethod::kExact ? "exact" : "normal";
    const bool big = row.delta_pct ? std::fabs(*row.delta_pct) >= rule.min_delta * 100.0 - 1e-9
                                   : row.a != row.b;  // A = 0 and B ≠ 0: an infinite relative change
    // The samples are times (per-iteration spans, latencies): B worse means B's samples lie higher, i.e. U of
    // A's samples below its null mean. A row whose value moved against its samples is not called significant.
    const double null_mean = static_cast<double>(mw.n_a) * static_cast<double>(mw.n_b) / 2.0;
    const bool samples_agree = row.better == "a" ? mw.u_a < null_mean : mw.u_a > null_mean;
    // Repeated runs: the difference must also stand out against how much the runs of one side differ.
    const auto spread_a = run_spread_ln(row.a_runs);
    const auto spread_b = run_spread_ln(row.b_runs);
    bool beyond_runs = true;
    if ((row.a_runs.size() > 1 && !spread_a) || (row.b_runs.size() > 1 && !spread_b)) {
      row.run_spread_unknown = true;  // a run's value <= 0: no ratio to measure the spread with; fail closed
      beyond_runs = false;
    } else if (spread_a || spread_b) {
      const double spread = std::max(spread_a.value_or(0.0), spread_b.value_or(0.0));
      row.run_spread_pct = std::expm1(spread) * 100.0;
      const double needed = rule.run_spread_factor * spread;
      row.needed_delta_pct = std::expm1(row.b >= row.a ? needed : -needed) * 100.0;
      beyond_runs = row.a > 0 && row.b > 0 && std::fabs(std::log(row.b / row.a)) >= needed;
    }
    const bool significant = holm[t] < rule.alpha && big && row.better != "equal" && samples_agree;
    row.within_run_spread = significant && !beyond_runs;
    if (significant && beyond_runs) {
      row.verdict = row.better == "b" ? CompareVerdict::kBetter : CompareVerdict::kWorse;
    } else if (!significant && min_attainable_p_holm(mw.n_a, mw.n_b, tests.size()) >= rule.alpha) {
      row.verdict = CompareVerdict::kNotTestable;
    } else if (row.fold_change && *row.fold_change >= rule.inconclusive_factor * (1 - 1e-12)) {
      row.verdict = CompareVerdict::kInconclusive;
    } else {
      row.verdict = CompareVerdict::kWithinNoise;
    }
  }
  return r;
}

json compare_json(const CompareResult& r) {
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json rows = json::array();
  for (const auto& row : r.rows) {
    json j = {{"section", row.a_metric.section},
              {"item", row.a_metric.item},
              {"key", row.a_metric.key},
              {"metric", row.a_metric.metric},
              {"better_is", std::string(model::name(row.a_metric.better))},
              {"a", row.a},
              {"b", row.b},
              {"delta_pct", opt(row.delta_pct)},
              {"better", row.better},
              {"samples_source", row.samples_source.empty() ? json(nullptr) : json(row.samples_source)},
              {"n_a", row.n_a},
              {"n_b", row.n_b},
              {"u_a", opt(row.u_a)},
              {"p", opt(row.p)},
              {"p_holm", opt(row.p_holm)},
              {"method", row.method.empty() ? json(nullptr) : json(row.method)},
              {"verdict", std::string(name(row.verdict))}};
    if (!row.delta_pct) j["delta_reason"] = "A is 0";
    if (row.verdict == CompareVerdict::kNoiseUnknown)
      j["noise_reason"] = "no raw per-iteration samples for this metric in every report of both sides";
    if (row.within_run_spread && row.run_spread_unknown) {
      j["noise_reason"] =
          "beyond the samples' noise, but the run-to-run spread is unknown (a run's value is <= 0)";
    } else if (row.within_run_spread) {
      j["noise_reason"] = fmt::format(
          "beyond the samples' noise, but within {} x the run-to-run spread ({:.1f} %): needs {:+.1f} %",
          r.rule.run_spread_factor, *row.run_spread_pct, *row.needed_delta_pct);
    }
    if (r.a.runs > 1 || r.b.runs > 1) {
      j["a_runs"] = row.a_runs;
      j["b_runs"] = row.b_runs;
      j["run_spread_pct"] = opt(row.run_spread_pct);
      j["needed_delta_pct"] = opt(row.needed_delta_pct);
    }
    rows.push_back(std::move(j));
  }
  json links = json::array();
  std::size_t links_compared = 0, links_changed = 0;
  for (const auto& l : r.links) {
    links_compared += l.compared;
    links_changed += l.worse + l.improved;
    json q = json::object();
    for (std::size_t i = 0; i < l.delta_quantiles.size(); ++i) {
      const int bp = kLinkDeltaQuantilesBp[i];
      q[bp == 0 ? "min" : bp == 10000 ? "max" : fmt::format("p{}", bp / 100)] = l.delta_quantiles[i];
    }
    json changed = json::array();
    for (const auto& c : l.changed) {
      changed.push_back({{"from", c.from},
                         {"to", c.to},
                         {"a", c.a},
                         {"b", c.b},
                         {"delta_pct", opt(c.delta_pct)},
                         {"verdict", c.worse ? "worse" : "better"}});
    }
    links.push_back(
        {{"section", "pairs"},
         {"item", l.item},
         {"key", l.key},
         {"metric", l.metric},
         {"better_is", std::string(model::name(l.better))},
         {"compared", l.compared},
         {"only_in_a", l.only_in_a},
         {"only_in_b", l.only_in_b},
         {"changed", l.worse + l.improved},
         {"worse", l.worse},
         {"better", l.improved},
         {"within_min_delta", l.compared - l.worse - l.improved},
         {"delta_pct", q},
         {"changed_links", changed},
         {"changed_links_listed", changed.size()},
         {"rule",
          "no samples per link: changed when |delta_pct| >= min_delta_pct (and, with several runs, "
          "|ln(b/a)| >= run_spread_factor * the link's larger run spread); not a test against "
          "noise"}});
  }
  auto side = [](const CompareSide& s) {
    json j = s.info;
    j["path"] = s.path;
    j["label"] = s.label;
    j["runs"] = s.runs;
    return j;
  };
  return {
      {"a", side(r.a)},
      {"b", side(r.b)},
      {"rule",
       {{"test",
         "two-sided Mann-Whitney U on the raw per-iteration samples (sweeps: per_iter.samples_us; latency: "
         "histogram buckets, values in a bucket tied); exact null distribution when there are no ties and "
         "both samples have fewer than 50 values, else the normal approximation with tie and continuity "
         "correction (as R's wilcox.test)"},
        {"correction", "Holm step-down across the distinct tests of this comparison (Holm 1979)"},
        {"alpha", r.rule.alpha},
        {"min_delta_pct", r.rule.min_delta * 100.0},
        {"run_spread_factor", r.rule.run_spread_factor},
        {"significant",
         "p_holm < alpha and |delta_pct| >= min_delta_pct and, when a side has >= 2 runs, |ln(b/a)| >= "
         "run_spread_factor * ln(max/min) of the runs of the side that differ most"},
        {"runs",
         "a side of several reports: a = the median of its runs' values (the mean of the two middle ones for "
         "an even count), samples pooled over its runs"},
        {"delta", "delta_pct = (b - a) / |a| * 100; verdicts read B against A"},
        {"shared_tests",
         "metrics derived from the same samples (time, algbw, busbw, p50, p99 of one point) share one "
         "test"}}},
      {"summary",
       {{"metrics", r.rows.size()},
        {"tested", r.rows.size() - r.count(CompareVerdict::kNoiseUnknown)},
        {"tests", r.tests},
        {"worse", r.count(CompareVerdict::kWorse)},
        {"better", r.count(CompareVerdict::kBetter)},
        {"within_noise", r.count(CompareVerdict::kWithinNoise)},
        {"within_run_spread", r.count_within_run_spread()},
        {"noise_unknown", r.count(CompareVerdict::kNoiseUnknown)},
        {"not_testable", r.count(CompareVerdict::kNotTestable)},
        {"inconclusive", r.count(CompareVerdict::kInconclusive)},
        {"flagged", r.count(CompareVerdict::kWorse) + r.count(CompareVerdict::kBetter)},
        {"links_compared", links_compared},
        {"links_changed", links_changed}}},
      {"metrics", rows},
      {"links", links},
      {"only_in_a", r.only_in_a},
      {"only_in_b", r.only_in_b},
      {"not_in_every_run_a", r.not_in_every_run_a},
      {"not_in_every_run_b", r.not_in_every_run_b}};
}

void add_compare(Document& doc, const CompareResult& r) {
  doc.json()["compare"] = compare_json(r);
  for (const auto& l : r.links) {
    if (l.worse == 0) continue;
    json names = json::array();
    for (const auto& c : l.changed)
      if (c.worse && names.size() < 20) names.push_back(c.from + " -> " + c.to);
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "COMPARE_LINKS_WORSE";
    f.message =
        fmt::format("{} of {} links ({}) of {} ({}) are worse than in {} ({}) by {:.0f} % or more.", l.worse,
                    l.compared, l.metric, r.b.label, r.b.path, r.a.label, r.a.path, r.rule.min_delta * 100.0);
    f.evidence = {{"metric", l.metric}, {"count", l.worse}, {"first", names}};
    f.remedy = "no samples per link: re-run pairs on both to confirm; compare.links lists every changed link";
    doc.add_finding(f);
  }
  doc.json()["conventions"]["compare"] = doc.json()["compare"]["rule"]["significant"];
  doc.set_section("compare", SectionStatus::kOk);
  for (const auto v : {CompareVerdict::kWorse, CompareVerdict::kBetter}) {
    const std::size_t n = r.count(v);
    if (n == 0) continue;
    json names = json::array();
    for (const auto& row : r.rows) {
      if (row.verdict == v && names.size() < 20)
        names.push_back(row.a_metric.item + " " + row.a_metric.metric);
    }
    Finding f;
    f.severity = Severity::kWarn;
    f.code = v == CompareVerdict::kWorse ? "COMPARE_B_WORSE" : "COMPARE_B_BETTER";
    f.message = fmt::format("{} of {} metrics of {} ({}) are {} than in {} ({}) beyond run-to-run noise.", n,
                            r.rows.size(), r.b.label, r.b.path,
                            v == CompareVerdict::kWorse ? "worse" : "better", r.a.label, r.a.path);
    f.evidence = {{"count", n}, {"first", names}};
    f.remedy =
        v == CompareVerdict::kWorse
            ? "look at the worst rows first; re-run both to confirm; fabcheck pairs finds a slow host or link"
            : "nothing to fix; confirm the improvement by re-running both";
    doc.add_finding(f);
  }
}

}  // namespace fabcheck::report
