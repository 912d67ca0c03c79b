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
/// The result's types (CompareRule, CompareRow, CompareResult, ...) are model/compare.hpp: lib/render formats
/// them without linking this code.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/model/compare.hpp"
#include "fabcheck/model/metrics.hpp"
#include "fabcheck/report/document.hpp"

namespace fabcheck::report {

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

/// The smallest two-sided p an exact Mann–Whitney test can give n_a against n_b samples (every A below every
/// B: 2 / C(n_a + n_b, n_a); Mann & Whitney 1947), times `tests` for Holm's first step (Holm 1979), capped
/// at 1.
double min_attainable_p_holm(std::size_t n_a, std::size_t n_b, std::size_t tests);

/// Compares per-link matrices of A and B by id and host names. A link is beyond the rule when |delta| >=
/// min_delta (B ≠ A when A is 0) and, when a side has per-link run spreads, |ln(B/A)| >=
/// run_spread_factor × the larger spread (an unknown spread never passes). There are no samples to test a
/// link against: the counts say so.
std::vector<LinkSummary> compare_links(const std::vector<LinkValues>& a, const std::vector<LinkValues>& b,
                                       const CompareRule& rule);

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
