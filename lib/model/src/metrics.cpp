// The metric catalogue (metrics.hpp): the table, its lookups and its text.
#include "fabcheck/model/metrics.hpp"

#include <fmt/format.h>

#include <array>
#include <map>
#include <stdexcept>
#include <utility>

namespace fabcheck::model {
namespace {

constexpr auto kH = BetterIs::kHigher;
constexpr auto kL = BetterIs::kLower;
constexpr auto kN = BetterIs::kNone;

// clang-format off
// {section, field, report_path, gate_path, unit, better, compared, meaning}. Definitions: DESIGN §3 (bandwidth),
// §4 (statistics), §5 (incast, pairs, scaling); the gate's path syntax: report/gate.hpp.
constexpr std::array kCatalogue = {
  // sweeps: one entry per collective block, `points` per size and placement (DESIGN §3).
  Metric{"sweeps", "time_us", "sweeps[].points[].time_us", "sweeps.<collective>.time_us@<size>", kUnitUs, kL, true,
         "time per operation, nccl-tests' time column (DESIGN §3)"},
  Metric{"sweeps", "algbw_gbps", "sweeps[].points[].algbw_gbps", "sweeps.<collective>.algbw_gbps@<size>", kUnitGBps,
         kH, true, "algorithm bandwidth S / t (DESIGN §3)"},
  Metric{"sweeps", "busbw_gbps", "sweeps[].points[].busbw_gbps", "sweeps.<collective>.busbw_gbps@<size>", kUnitGBps,
         kH, true, "bus bandwidth algbw x factor(n) (DESIGN §3, nccl-tests doc/PERFORMANCE.md)"},
  Metric{"sweeps", "per_iter.p50_us", "sweeps[].points[].per_iter.p50_us", "sweeps.<collective>.per_iter@<size>.p50_us",
         kUnitUs, kL, true, "median per-iteration span, max exit - min entry over ranks (DESIGN §4)"},
  Metric{"sweeps", "per_iter.p99_us", "sweeps[].points[].per_iter.p99_us", "sweeps.<collective>.per_iter@<size>.p99_us",
         kUnitUs, kL, true, "p99 per-iteration span, nearest rank (DESIGN §4)"},
  Metric{"sweeps", "per_iter.p999_us", "sweeps[].points[].per_iter.p999_us",
         "sweeps.<collective>.per_iter@<size>.p999_us", kUnitUs, kL, false,
         "p99.9 per-iteration span, nearest rank (DESIGN §4)"},
  Metric{"sweeps", "wrong", "sweeps[].points[].wrong", "sweeps.<collective>.wrong@<size>", kUnitCount, kL, false,
         "#wrong: elements differing from the exactly predictable result, summed over ranks (DESIGN §3)"},
  Metric{"sweeps", "avg_busbw_gbps", "sweeps[].avg_busbw_gbps", "sweeps.<collective>.avg_busbw_gbps", kUnitGBps, kH,
         true, "mean of every printed busBw of the block, nccl-tests' # Avg bus bandwidth (DESIGN §3)"},
  // latency: one entry per kind, pattern and size; per_pair per host pair.
  Metric{"latency", "p50_us", "latency[].p50_us", "latency.<kind>.p50_us@<size>", kUnitUs, kL, true,
         "median latency, nearest rank (DESIGN §4)"},
  Metric{"latency", "p90_us", "latency[].p90_us", "latency.<kind>.p90_us@<size>", kUnitUs, kL, true,
         "p90 latency, nearest rank (DESIGN §4)"},
  Metric{"latency", "p99_us", "latency[].p99_us", "latency.<kind>.p99_us@<size>", kUnitUs, kL, true,
         "p99 latency, nearest rank; low_confidence under 100 samples (DESIGN §4)"},
  Metric{"latency", "p999_us", "latency[].p999_us", "latency.<kind>.p999_us@<size>", kUnitUs, kL, true,
         "p99.9 latency, nearest rank; low_confidence under 1000 samples (DESIGN §4)"},
  Metric{"latency", "mean_us", "latency[].mean_us", "latency.<kind>.mean_us@<size>", kUnitUs, kL, true,
         "mean latency"},
  Metric{"latency", "max_us", "latency[].max_us", "latency.<kind>.max_us@<size>", kUnitUs, kL, false,
         "largest latency sample"},
  Metric{"latency", "tail_ratio", "latency[].tail_ratio", "latency.<kind>.tail_ratio@<size>", kUnitRatio, kL, false,
         "p99 / p50 (DESIGN §4)"},
  Metric{"latency", "per_pair.p50_us", "latency[].per_pair[].p50_us", "latency.<kind>.per_pair@<size>.*.p50_us",
         kUnitUs, kL, true, "median latency of one host pair"},
  Metric{"latency", "per_pair.p99_us", "latency[].per_pair[].p99_us", "latency.<kind>.per_pair@<size>.*.p99_us",
         kUnitUs, kL, true, "p99 latency of one host pair"},
  // incast: one entry per receiver, fan-in k and size S (DESIGN §5).
  Metric{"incast", "goodput_gbps", "incast[].goodput_gbps", "incast.fan_in=<k>.goodput_gbps@<size>", kUnitGBps, kH,
         true, "k·S / max t_i, t_i = release to last byte of sender i (DESIGN §5)"},
  Metric{"incast", "incast_efficiency", "incast[].incast_efficiency", "incast.fan_in=<k>.incast_efficiency@<size>",
         kUnitRatio, kH, true, "goodput(k) / goodput(1) (DESIGN §5)"},
  Metric{"incast", "fairness", "incast[].fairness", "incast.fan_in=<k>.fairness@<size>", kUnitRatio, kH, true,
         "Jain's index (Σx)² / (k·Σx²) over x_i = S/t_i (DESIGN §5)"},
  Metric{"incast", "congestion_impact.mean", "incast[].congestion_impact.mean",
         "incast.fan_in=<k>.congestion_impact@<size>.mean", kUnitRatio, kL, true,
         "victim ping-pong mean, congested / isolated (GPCNeT's definition, DESIGN §5)"},
  Metric{"incast", "congestion_impact.p50", "incast[].congestion_impact.p50",
         "incast.fan_in=<k>.congestion_impact@<size>.p50", kUnitRatio, kL, false,
         "victim ping-pong p50, congested / isolated (DESIGN §5)"},
  Metric{"incast", "congestion_impact.p99", "incast[].congestion_impact.p99",
         "incast.fan_in=<k>.congestion_impact@<size>.p99", kUnitRatio, kL, true,
         "victim ping-pong p99, congested / isolated (GPCNeT's definition, DESIGN §5)"},
  Metric{"incast", "completion_p99_us", "incast[].completion_p99_us", "incast.fan_in=<k>.completion_p99_us@<size>",
         kUnitUs, kL, false, "p99 over the senders of release to last byte (DESIGN §5)"},
  Metric{"incast", "release_skew_us", "incast[].release_skew_us", "incast.fan_in=<k>.release_skew_us@<size>",
         kUnitUs, kL, false, "spread of the senders' common release on the aligned clocks (DESIGN §5)"},
  Metric{"incast", "offered_load_gbps", "incast[].offered_load_gbps", "incast.fan_in=<k>.offered_load_gbps@<size>",
         kUnitGBps, kN, false, "k · goodput(1): the load the senders offer (an input, not a result)"},
  // pairs: one object; matrices [from][to] over its hosts (DESIGN §5).
  Metric{"pairs", "bw_median_gbps", "pairs.bw_median_gbps", "pairs.bw_median_gbps", kUnitGBps, kH, true,
         "median bandwidth over the directed links"},
  Metric{"pairs", "bw_min_gbps", "", "", kUnitGBps, kH, true,
         "smallest off-diagonal cell of pairs.bw_gbps: the slowest directed link (compare derives it)"},
  Metric{"pairs", "lat_median_us", "pairs.lat_median_us", "pairs.lat_median_us", kUnitUs, kL, true,
         "median half round trip (8 B) over the host pairs"},
  Metric{"pairs", "lat_p99_max_us", "", "", kUnitUs, kL, true,
         "largest off-diagonal cell of pairs.lat_p99_us: the worst pair's p99 (compare derives it)"},
  Metric{"pairs", "bw_gbps", "pairs.bw_gbps[][]", "", kUnitGBps, kH, true,
         "bandwidth per directed link [from][to], windowed (osu_bw style); compared as a matrix"},
  Metric{"pairs", "lat_p50_us", "pairs.lat_p50_us[][]", "", kUnitUs, kL, true,
         "median half round trip per host pair; compared as a matrix"},
  Metric{"pairs", "links.bw_gbps", "pairs.links[].bw_gbps", "pairs.links.test=<test>.bw_gbps", kUnitGBps, kH, false,
         "an imported link's bandwidth (perftest, OSU, IMB)"},
  Metric{"pairs", "suspects#count", "", "pairs.suspects#count", kUnitCount, kL, false,
         "hosts owning most of their links' outliers (DESIGN §5)"},
  Metric{"pairs", "outliers#count", "", "pairs.outliers.kind=<bw|lat>#count", kUnitCount, kL, false,
         "links that are outliers by the rule of DESIGN §4"},
  // scaling: host groups, workloads, the alpha-beta model per collective (DESIGN §5).
  Metric{"scaling", "busbw_gbps", "scaling.groups[].busbw_gbps", "scaling.groups.hosts=<n>.busbw_gbps", kUnitGBps,
         kH, true, "busBw of the reference collective at the largest size on a group of hosts (DESIGN §5)"},
  Metric{"scaling", "time_us", "scaling.groups[].time_us", "scaling.groups.hosts=<n>.time_us", kUnitUs, kL, true,
         "time per operation of that group (DESIGN §5)"},
  Metric{"scaling", "vs_2host", "scaling.groups[].vs_2host", "scaling.groups.hosts=<n>.vs_2host", kUnitRatio, kH,
         true, "the group's busBw over the 2-host group's (DESIGN §5)"},
  Metric{"scaling", "efficiency", "scaling.workloads[].efficiency", "scaling.workloads.workload=<name>.efficiency",
         kUnitRatio, kH, true, "t_compute / (t_compute + exposed) of a training profile (DESIGN §5)"},
  Metric{"scaling", "exposed_s", "scaling.workloads[].exposed_s", "scaling.workloads.workload=<name>.exposed_s",
         kUnitS, kL, true, "max(t_last_bucket, t_comm - overlap·t_compute) (DESIGN §5)"},
  Metric{"scaling", "alpha_us", "scaling.model.*.alpha_us", "scaling.model.<collective>.alpha_us", kUnitUs, kL, true,
         "alpha (per-step latency) of the alpha-beta fit (DESIGN §5)"},
  Metric{"scaling", "beta_gbps", "scaling.model.*.beta_gbps", "scaling.model.<collective>.beta_gbps", kUnitGBps, kH,
         true, "beta (bandwidth) of the alpha-beta fit (DESIGN §5)"},
  // score (DESIGN §5).
  Metric{"score", "scaling_efficiency", "score.scaling_efficiency", "score.scaling_efficiency", kUnitRatio, kH, true,
         "the reference workload's efficiency (DESIGN §5)"},
  // counters: the hosts' loss and error counters summed over a step (report/counters.hpp).
  Metric{"counters", "tcp_lost_segs", "run.sections.*.counters.totals.tcp_lost_segs",
         "run.sections.<step>.counters.totals.tcp_lost_segs", kUnitCount, kL, true,
         "TCP segments retransmitted less those the receiver had (DSACK), all hosts, during the step"},
  Metric{"counters", "tcp_lost_share", "run.sections.*.counters.totals.tcp_lost_share",
         "run.sections.<step>.counters.totals.tcp_lost_share", kUnitRatio, kL, true,
         "tcp_lost_segs / TCP segments sent, all hosts, during the step"},
  Metric{"counters", "rdma_link_events", "run.sections.*.counters.totals.rdma_link_events",
         "run.sections.<step>.counters.totals.rdma_link_events", kUnitCount, kL, true,
         "link_downed + link_error_recovery over every RDMA port during the step"},
  Metric{"counters", "rdma_link_errors", "run.sections.*.counters.totals.rdma_link_errors",
         "run.sections.<step>.counters.totals.rdma_link_errors", kUnitCount, kL, true,
         "symbol, receive, remote physical, link integrity and buffer overrun errors over every RDMA port"},
  Metric{"counters", "rdma_xmit_discards", "run.sections.*.counters.totals.rdma_xmit_discards",
         "run.sections.<step>.counters.totals.rdma_xmit_discards", kUnitCount, kL, true,
         "port_xmit_discards over every RDMA port during the step"},
  Metric{"counters", "roce_seq_errors", "run.sections.*.counters.totals.roce_seq_errors",
         "run.sections.<step>.counters.totals.roce_seq_errors", kUnitCount, kL, true,
         "RoCE out_of_sequence, packet_seq_err, local_ack_timeout_err, implied_nak_seq_err (mlx5 hw_counters)"},
  Metric{"counters", "netdev_errors", "run.sections.*.counters.totals.netdev_errors",
         "run.sections.<step>.counters.totals.netdev_errors", kUnitCount, kL, true,
         "rx CRC, frame, length and tx carrier errors over every netdev during the step"},
  Metric{"counters", "netdev_drops", "run.sections.*.counters.totals.netdev_drops",
         "run.sections.<step>.counters.totals.netdev_drops", kUnitCount, kL, true,
         "rx dropped, missed, fifo and over errors over every netdev during the step"},
  // findings, run.
  Metric{"findings", "#count", "", "findings.<key>=<value>#count", kUnitCount, kL, false,
         "findings matching a filter, e.g. severity=fail (DESIGN §5)"},
  Metric{"run", "duration_s", "run.duration_s", "run.duration_s", kUnitS, kN, false, "wall time of the run"},
};
// clang-format on

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::string location_shape(std::string_view location) {
  if (!location.empty() && location.front() == '.') location.remove_prefix(1);
  std::string out;
  out.reserve(location.size());
  for (std::size_t i = 0; i < location.size(); ++i) {
    out += location[i];
    if (location[i] != '[') continue;
    while (i + 1 < location.size() && location[i + 1] != ']') ++i;
  }
  return out;
}

namespace {

// A location shape against a report_path: '.'-segments equal, or `*` against a plain key.
bool matches(std::string_view pattern, std::string_view loc) {
  while (true) {
    const auto pd = pattern.find('.'), ld = loc.find('.');
    const auto p = pattern.substr(0, pd), l = loc.substr(0, ld);
    if (!(p == l || (p == "*" && !l.empty() && l.find('[') == std::string_view::npos))) return false;
    if (pd == std::string_view::npos || ld == std::string_view::npos) return pd == ld;
    pattern.remove_prefix(pd + 1);
    loc.remove_prefix(ld + 1);
  }
}

}  // namespace

std::string_view name(BetterIs b) {
  switch (b) {
    case BetterIs::kHigher:
      return "higher";
    case BetterIs::kLower:
      return "lower";
    case BetterIs::kNone:
      return "none";
  }
  return "none";
}

std::span<const Metric> metric_catalogue() {
  return kCatalogue;
}

const Metric* find_metric(std::string_view section, std::string_view field) {
  static const auto by_key = [] {
    std::map<std::pair<std::string_view, std::string_view>, const Metric*> m;
    for (const auto& e : kCatalogue) m.emplace(std::pair{e.section, e.field}, &e);
    return m;
  }();
  const auto it = by_key.find({section, field});
  return it == by_key.end() ? nullptr : it->second;
}

const Metric& metric(std::string_view section, std::string_view field) {
  if (const Metric* m = find_metric(section, field)) return *m;
  throw std::logic_error(
      fmt::format("metric {}.{} is not in the catalogue (lib/model/src/metrics.cpp)", section, field));
}

const Metric* find_metric_at(std::string_view location) {
  const std::string loc = location_shape(location);
  for (const auto& e : kCatalogue) {
    if (!e.report_path.empty() && matches(e.report_path, loc)) return &e;
  }
  return nullptr;
}

std::optional<std::string_view> unit_from_suffix(std::string_view field) {
  if (const auto dot = field.rfind('.'); dot != std::string_view::npos) field.remove_prefix(dot + 1);
  // "_us" before "_s": the longest suffix that ends the name.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kSuffixes = {
      {{"_gbps", kUnitGBps}, {"_us", kUnitUs}, {"_bytes", kUnitBytes}, {"_s", kUnitS}}};
  for (const auto& [suffix, unit] : kSuffixes) {
    if (ends_with(field, suffix) && field.size() > suffix.size()) return unit;
  }
  return std::nullopt;
}

std::string_view unit_at(std::string_view location) {
  if (const Metric* m = find_metric_at(location)) return m->unit;
  std::string loc = location_shape(location);
  while (ends_with(loc, "[]")) loc.resize(loc.size() - 2);
  return unit_from_suffix(loc).value_or("");
}

std::string metric_catalogue_text() {
  constexpr auto kRow = "{:<9} {:<50} {:<6} {:<7} {:<8} {}\n";
  std::string out = fmt::format(kRow, "section", "gate path", "unit", "better", "compare", "meaning");
  for (const auto& e : kCatalogue) {
    const std::string path =
        e.gate_path.empty() ? fmt::format("- ({}.{})", e.section, e.field) : std::string(e.gate_path);
    out += fmt::format(kRow, e.section, path, e.unit, name(e.better), e.compared ? "yes" : "-", e.meaning);
  }
  return out;
}

}  // namespace fabcheck::model
