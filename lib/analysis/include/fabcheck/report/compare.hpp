#pragma once
/// @file `fabcheck compare A B`: every metric two reports share, side by side, with a test of whether the
/// difference is beyond run-to-run noise (two-sided Mann–Whitney U on the raw per-iteration samples,
/// Holm-corrected across every test of the comparison; significant when p < alpha AND |delta| >= min_delta
/// AND, when a side holds several runs of its fabric, |ln(B/A)| >= run_spread_factor × the larger run
/// spread).
///
/// The compared metrics, per section: the row key; the metrics (↑ higher is better, ↓ lower is better); the
/// samples tested. One extractor per section in compare_metrics.cpp; each metric's direction (and unit) is
/// its entry in the metric catalogue (lib/model/src/metrics.cpp), the one list gate and compare share.
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
///   These are not rows (2048 hosts are 4 million links): each matrix is held compactly
///   (LinkValues) and summarized (LinkSummary): counts, the distribution of per-link deltas, and every link
///   whose |delta| reaches min_delta (and, with several runs, the run-spread rule), worst first.
/// - scaling, per group (hosts): busbw_gbps ↑, time_us ↓, vs_2host ↑; per workload: efficiency ↑,
///   exposed_s ↓; per collective of the alpha-beta model: alpha_us ↓, beta_gbps ↑; no samples.
/// - score, per workload: scaling_efficiency ↑; no samples.
/// - counters (run.sections.<step>.counters.totals), per step: tcp_lost_segs, tcp_lost_share,
///   rdma_link_events, rdma_link_errors, rdma_xmit_discards, roce_seq_errors, netdev_errors, netdev_drops ↓;
///   no samples (a step is one reading per host: the verdict is "noise unknown", the values side by side).
/// A metric is compared when both reports hold a number for it under the same key. Per-host keys (pairs
/// links, latency pairs, incast receivers) match by host name: they line up on one cluster (before/after
/// maintenance) and drop out between clusters with other host names, where the summary rows remain.
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/model/metrics.hpp"
#include "fabcheck/report/document.hpp"

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

/// One per-link matrix of a report (pairs.bw_gbps per directed link, pairs.lat_p50_us per host pair), held
/// compactly: never one CompareMetric per link.
struct LinkValues {
  std::string id;      ///< "pairs|<key>|<metric>": matches between reports
  std::string item;    ///< human label, e.g. "links 8MiB"
  nlohmann::json key;  ///< {size_bytes}
  std::string metric;  ///< "bw_gbps" or "lat_p50_us"
  BetterIs better = BetterIs::kHigher;
  bool symmetric = false;          ///< one value per unordered pair: only [from][to] with from < to counts
  std::vector<std::string> hosts;  ///< matrix order
  std::vector<double> values;      ///< hosts² values, row-major [from][to]; NaN = no value
  /// Per link, ln(max/min) over the runs of a merged side of several runs (NaN: unknown, a value <= 0);
  /// empty for one run.
  std::vector<double> spread_ln;
};

/// Raw samples of one measurement (µs) and where they came from.
struct SampleSet {
  std::vector<double> values;         ///< per-iteration samples (µs); a histogram: each bucket's lower edge
  std::vector<std::uint64_t> counts;  ///< per value how many samples it stands for (a bucket's count); empty
                                      ///< = each value once
  std::string source;                 ///< "samples_us" or "histogram"
};

/// Every comparable metric of one report, in report order, and the sample sets they refer to.
struct MetricSet {
  std::vector<CompareMetric> metrics;        ///< report order
  std::map<std::string, SampleSet> samples;  ///< by samples_id
  std::vector<LinkValues> links;             ///< per-link matrices, report order
};

/// Extracts the metrics listed in the file comment from a report document (DESIGN §6). Null or non-numeric
/// values are left out; malformed sections are skipped, never thrown on.
MetricSet extract_metrics(const nlohmann::json& report);

/// The metrics of one side of a comparison made of one or more reports of the same fabric (repeated runs).
struct SideMetrics {
  MetricSet merged;  ///< metrics present in every run, in the first run's order: value = median of the runs'
                     ///< values (the mean of the two middle ones for an even count); samples = every run's
                     ///< samples pooled (none when a run lacks them)
  std::map<std::string, std::vector<double>> run_values;  ///< by metric id: each run's value, in run order
  std::vector<std::string> not_in_every_run;              ///< metric ids missing from at least one run
  std::size_t runs = 0;                                   ///< reports on this side
};

/// Merges the metric sets of repeated runs of one side (see SideMetrics). One run: its metrics unchanged.
/// @throws std::invalid_argument when `runs` is empty.
SideMetrics merge_runs(const std::vector<MetricSet>& runs);
/// The same, taking the runs: one run is moved, not copied; `runs` is left empty.
SideMetrics merge_runs(std::vector<MetricSet>&& runs);

/// Run-to-run spread of one metric on one side: ln(max/min) of its runs' values; none with fewer than two
/// runs or any value <= 0 (a log ratio, so that "B is 90 % lower" and "B is 10x higher" read alike).
std::optional<double> run_spread_ln(const std::vector<double>& run_values);

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

/// The smallest two-sided p an exact Mann–Whitney test can give n_a against n_b samples (every A below every
/// B: 2 / C(n_a + n_b, n_a); Mann & Whitney 1947), times `tests` for Holm's first step (Holm 1979), capped
/// at 1.
double min_attainable_p_holm(std::size_t n_a, std::size_t n_b, std::size_t tests);

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

/// Compares per-link matrices of A and B by id and host names. A link is beyond the rule when |delta| >=
/// min_delta (B ≠ A when A is 0) and, when a side has per-link run spreads, |ln(B/A)| >=
/// run_spread_factor × the larger spread (an unknown spread never passes). There are no samples to test a
/// link against: the counts say so.
std::vector<LinkSummary> compare_links(const std::vector<LinkValues>& a, const std::vector<LinkValues>& b,
                                       const CompareRule& rule);

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

/// Compares two report documents (one run per side). Metrics sharing a sample set share one Mann–Whitney test
/// (the test is on ranks, so time, algbw and busbw of one point — monotone functions of the same samples —
/// give the same p); Holm's correction runs over the distinct tests.
/// @throws UsageError "compare: <A> and <B> have no metric in common (...)" when no row results.
CompareResult compare_reports(const nlohmann::json& a, const nlohmann::json& b, CompareSide side_a,
                              CompareSide side_b, const CompareRule& rule = {});

/// Compares two sides already extracted (extract_metrics per run, merge_runs per side): what the command
/// uses, so that each report's document can be freed once its metrics are taken (bounded memory).
/// @throws UsageError as above.
CompareResult compare_sides(const SideMetrics& a, const SideMetrics& b, CompareSide side_a,
                            CompareSide side_b, const CompareRule& rule = {});

/// Compares two sides of one or more reports each (repeated runs of one fabric, merged by merge_runs): the
/// Mann–Whitney test runs on the pooled samples, and with two or more runs on a side a difference must also
/// exceed CompareRule::run_spread_factor times the run-to-run spread. Metrics missing from a run of a side
/// are left out (listed in not_in_every_run_a / not_in_every_run_b).
/// @throws UsageError as above; std::invalid_argument when a side has no report.
CompareResult compare_reports(const std::vector<nlohmann::json>& a_runs,
                              const std::vector<nlohmann::json>& b_runs, CompareSide side_a,
                              CompareSide side_b, const CompareRule& rule = {});

/// The `compare` section as JSON (sides, rule, summary, metrics[], only_in_a, only_in_b).
nlohmann::json compare_json(const CompareResult& r);

/// Puts the `compare` section, its run.sections entry and a warn finding per direction with significant rows
/// (COMPARE_B_WORSE, COMPARE_B_BETTER) into a report document.
void add_compare(Document& doc, const CompareResult& r);

}  // namespace fabcheck::report
