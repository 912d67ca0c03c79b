#pragma once
/// @file `fabcheck compare A B`: every metric two reports share, side by side, with a test of whether the
/// difference is beyond run-to-run noise (two-sided Mann–Whitney U on the raw per-iteration samples,
/// Holm-corrected across every test of the comparison; significant when p < alpha AND |delta| >= min_delta).
///
/// The compared metrics, per section: the row key; the metrics (↑ higher is better, ↓ lower is better); the
/// samples tested. One extractor per section in compare_metrics.cpp.
/// - sweeps, per collective, dtype, redop, root, placement, size_bytes (and cycle when > 0): time_us ↓,
///   algbw_gbps ↑, busbw_gbps ↑, per_iter.p50_us ↓, per_iter.p99_us ↓; samples: per_iter.samples_us.
/// - sweeps, per collective, dtype, redop, root: avg_busbw_gbps ↑; no samples.
/// - latency, per kind, pattern, size_bytes: p50_us, p90_us, p99_us, p999_us, mean_us ↓; samples: the
///   histogram buckets (each bucket's count at its lower edge, ties within a bucket).
/// - latency, per pair of hosts as well: per_pair.p50_us, per_pair.p99_us ↓; samples: the pair's histogram.
/// - incast, per receiver, fan_in, size_bytes: goodput_gbps ↑, incast_efficiency ↑, fairness ↑,
///   congestion_impact.mean ↓, congestion_impact.p99 ↓; no samples.
/// - pairs, per size_bytes: bw_median_gbps ↑, bw_min_gbps ↑, lat_median_us ↓, lat_p99_max_us ↓; no samples.
/// - pairs, per directed link (from, to host names): bw_gbps ↑; per host pair: lat_p50_us ↓; no samples.
/// - scaling, per group (hosts): busbw_gbps ↑, time_us ↓, vs_2host ↑; per workload: efficiency ↑,
///   exposed_s ↓; per collective of the alpha-beta model: alpha_us ↓, beta_gbps ↑; no samples.
/// - score, per workload: scaling_efficiency ↑; no samples.
/// A metric is compared when both reports hold a number for it under the same key. Per-host keys (pairs
/// links, latency pairs, incast receivers) match by host name: they line up on one cluster (before/after
/// maintenance) and drop out between clusters with other host names, where the summary rows remain.
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/report/document.hpp"

namespace fabcheck::report {

/// Which direction of a metric is better.
enum class BetterIs { kHigher, kLower };

/// One comparable number taken from a report.
struct CompareMetric {
  std::string id;       ///< unique within a report: section|key|metric (matching key between reports)
  std::string section;  ///< "sweeps", "latency", "incast", "pairs", "scaling", "score"
  std::string item;     ///< human label of the key, e.g. "allreduce float sum 1 MiB out_of_place"
  nlohmann::json key;   ///< the key fields as an object (collective, size_bytes, ...)
  std::string metric;   ///< field name, e.g. "busbw_gbps", "per_iter.p99_us"
  BetterIs better = BetterIs::kHigher;  ///< direction
  double value = 0;                     ///< the reported value (unit in the metric name)
  std::string samples_id;  ///< key into MetricSet::samples of the raw samples behind it; empty = none
};

/// Raw samples of one measurement (µs) and where they came from.
struct SampleSet {
  std::vector<double> values;  ///< per-iteration samples (µs); histogram buckets expand to their lower edge
  std::string source;          ///< "samples_us" or "histogram"
};

/// Every comparable metric of one report, in report order, and the sample sets they refer to.
struct MetricSet {
  std::vector<CompareMetric> metrics;        ///< report order
  std::map<std::string, SampleSet> samples;  ///< by samples_id
};

/// Extracts the metrics listed in the file comment from a report document (DESIGN §6). Null or non-numeric
/// values are left out; malformed sections are skipped, never thrown on.
MetricSet extract_metrics(const nlohmann::json& report);

/// The significance rule of the comparison.
struct CompareRule {
  double alpha = 0.01;      ///< Holm-adjusted p below this ...
  double min_delta = 0.10;  ///< ... and |B − A|/|A| at least this (0.10 = 10 %)
};

/// Verdict of one row, from B's viewpoint against A.
enum class CompareVerdict {
  kWorse,         ///< significant and B is worse
  kBetter,        ///< significant and B is better
  kWithinNoise,   ///< tested, not significant (p ≥ alpha or |delta| < min_delta)
  kNoiseUnknown,  ///< no raw samples on one side: nothing to test against
};

/// Lowercase name: "worse", "better", "within_noise", "noise_unknown".
std::string_view name(CompareVerdict v);

/// One row of the comparison.
struct CompareRow {
  CompareMetric a_metric;           ///< the metric as found in A (id, key, direction, A's value)
  double a = 0, b = 0;              ///< values in A and B
  std::optional<double> delta_pct;  ///< (B − A)/|A|·100; none when A is 0
  std::string better;               ///< "a", "b" or "equal" (by value and direction)
  std::string samples_source;       ///< "samples_us", "histogram", or "" (none)
  std::size_t n_a = 0, n_b = 0;     ///< samples tested (0 when none)
  std::optional<double> u_a;        ///< Mann–Whitney U of A's samples
  std::optional<double> p;          ///< raw two-sided p
  std::optional<double> p_holm;     ///< Holm-adjusted p
  std::string method;               ///< "exact" or "normal" when tested
  CompareVerdict verdict = CompareVerdict::kNoiseUnknown;  ///< see CompareVerdict
};

/// Identity of one compared report.
struct CompareSide {
  std::string path;   ///< file as given
  std::string label;  ///< --label, default "A" / "B"
  nlohmann::json info =
      nlohmann::json::object();  ///< tool version, run.started, schema_version, topology summary
};

/// The whole comparison.
struct CompareResult {
  CompareSide a, b;                    ///< the two reports
  CompareRule rule;                    ///< the rule applied
  std::vector<CompareRow> rows;        ///< A's order
  std::size_t tests = 0;               ///< distinct sample-set tests in the Holm family
  std::vector<std::string> only_in_a;  ///< metric ids present only in A
  std::vector<std::string> only_in_b;  ///< metric ids present only in B
  /// Rows with the given verdict.
  std::size_t count(CompareVerdict v) const;
};

/// Compares two report documents. Metrics sharing a sample set share one Mann–Whitney test (the test is on
/// ranks, so time, algbw and busbw of one point — monotone functions of the same samples — give the same p);
/// Holm's correction runs over the distinct tests.
/// @throws UsageError "compare: <A> and <B> have no metric in common (...)" when no row results.
CompareResult compare_reports(const nlohmann::json& a, const nlohmann::json& b, CompareSide side_a,
                              CompareSide side_b, const CompareRule& rule = {});

/// The `compare` section as JSON (sides, rule, summary, metrics[], only_in_a, only_in_b).
nlohmann::json compare_json(const CompareResult& r);

/// Puts the `compare` section, its run.sections entry and a warn finding per direction with significant rows
/// (COMPARE_B_WORSE, COMPARE_B_BETTER) into a report document.
void add_compare(Document& doc, const CompareResult& r);

/// Console table (one line per row) with a header naming the files and the rule, and a summary line.
std::string render_compare(const CompareResult& r);

/// A self-contained HTML page (inline CSS, no script, no network) with the same table and summary.
std::string render_compare_html(const CompareResult& r);

}  // namespace fabcheck::report
