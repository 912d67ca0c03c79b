#include "fabcheck/core/link_outliers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace fabcheck::core {

namespace {

struct Cell {
  int from, to;
};

// Nearest-rank median (DESIGN §4, the same element core::median returns) by selection instead of a full sort:
// the matrix of 1024 hosts has a million links. `v` is reordered.
double select_median(std::vector<double>& v) {
  const std::size_t k = percentile_index(v.size(), 5000);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

LinkStats stats_of(std::span<const double> v) {
  LinkStats s;
  s.values = v.size();
  if (v.empty()) return s;
  std::vector<double> work(v.begin(), v.end());
  const double med = select_median(work);
  for (std::size_t i = 0; i < v.size(); ++i) work[i] = std::fabs(v[i] - med);
  s.median = med;
  s.mad = select_median(work);
  return s;
}

// One flagged link; z is kept when finite.
LinkOutlier make_outlier(LinkKind kind, const Cell& cell, double x, double med, std::optional<double> z,
                         bool robust, bool below_line_rate) {
  LinkOutlier o;
  o.kind = kind;
  o.from = cell.from;
  o.to = cell.to;
  o.value = x;
  o.median = med;
  if (z && std::isfinite(*z)) o.z = *z;
  o.robust = robust;
  o.below_line_rate = below_line_rate;
  return o;
}

// The DESIGN §4 outlier rule of core::outliers / core::robust_z (z = (x − median)/(1.4826·MAD), ±∞ when MAD =
// 0; flagged when worse by more than 3 z and by more than 10 % of the median; nothing below 3 values),
// evaluated with the median and MAD computed once. A unit test checks it against core::outliers and
// core::robust_z.
void flag(LinkKind kind, const std::vector<Cell>& cells, const std::vector<double>& values, Worse worse,
          std::optional<double> line_rate_floor, const LinkStats& st, std::vector<LinkOutlier>& out) {
  const bool judge = values.size() >= OutlierRule::kMinValues;
  const double med = st.median.value_or(0), mad = st.mad.value_or(0);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double x = values[i];
    const double z = judge ? OutlierRule::z(x, med, mad) : 0.0;
    const bool robust = judge && OutlierRule::is_outlier(x, med, z, worse, min_relative(kind));
    const bool below = line_rate_floor && x < *line_rate_floor;
    if (!robust && !below) continue;
    out.push_back(
        make_outlier(kind, cells[i], x, med, judge ? std::optional(z) : std::nullopt, robust, below));
  }
}

// The host stage's test on the hosts' median links: the DESIGN §4 rule (worse by more than 3 robust z AND by
// more than 10 % of the median), with z computed on log values. Bandwidth and latency are ratio quantities:
// on a noisy fabric the hosts' medians scatter multiplicatively, and on a linear scale z is bounded by
// −median/(1.4826·MAD), so once the spread exceeds a third of the median no slow host can reach −3 z however
// slow it is. On the log scale a host 10× slower scores ln(10)/(1.4826·MAD_log). Non-positive values fall
// back to the linear rule.
std::vector<bool> host_median_outliers(const std::vector<double>& med, Worse worse, double min_rel) {
  for (double x : med)
    if (!(x > 0)) return outliers(med, worse, min_rel);
  std::vector<bool> out(med.size(), false);
  if (med.size() < 3) return out;
  std::vector<double> lg(med.size());
  for (std::size_t i = 0; i < med.size(); ++i) lg[i] = std::log(med[i]);
  const auto z = robust_z(lg);
  const double m = *median(med);
  for (std::size_t i = 0; i < med.size(); ++i)
    out[i] = OutlierRule::is_outlier(med[i], m, z[i], worse, min_rel);
  return out;
}

// Second look at the links of hosts the host stage singled out (on the log scale): a link not flagged by the
// linear rule is flagged when it is worse than the clean links by more than 3 robust z on the log scale and
// by more than 10 % of their median — the same §4 thresholds, on the scale the host stage used. On a noisy
// fabric the clean links' MAD can exceed a third of their median, and then no link, however slow, reaches
// −3 z on the linear scale. `st` holds the clean links' median (re-estimated by the host stage); z is the
// log-scale z.
/// Median and MAD of the log values of the links that touch no odd host (nullopt: fewer than 3, or a value ≤
/// 0).
std::optional<LinkStats> clean_log_stats(const std::vector<Cell>& cells, const std::vector<double>& values,
                                         const std::vector<bool>& odd) {
  std::vector<double> clean_log;
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (odd[static_cast<std::size_t>(cells[k].from)] || odd[static_cast<std::size_t>(cells[k].to)]) continue;
    if (!(values[k] > 0)) return std::nullopt;
    clean_log.push_back(std::log(values[k]));
  }
  if (clean_log.size() < 3) return std::nullopt;
  return stats_of(clean_log);
}

void flag_odd_host_links(LinkKind kind, const std::vector<Cell>& cells, const std::vector<double>& values,
                         Worse worse, const std::vector<bool>& odd, const LinkStats& st,
                         std::vector<LinkOutlier>& out) {
  if (std::none_of(odd.begin(), odd.end(), [](bool b) { return b; }) || !st.median || !(*st.median > 0))
    return;
  const auto touches = [&](std::size_t k) {
    return odd[static_cast<std::size_t>(cells[k].from)] || odd[static_cast<std::size_t>(cells[k].to)];
  };
  const auto lg = clean_log_stats(cells, values, odd);
  if (!lg) return;
  const double med = *st.median, lmed = *lg->median, lmad = *lg->mad;
  for (std::size_t k = 0; k < values.size(); ++k) {
    const double x = values[k];
    if (!touches(k) || !(x > 0)) continue;
    const bool already = std::any_of(out.begin(), out.end(), [&](const LinkOutlier& o) {
      return o.kind == kind && o.from == cells[k].from && o.to == cells[k].to;
    });
    if (already) continue;
    const double z = OutlierRule::z(std::log(x), lmed, lmad);
    const bool robust = OutlierRule::is_outlier(x, med, z, worse, min_relative(kind));
    if (robust) out.push_back(make_outlier(kind, cells[k], x, med, z, true, false));
  }
}

/// A bandwidth link below a quarter of the median and beyond the §4 rule on the log scale (bandwidth noise is
/// multiplicative): on a noisy fabric the linear MAD hides one slow link (seen on the virtual fabric: one
/// direction at 0.059 GB/s against clean links of 0.74-1.51 GB/s scored z = 2.5 and was not flagged). The log
/// statistics come from the links that touch no odd host; the factor of 4 keeps the slow end of a noisy clean
/// matrix out (a clean 0.132 GB/s link against a 0.37 median, a clean 0.375 against 0.99 were flagged with a
/// factor of 2). The pairs retest against good partners still decides whether a flagged link is confirmed.
void flag_far_links(LinkKind kind, const std::vector<Cell>& cells, const std::vector<double>& values,
                    Worse worse, const std::vector<bool>& odd, const LinkStats& st,
                    std::vector<LinkOutlier>& out) {
  if (!st.median || !(*st.median > 0)) return;
  const auto lg = clean_log_stats(cells, values, odd);
  if (!lg) return;
  const double med = *st.median;
  for (std::size_t k = 0; k < values.size(); ++k) {
    const double x = values[k];
    if (!(x > 0) || !(4 * x < med)) continue;
    const bool already = std::any_of(out.begin(), out.end(), [&](const LinkOutlier& o) {
      return o.kind == kind && o.from == cells[k].from && o.to == cells[k].to;
    });
    if (already) continue;
    const double z = OutlierRule::z(std::log(x), *lg->median, *lg->mad);
    if (OutlierRule::is_outlier(x, med, z, worse, min_relative(kind)))
      out.push_back(make_outlier(kind, cells[k], x, med, z, true, false));
  }
}

/// Throws std::invalid_argument unless `bw` is square and `lat` is empty or square of the same size.
void check_link_matrices(const LinkMatrix& bw, const LinkMatrix& lat) {
  const std::size_t n = bw.size();
  for (const auto& row : bw)
    if (row.size() != n) throw std::invalid_argument("analyze_links: bandwidth matrix is not square");
  if (!lat.empty()) {
    if (lat.size() != n) throw std::invalid_argument("analyze_links: latency matrix size differs");
    for (const auto& row : lat)
      if (row.size() != n) throw std::invalid_argument("analyze_links: latency matrix is not square");
  }
}

/// The measured links of one kind: cells[k] measured values[k].
struct MeasuredLinks {
  std::vector<Cell> cells;
  std::vector<double> values;
};

/// Bandwidth: every measured directed link.
MeasuredLinks bandwidth_links(const LinkMatrix& bw) {
  const std::size_t n = bw.size();
  MeasuredLinks l;
  l.cells.reserve(n * (n > 0 ? n - 1 : 0));
  l.values.reserve(l.cells.capacity());
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (i != j && bw[i][j]) {
        l.cells.push_back({static_cast<int>(i), static_cast<int>(j)});
        l.values.push_back(*bw[i][j]);
      }
  return l;
}

/// Latency: one value per unordered pair (either direction's), none when `lat` is empty.
MeasuredLinks latency_links(const LinkMatrix& lat, std::size_t n) {
  MeasuredLinks l;
  if (lat.empty()) return l;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const auto& v = lat[i][j] ? lat[i][j] : lat[j][i];
      if (!v) continue;
      l.cells.push_back({static_cast<int>(i), static_cast<int>(j)});
      l.values.push_back(*v);
    }
  return l;
}

/// The hosts whose median link (outgoing and incoming apart when `split`, else all links together) is an
/// outlier among the hosts' medians, plus, with `split`, the hosts that fail the leave-one-out test.
std::vector<bool> odd_hosts(std::size_t n, const MeasuredLinks& links, Worse worse, bool split) {
  const auto& cells = links.cells;
  const auto& values = links.values;
  std::vector<std::vector<double>> out(n), in(n);
  for (std::size_t h = 0; h < n; ++h) {
    out[h].reserve(split ? n - 1 : 2 * (n - 1));
    if (split) in[h].reserve(n - 1);
  }
  for (std::size_t k = 0; k < cells.size(); ++k) {
    out[static_cast<std::size_t>(cells[k].from)].push_back(values[k]);
    (split ? in : out)[static_cast<std::size_t>(cells[k].to)].push_back(values[k]);
  }
  std::vector<bool> odd(n, false);
  for (auto* side : {&out, &in}) {
    if (!split && side == &in) continue;
    std::vector<double> med;
    std::vector<std::size_t> who;
    for (std::size_t h = 0; h < n; ++h)
      if (!(*side)[h].empty()) {
        med.push_back(select_median((*side)[h]));
        who.push_back(h);
      }
    // split: bandwidth (directed links); latency pairs are judged with the latency magnitude
    const auto f = host_median_outliers(med, worse,
                                        split ? OutlierRule::kMinRelative : OutlierRule::kMinRelativeLatency);
    for (std::size_t i = 0; i < f.size(); ++i)
      if (f[i]) odd[who[i]] = true;
  }
  // Leave-one-out, bandwidth only: with 4 hosts a slow host owns half of the directed links, and
  // on a noisy fabric the hosts' medians scatter so widely that the rule over 4 medians cannot single it
  // out (seen on the virtual fabric: clean links 0.375-1.27 GB/s, every link of a host throttled to 500
  // Mbit/s at 0.06 GB/s, z = 1.96 on the log scale). A host whose links' median is below half the median of
  // the links that do not touch it is odd too; its links are then judged against the clean ones below, and
  // the pairs retest against good partners still decides whether it is confirmed.
  if (split) {
    for (std::size_t h = 0; h < n; ++h) {
      std::vector<double> mine, rest;
      for (std::size_t k = 0; k < cells.size(); ++k) {
        const bool touches =
            static_cast<std::size_t>(cells[k].from) == h || static_cast<std::size_t>(cells[k].to) == h;
        (touches ? mine : rest).push_back(values[k]);
      }
      if (mine.size() < 2 || rest.size() < 3) continue;
      if (2.0 * select_median(mine) < select_median(rest)) odd[h] = true;
    }
  }
  return odd;
}

/// Host stage on one kind of link. A host whose median link (outgoing, incoming, or latency) is an outlier
/// among the hosts' medians (the same §4 rule over n values) contaminates the link statistics — with a third
/// of the links slow the MAD inflates until a 10× slower link scores under 3 z. The link median and MAD are
/// then re-estimated from the links that touch none of those hosts (when at least 3 remain), and every link
/// is judged against them: `st` gets the clean links' statistics, `odd_out` the odd hosts and `notes` a note
/// naming them (`what`: the kind's name). Nothing changes when no host stands out.
void host_stage(std::size_t n, const std::vector<std::string>& host_names, const MeasuredLinks& links,
                Worse worse, bool split, LinkStats& st, const char* what, std::vector<bool>& odd_out,
                std::vector<std::string>& notes) {
  const auto& cells = links.cells;
  const auto& values = links.values;
  if (n < 4 || values.size() < 3) return;
  const std::vector<bool> odd = odd_hosts(n, links, worse, split);
  std::vector<double> clean;
  std::string names;
  for (std::size_t k = 0; k < cells.size(); ++k)
    if (!odd[static_cast<std::size_t>(cells[k].from)] && !odd[static_cast<std::size_t>(cells[k].to)])
      clean.push_back(values[k]);
  for (std::size_t h = 0; h < n; ++h)
    if (odd[h])
      names += (names.empty() ? "" : ", ") + (h < host_names.size() ? host_names[h] : std::to_string(h));
  if (names.empty() || clean.size() < 3) return;
  st = stats_of(clean);
  st.values = values.size();
  odd_out = odd;
  notes.push_back(
      std::string(what) + ": host(s) " + names +
      " stand out among the hosts' median links; median and MAD re-estimated without their links");
}

/// Whether more than half of the bandwidth links are flagged (the first `bw_flagged` of `outliers`).
/// Fabric-wide slowness is judged on the links that touch no host the host stage singled out: a slow host
/// owns half of the links of 4 hosts, and one more noisy link flagged beside its 6 must not turn it into
/// "the whole fabric is slow" (seen on the virtual fabric: 7 of 12 flagged, the 7th refuted by the retest).
bool bandwidth_fabric_wide(const MeasuredLinks& bw, const std::vector<bool>& bw_odd,
                           const std::vector<LinkOutlier>& outliers, std::size_t bw_flagged) {
  std::size_t clean_links = 0, clean_flagged = 0;
  for (const auto& c : bw.cells)
    if (!bw_odd[static_cast<std::size_t>(c.from)] && !bw_odd[static_cast<std::size_t>(c.to)]) ++clean_links;
  for (std::size_t k = 0; k < bw_flagged; ++k) {
    const auto& o = outliers[k];
    if (!bw_odd[static_cast<std::size_t>(o.from)] && !bw_odd[static_cast<std::size_t>(o.to)]) ++clean_flagged;
  }
  const bool any_odd = std::find(bw_odd.begin(), bw_odd.end(), true) != bw_odd.end();
  return any_odd ? clean_flagged * 2 > clean_links : bw_flagged * 2 > bw.values.size();
}

/// Per-host tallies of links and flagged links; the hosts with most of their links of a direction flagged
/// are the suspects (bandwidth directions only when the slowness is not fabric-wide).
std::vector<HostSuspect> host_suspects(std::size_t n, const MeasuredLinks& bw, const MeasuredLinks& lat,
                                       const std::vector<bool>& bw_odd,
                                       const std::vector<LinkOutlier>& outliers, bool bw_fabric_wide) {
  std::vector<HostSuspect> tally(n);
  for (std::size_t h = 0; h < n; ++h) tally[h].host = static_cast<int>(h);
  // A host's bandwidth tally leaves out its links to a host the host stage singled out (unless it is one
  // itself): those are explained by the odd host, and counting them made its partners suspects too (seen: two
  // partners of a throttled host, each with one noisy clean link flagged beside the slow one).
  const auto counts_for = [&](int self, int other) {
    return bw_odd[static_cast<std::size_t>(self)] || !bw_odd[static_cast<std::size_t>(other)];
  };
  for (const auto& c : bw.cells) {
    if (counts_for(c.from, c.to)) ++tally[static_cast<std::size_t>(c.from)].out_links;
    if (counts_for(c.to, c.from)) ++tally[static_cast<std::size_t>(c.to)].in_links;
  }
  for (const auto& c : lat.cells) {
    ++tally[static_cast<std::size_t>(c.from)].lat_links;
    ++tally[static_cast<std::size_t>(c.to)].lat_links;
  }
  for (std::size_t k = 0; k < outliers.size(); ++k) {
    const auto& o = outliers[k];
    auto& f = tally[static_cast<std::size_t>(o.from)];
    auto& t = tally[static_cast<std::size_t>(o.to)];
    if (o.kind == LinkKind::kBandwidth) {
      if (counts_for(o.from, o.to)) ++f.out_flagged;
      if (counts_for(o.to, o.from)) ++t.in_flagged;
    } else {
      ++f.lat_flagged;
      ++t.lat_flagged;
    }
    f.links.push_back(k);
    t.links.push_back(k);
  }
  std::vector<HostSuspect> suspects;
  for (auto& h : tally) {
    const bool out_most = !bw_fabric_wide && h.out_links > 0 && 2 * h.out_flagged > h.out_links;
    const bool in_most = !bw_fabric_wide && h.in_links > 0 && 2 * h.in_flagged > h.in_links;
    const bool lat_most = h.lat_links > 0 && 2 * h.lat_flagged > h.lat_links;
    if (out_most || in_most || lat_most) suspects.push_back(std::move(h));
  }
  return suspects;
}

}  // namespace

LinkAnalysis analyze_links(const LinkMatrix& bw, const LinkMatrix& lat, std::optional<double> expected_gbps,
                           const std::vector<std::string>& host_names) {
  check_link_matrices(bw, lat);
  const std::size_t n = bw.size();
  LinkAnalysis a;
  a.hosts = static_cast<int>(n);

  const MeasuredLinks bwl = bandwidth_links(bw);
  const MeasuredLinks latl = latency_links(lat, n);
  a.bw = stats_of(bwl.values);
  a.lat = stats_of(latl.values);

  std::vector<bool> bw_odd(n, false), lat_odd(n, false);
  host_stage(n, host_names, bwl, Worse::kLower, true, a.bw, "bandwidth", bw_odd, a.notes);
  host_stage(n, host_names, latl, Worse::kHigher, false, a.lat, "latency", lat_odd, a.notes);

  std::optional<double> floor;
  if (expected_gbps && *expected_gbps > 0) floor = 0.8 * *expected_gbps;
  flag(LinkKind::kBandwidth, bwl.cells, bwl.values, Worse::kLower, floor, a.bw, a.outliers);
  flag_odd_host_links(LinkKind::kBandwidth, bwl.cells, bwl.values, Worse::kLower, bw_odd, a.bw, a.outliers);
  flag_far_links(LinkKind::kBandwidth, bwl.cells, bwl.values, Worse::kLower, bw_odd, a.bw, a.outliers);
  const std::size_t bw_flagged = a.outliers.size();
  flag(LinkKind::kLatency, latl.cells, latl.values, Worse::kHigher, std::nullopt, a.lat, a.outliers);

  if (bwl.values.size() < 3)
    a.notes.push_back("fewer than 3 bandwidth links: the robust outlier rule needs 3 values");
  if (!lat.empty() && latl.values.size() < 3)
    a.notes.push_back("fewer than 3 latency pairs: the robust outlier rule needs 3 values");
  if (n < 3) {
    a.notes.push_back("fewer than 3 hosts: a slow link cannot be told from a slow host, no host is blamed");
    return a;
  }
  if (n == 3)
    a.notes.push_back(
        "with 3 hosts a host slow in both directions owns 4 of the 6 directed links, so the median itself is "
        "slow and "
        "neither the link rule nor the host stage can single that host out (DESIGN §5 limit; from 4 hosts on "
        "the "
        "host stage re-estimates the statistics without it)");
  const bool bw_fabric_wide = bandwidth_fabric_wide(bwl, bw_odd, a.outliers, bw_flagged);
  if (bw_fabric_wide)
    a.notes.push_back(
        "more than half of the bandwidth links are flagged: fabric-wide slowness, no host is blamed");
  a.suspects = host_suspects(n, bwl, latl, bw_odd, a.outliers, bw_fabric_wide);
  return a;
}

double relative_spread(const LinkStats& s) {
  if (!s.median || *s.median == 0 || !s.mad) return 0;
  return OutlierRule::kMadScale * *s.mad / std::fabs(*s.median);
}

double relative_spread(std::span<const double> values) {
  return values.size() < 3 ? 0 : relative_spread(stats_of(values));
}

double min_relative(LinkKind kind) {
  return kind == LinkKind::kLatency ? OutlierRule::kMinRelativeLatency : OutlierRule::kMinRelative;
}

bool still_outlier(double retest, double reference, double rel_spread, Worse worse, double min_rel) {
  // Multiplicative on both sides: `reference - margin` reaches 0 once the spread passes 1/3, and then no
  // bandwidth, however low, would stay an outlier (seen: clean links 0.14-0.69 GB/s, a throttled host's links
  // 0.024 GB/s refuted).
  const double factor = 1.0 + std::max(min_rel, OutlierRule::kMinZ * rel_spread);
  return worse == Worse::kLower ? retest * factor < reference : retest > reference * factor;
}

double retest_spread(double matrix_rel_spread, std::span<const double> references) {
  if (references.size() < 2) return matrix_rel_spread;
  const auto [lo, hi] = std::minmax_element(references.begin(), references.end());
  if (!(*lo > 0)) return matrix_rel_spread;
  // capped: one reference caught in a stall (a TCP retransmission timeout in a 150 ms window) must not make a
  // link 100 times slower pass (CI, 2026-12-05: a 50 Mbit link at 0.006 GB/s refuted without the cap)
  const double from_refs = std::min(*hi / *lo - 1.0, kMaxReferenceRange) / OutlierRule::kMinZ;
  return std::max(matrix_rel_spread, from_refs);
}

}  // namespace fabcheck::core
