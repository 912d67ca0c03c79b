#pragma once
/// @file The comparison of two reports as data: the rule, each compared row and its verdict, the per-link
/// summaries and the whole result. analysis computes it (report/compare.hpp: compare_reports, compare_json);
/// lib/render formats it (report/compare_render.hpp) without linking the code that computed it.
#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fabcheck/model/metrics.hpp"

// Namespace report, like the rest of the report's API spread over model, analysis and render.
namespace fabcheck::report {

/// Which direction of a metric is better: the metric catalogue's (model/metrics.hpp); a compared metric is
/// never kNone.
using BetterIs = model::BetterIs;

/// One comparable number taken from a report.
struct CompareMetric {
  std::string id;       ///< unique within a report: section|key|metric (matching key between reports)
  std::string section;  ///< "sweeps", "latency", "incast", "pairs", "scaling", "score", "counters"
  std::string item;     ///< human label of the key, e.g. "allreduce float sum 1 MiB out_of_place"
  nlohmann::json key;   ///< the key fields as an object (collective, size_bytes, ...)
  std::string metric;   ///< field name, e.g. "busbw_gbps", "per_iter.p99_us"
  BetterIs better = BetterIs::kHigher;  ///< direction
  double value = 0;                     ///< the reported value (unit in the metric name)
  std::string samples_id;  ///< key into MetricSet::samples of the raw samples behind it; empty = none
  bool per_place = false;  ///< one of many rows per host or pair (latency per pair): summarized in the text
};

/// The significance rule of the comparison.
struct CompareRule {
  double alpha = 0.01;      ///< Holm-adjusted p below this ...
  double min_delta = 0.10;  ///< ... and |B − A|/|A| at least this (0.10 = 10 %) ...
  /// ... and, when a side has two or more runs, |ln(B/A)| at least this times the larger run-to-run spread
  /// ln(max/min) of the two sides (run_spread_ln). Samples within one run cannot show a drift that lasts a
  /// whole run (another tenant, a different placement); repeated runs can. 3 keeps the false-flag rate of
  /// two runs per side at ~4 % per metric when runs scatter log-normally (simulated, sigma 5-40 %).
  double run_spread_factor = 3.0;
  /// A row the rule does not call, whose value moved by this factor or more (B/A or A/B), is "inconclusive",
  /// never "within noise": a 10x busBw drop whose samples overlap (a clean side with TCP stalls,
  /// seen once in a clean vs throttled-host compare on the virtual fabric, 2026-12-03: -92.4 % "within
  /// noise") is a change the samples could not settle, not the absence of one.
  double inconclusive_factor = 2.0;
};

/// Verdict of one row, from B's viewpoint against A.
enum class CompareVerdict {
  kWorse,         ///< significant and B is worse
  kBetter,        ///< significant and B is better
  kWithinNoise,   ///< tested, not significant (p ≥ alpha or |delta| < min_delta)
  kNoiseUnknown,  ///< no raw samples on one side: nothing to test against
  /// Samples too few for the rule ever to call a difference: even samples of A all below all of B
  /// give a Holm-adjusted p ≥ alpha. Not "within noise": nothing was shown either way.
  kNotTestable,
  /// Tested, not called by the rule, but the value moved by CompareRule::inconclusive_factor or more: the
  /// samples overlap too much to call it either way (rerun, or take more samples).
  kInconclusive,
};

/// Lowercase name: "worse", "better", "within_noise", "noise_unknown", "not_testable", "inconclusive".
std::string_view name(CompareVerdict v);

/// One row of the comparison.
struct CompareRow {
  CompareMetric a_metric;                ///< the metric as found in A (id, key, direction, A's value)
  double a = 0, b = 0;                   ///< values in A and B
  std::optional<double> delta_pct;       ///< (B − A)/|A|·100; none when A is 0
  std::optional<double> fold_change;     ///< max(B/A, A/B) ≥ 1; none unless both values are > 0
  std::string better;                    ///< "a", "b" or "equal" (by value and direction)
  std::string samples_source;            ///< "samples_us", "histogram", or "" (none)
  std::size_t n_a = 0, n_b = 0;          ///< samples tested (0 when none)
  std::optional<double> u_a;             ///< Mann–Whitney U of A's samples
  std::optional<double> p;               ///< raw two-sided p
  std::optional<double> p_holm;          ///< Holm-adjusted p
  std::string method;                    ///< "exact" or "normal" when tested
  std::vector<double> a_runs, b_runs;    ///< each run's value (one entry per report of the side)
  std::optional<double> run_spread_pct;  ///< (exp(larger side's run_spread_ln) − 1)·100; none: 1 run each,
                                         ///< or run_spread_unknown
  std::optional<double> needed_delta_pct;  ///< the |delta| the run spread demands, as B/A − 1 in % (the
                                           ///< direction of the row); none without a run spread
  bool within_run_spread = false;   ///< p and min_delta passed, but |delta| is within the run spread (or the
                                    ///< spread is unknown: run_spread_unknown)
  bool run_spread_unknown = false;  ///< a side of several runs has a run value <= 0 (no ratio): never flagged
  CompareVerdict verdict = CompareVerdict::kNoiseUnknown;  ///< see CompareVerdict
};

/// One link whose value moved beyond the rule (LinkSummary).
struct LinkChange {
  std::string from, to;             ///< host names (latency: an unordered pair, from < to in A's order)
  double a = 0, b = 0;              ///< values in A and B
  std::optional<double> delta_pct;  ///< (B − A)/|A|·100; none when A is 0
  bool worse = false;               ///< B worse than A in the metric's direction
};

/// The per-link comparison of one matrix: links matched by host names.
struct LinkSummary {
  std::string id, item, metric;  ///< as LinkValues
  nlohmann::json key;
  BetterIs better = BetterIs::kHigher;
  std::size_t compared = 0;   ///< links with a number on both sides
  std::size_t only_in_a = 0;  ///< links with a number in A only (a host or value missing in B)
  std::size_t only_in_b = 0;
  std::size_t worse = 0, improved = 0;  ///< links beyond the rule, by direction
  /// Distribution of delta_pct over the compared links (A ≠ 0): min, p1, p5, p25, p50, p75, p95, p99, max
  /// (nearest rank, DESIGN §4); empty when none.
  std::vector<double> delta_quantiles;
  std::vector<LinkChange> changed;  ///< the links beyond the rule, worst change first, at most kMaxListed
  /// Links listed in `changed` at most (the counts stay exact): a whole fabric that changed is a count and a
  /// distribution, not a million lines.
  static constexpr std::size_t kMaxListed = 10000;
};

/// The quantiles LinkSummary::delta_quantiles holds, in basis points.
inline constexpr std::array<int, 9> kLinkDeltaQuantilesBp = {0,    100,  500,  2500, 5000,
                                                             7500, 9500, 9900, 10000};

/// Identity of one compared report.
struct CompareSide {
  std::string path;   ///< file as given (several runs: joined with ",")
  std::string label;  ///< --label, default "A" / "B"
  nlohmann::json info =
      nlohmann::json::object();  ///< tool version, run.started, schema_version, topology summary
  std::size_t runs = 1;          ///< reports on this side (set by compare_reports)
};

/// The whole comparison.
struct CompareResult {
  CompareSide a, b;                             ///< the two reports
  CompareRule rule;                             ///< the rule applied
  std::vector<CompareRow> rows;                 ///< A's order
  std::vector<LinkSummary> links;               ///< per-link matrices both reports hold
  std::size_t tests = 0;                        ///< distinct sample-set tests in the Holm family
  std::vector<std::string> only_in_a;           ///< metric ids present only in A
  std::vector<std::string> only_in_b;           ///< metric ids present only in B
  std::vector<std::string> not_in_every_run_a;  ///< metric ids some but not all of A's runs hold (left out)
  std::vector<std::string> not_in_every_run_b;  ///< the same for B
  /// Rows with the given verdict.
  std::size_t count(CompareVerdict v) const;
  /// Rows that passed the samples' test but not the run-spread rule (CompareRow::within_run_spread).
  std::size_t count_within_run_spread() const;
};

}  // namespace fabcheck::report
