#pragma once
/// @file Outliers and attribution on host-pair link matrices (DESIGN §4 outlier rule, §5 Pairs). Pure, no
/// I/O.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fabcheck/core/stats.hpp"

namespace fabcheck::core {

/// n×n matrix of one measurement per link: row = source host, column = destination host (host indices).
/// Unmeasured cells and the diagonal are nullopt.
using LinkMatrix = std::vector<std::vector<std::optional<double>>>;

/// Which matrix an outlier comes from.
enum class LinkKind {
  kBandwidth,  ///< directed link, GB/s, lower is worse
  kLatency,    ///< unordered pair, µs, higher is worse
};

/// One flagged link.
struct LinkOutlier {
  LinkKind kind = LinkKind::kBandwidth;  ///< bandwidth (directed) or latency (unordered pair)
  int from = 0;                          ///< source host (latency: the lower index of the pair)
  int to = 0;                            ///< destination host (latency: the higher index)
  double value = 0;                      ///< the link's value (GB/s or µs)
  double median = 0;                     ///< median over all links of this kind (DESIGN §4 nearest rank)
  std::optional<double> z;               ///< robust z; nullopt when MAD = 0 (z = ±∞)
  bool robust =
      false;  ///< flagged by the §4 rule (> 3 robust z and worse than the median by > 10 %, latency 100 %)
  bool below_line_rate = false;  ///< bandwidth below 80 % of the expected line rate (independent test)
};

/// A host whose links are mostly outliers (DESIGN §5).
struct HostSuspect {
  int host = 0;                        ///< host index
  std::vector<std::size_t> links;      ///< indices into LinkAnalysis::outliers of this host's flagged links
  int out_flagged = 0, out_links = 0;  ///< flagged / measured bandwidth links leaving the host
  int in_flagged = 0, in_links = 0;    ///< flagged / measured bandwidth links entering the host
  int lat_flagged = 0, lat_links = 0;  ///< flagged / measured latency pairs of the host
};

/// Centre and spread of one kind's values.
struct LinkStats {
  std::size_t values = 0;        ///< measured links of this kind
  std::optional<double> median;  ///< median (nullopt when no values)
  std::optional<double> mad;     ///< median absolute deviation (nullopt when no values)
};

/// Result of analyze_links.
struct LinkAnalysis {
  int hosts = 0;                      ///< n
  LinkStats bw;                       ///< over directed bandwidth links
  LinkStats lat;                      ///< over unordered latency pairs
  std::vector<LinkOutlier> outliers;  ///< bandwidth outliers first (row-major), then latency (row-major)
  std::vector<HostSuspect> suspects;  ///< hosts blamed, ascending host index
  std::vector<std::string> notes;     ///< limits that applied (few hosts, fabric-wide slowness, …)
};

/// Flags outlier links and attributes them to hosts.
/// Outliers: the DESIGN §4 rule (core::outliers / core::robust_z, needs ≥ 3 values) over every measured
/// directed bandwidth link (lower is worse) and over every unordered latency pair (higher is worse; the cell
/// [a][b] with a < b, or [b][a] when only that one is measured); with `expected_gbps`, a bandwidth link below
/// 80 % of it is an outlier by a second, independent test. Attribution (n ≥ 3 hosts): a host is a suspect
/// when more than half of its measured outgoing bandwidth links, or of its incoming ones, or of its latency
/// pairs are outliers; otherwise its outliers stay link findings. When more than half of all bandwidth links
/// are flagged (fabric-wide slowness), no host is blamed for bandwidth.
/// Host stage (n ≥ 4, a refinement of §4, noted in the result): when a host's median link (outgoing, incoming
/// or latency) is an outlier among the hosts' medians (the §4 rule with z taken on log values: the medians
/// scatter multiplicatively on a noisy fabric) — or, for bandwidth, when the median of its links is below
/// half the median of the links that do not touch it (leave-one-out: with 4 hosts and noisy links the rule
/// over 4 medians cannot single a slow host out) —, the link median and MAD are re-estimated from the links
/// that touch no such host, and every link is judged against those; a link of such a host that the linear
/// rule leaves unflagged is judged again on the log scale against the clean links (its `z` is then the
/// log-scale z) (a slow host otherwise inflates the
/// MAD: with a third of the links 10× slower, they score under 3 z on a noisy fabric). Limit (noted): with n
/// = 3 a host slow in both directions owns 4 of the 6 directed links, so the median itself is slow and
/// nothing can single it out (DESIGN §5 puts the limit at 4 hosts; the host stage lifts it there).
/// @param bw_gbps  bandwidth matrix (GB/s), n×n. @param lat_us latency matrix (µs), n×n or empty.
/// @param host_names the hosts' names for the notes (index i names host i; a host without one is noted by
/// its index).
/// @throws std::invalid_argument when the matrices are not square or differ in size.
LinkAnalysis analyze_links(const LinkMatrix& bw_gbps, const LinkMatrix& lat_us,
                           std::optional<double> expected_gbps = std::nullopt,
                           const std::vector<std::string>& host_names = {});

/// Noise scale of link values relative to their median: 1.4826·MAD/median (0 when there are fewer than 3
/// values, MAD = 0 or the median is 0).
double relative_spread(std::span<const double> values);
/// The same from a matrix's statistics (LinkAnalysis::bw / lat): 0 without a median, at median 0 or without
/// MAD.
double relative_spread(const LinkStats& s);

/// Confirmation rule for a re-measured link (DESIGN §5): with m = max(min_rel, 3 × rel_spread) — the two
/// thresholds of DESIGN §4 expressed relative to the median, the spread taken from the full matrix — it is
/// still an outlier when worse than `reference` (the worst good link re-measured the same way) by the factor
/// 1 + m: retest < reference / (1 + m) for Worse::kLower, retest > reference × (1 + m) for Worse::kHigher.
/// Multiplicative, so a noisy matrix (m >= 1) still confirms a link many times slower than the reference.
/// `min_rel` is the kind's magnitude (min_relative): 10 % for bandwidth, 100 % for latency.
bool still_outlier(double retest, double reference, double rel_spread, Worse worse,
                   double min_rel = OutlierRule::kMinRelative);

/// The magnitude an outlier of this kind must exceed the median by (DESIGN §4): OutlierRule::kMinRelative
/// for bandwidth, OutlierRule::kMinRelativeLatency for latency.
double min_relative(LinkKind kind);

/// The rel_spread for still_outlier in a retest: the full matrix's (relative_spread) or a third of the
/// references' own relative range, max/min − 1, whichever is larger — so a check must be further from the
/// worst reference than the references, measured alone the same way a moment apart, are from each other. On a
/// fabric whose links measured alone agree (perftest-like, a few %) this is the matrix's spread; where the
/// CPU, not the wire, sets a link's speed (a virtual fabric of 6 hosts on 2 cores: references alone 1.50–1.97
/// GB/s in one retest, 1.76–2.61 in another) it keeps a 25 % deficit from being confirmed as a slow link.
/// The range counts up to kMaxReferenceRange (a margin of at most 2×): references further apart than that
/// hold a stalled one, and a link more than twice as slow as the worst of them is still a slow link. Fewer
/// than 2 references, or one ≤ 0: `matrix_rel_spread`.
double retest_spread(double matrix_rel_spread, std::span<const double> references);

/// The most of the references' relative range that retest_spread counts (max/min − 1 = 1: a factor of 2).
inline constexpr double kMaxReferenceRange = 1.0;

}  // namespace fabcheck::core
