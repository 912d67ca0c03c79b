#include "fabcheck/report/pairs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "fabcheck/core/size.hpp"
#include "fabcheck/model/json_value.hpp"

namespace fabcheck::report {

namespace {

using model::PairsRail;
using model::PairsResult;
using nlohmann::json;

/// A flagged link's impact (`evidence.impact`, the order inside a severity, reconcile.hpp): how many times
/// worse than the median link of its kind it is — median / value for bandwidth, value / median for latency.
std::optional<double> impact_of(const core::LinkOutlier& o) {
  const bool bw = o.kind == core::LinkKind::kBandwidth;
  const double num_v = bw ? o.median : o.value, den = bw ? o.value : o.median;
  if (!(den > 0) || !std::isfinite(num_v / den)) return std::nullopt;
  return num_v / den;
}

/// A suspect host's impact: the median impact of its flagged links of the kind that blamed it.
std::optional<double> impact_of(const model::PairsRail& rail, const model::PairsSuspect& ps) {
  const auto want = ps.by_bandwidth() ? core::LinkKind::kBandwidth : core::LinkKind::kLatency;
  std::vector<double> v;
  for (std::size_t k : ps.host.links) {
    if (k >= rail.analysis.outliers.size() || rail.analysis.outliers[k].kind != want) continue;
    if (const auto i = impact_of(rail.analysis.outliers[k])) v.push_back(*i);
  }
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

const char* kind_name(core::LinkKind k) {
  return k == core::LinkKind::kBandwidth ? "bw" : "lat";
}

std::string rule_name(const core::LinkOutlier& o) {
  if (o.robust && o.below_line_rate) return "robust_z+line_rate";
  return o.robust ? "robust_z" : "line_rate";
}

json confirmed_json(std::optional<bool> c) {
  return c ? json(*c) : json(nullptr);
}

// Outliers that a suspect host explains (owned by it, host not refuted).
std::set<std::size_t> explained(const PairsRail& rail) {
  std::set<std::size_t> out;
  for (std::size_t k = 0; k < rail.outliers.size(); ++k) {
    const int owner = rail.outliers[k].owner;
    if (owner >= 0 && rail.suspects[static_cast<std::size_t>(owner)].confirmed.value_or(true)) out.insert(k);
  }
  return out;
}

json rail_json(const PairsResult& r, const PairsRail& rail) {
  const auto& H = r.hosts;
  auto host = [&](int i) { return H[static_cast<std::size_t>(i)]; };
  json j;
  j["local_rank"] = rail.local_rank;
  j["ranks"] = rail.ranks;
  j["bw_gbps"] = model::matrix_or_null(rail.bw_gbps);
  j["lat_p50_us"] = model::matrix_or_null(rail.lat_p50_us);
  j["lat_p99_us"] = model::matrix_or_null(rail.lat_p99_us);
  j["lat_min_us"] = model::matrix_or_null(rail.lat_min_us);
  j["bidir_gbps"] = r.bidir ? model::matrix_or_null(rail.bidir_gbps) : json(nullptr);
  j["lat_samples"] = rail.lat_samples;
  j["bw_median_gbps"] = model::number_or_null(rail.analysis.bw.median);
  j["lat_median_us"] = model::number_or_null(rail.analysis.lat.median);
  json outs = json::array();
  for (const auto& po : rail.outliers) {
    if (po.confirmed == false) continue;  // refuted by the retest: kept under `retests`
    const auto& o = po.link;
    json e = {{"kind", kind_name(o.kind)},
              {"from", host(o.from)},
              {"to", host(o.to)},
              {"value", model::number_or_null(o.value)},
              {"median", model::number_or_null(o.median)},
              {"z", model::number_or_null(o.z)},
              {"rule", rule_name(o)},
              {"confirmed", confirmed_json(po.confirmed)}};
    if (!o.z) e["z_reason"] = "MAD = 0: z is infinite, the 10 % test decided";
    outs.push_back(std::move(e));
  }
  j["outliers"] = std::move(outs);
  json sus = json::array(), refuted = json::array();
  for (const auto& ps : rail.suspects) {
    const auto& s = ps.host;
    json links = json::array();
    for (std::size_t k : s.links) {
      const auto& o = rail.outliers[k].link;
      links.push_back({{"kind", kind_name(o.kind)}, {"from", host(o.from)}, {"to", host(o.to)}});
    }
    (ps.confirmed == false ? refuted : sus)
        .push_back({{"host", host(s.host)},
                    {"links", std::move(links)},
                    {"confirmed", confirmed_json(ps.confirmed)},
                    {"out_flagged", s.out_flagged},
                    {"out_links", s.out_links},
                    {"in_flagged", s.in_flagged},
                    {"in_links", s.in_links},
                    {"lat_flagged", s.lat_flagged},
                    {"lat_links", s.lat_links}});
  }
  j["suspects"] = std::move(sus);              // confirmed, or not retested (confirmed: null)
  j["refuted_suspects"] = std::move(refuted);  // the retest against good partners did not reproduce them
  json rt = json::array();
  for (const auto& t : rail.retests) {
    rt.push_back({{"role", t.role},
                  {"kind", kind_name(t.kind)},
                  {"from", host(t.from)},
                  {"to", host(t.to)},
                  {"first", model::number_or_null(t.first)},
                  {"value", model::number_or_null(t.value)},
                  {"still_bad", confirmed_json(t.still_bad)}});
  }
  j["retests"] = std::move(rt);
  j["retest_reference"] = {{"bw_gbps", model::number_or_null(rail.retest_bw_reference)},
                           {"lat_us", model::number_or_null(rail.retest_lat_reference)}};
  j["notes"] = rail.analysis.notes;
  return j;
}

std::string fmt_value(double v, core::LinkKind k) {
  if (k == core::LinkKind::kLatency) return fmt::format("{:.1f}", v);
  return v >= 100 ? fmt::format("{:.1f}", v) : fmt::format("{:.3f}", v);
}

void render_matrix(std::string& s, const PairsResult& r, const PairsRail& rail, const core::LinkMatrix& m,
                   core::LinkKind kind, const char* title) {
  const std::size_t n = r.hosts.size();
  std::size_t w = 9;
  for (const auto& h : r.hosts) w = std::max(w, h.size() + 2);
  // Marks: '*' outlier, '?' refuted by retest.
  std::vector<std::vector<char>> mark(n, std::vector<char>(n, ' '));
  for (const auto& po : rail.outliers) {
    if (po.link.kind != kind) continue;
    const char c = po.confirmed == false ? '?' : '*';
    const auto a = static_cast<std::size_t>(po.link.from), b = static_cast<std::size_t>(po.link.to);
    mark[a][b] = c;
    if (kind == core::LinkKind::kLatency) mark[b][a] = c;
  }
  s += fmt::format("# {}\n", title);
  s += fmt::format("{:<{}}", "#  from\\to", w);
  for (const auto& h : r.hosts) s += fmt::format("{:>{}}", h, w);
  s += "\n";
  for (std::size_t i = 0; i < n; ++i) {
    s += fmt::format("{:<{}}", fmt::format("   {}", r.hosts[i]), w);
    for (std::size_t j = 0; j < n; ++j) {
      std::string cell = i == j ? "-" : m[i][j] ? fmt_value(*m[i][j], kind) : "n/a";
      s += fmt::format("{:>{}}{}", cell, w - 1, mark[i][j]);
    }
    s += "\n";
  }
}

// What a retest made of a flagged link or host.
const char* retest_text(std::optional<bool> confirmed) {
  if (!confirmed) return "not retested";
  return *confirmed ? "confirmed" : "refuted by retest";
}

// "# outliers: N" (or suspects): the flagged entries a retest did not refute, and how many it did.
template <class Flagged>
std::string retest_count_line(std::string_view what, const std::vector<Flagged>& flagged) {
  const auto refuted = static_cast<std::size_t>(
      std::count_if(flagged.begin(), flagged.end(), [](const Flagged& x) { return x.confirmed == false; }));
  return fmt::format("# {}: {}{}\n", what, flagged.size() - refuted,
                     refuted > 0 ? fmt::format(" ({} refuted by retest)", refuted) : "");
}

}  // namespace

nlohmann::json pairs_json(const PairsResult& r) {
  json j = json::object();
  j["size_bytes"] = r.size_bytes;
  j["message_bytes"] = r.message_bytes;
  j["window"] = r.window;
  j["hosts"] = r.hosts;
  json sched = json::array();
  for (const auto& round : r.schedule) {
    json jr = json::array();
    for (auto [a, b] : round)
      jr.push_back({r.hosts[static_cast<std::size_t>(a)], r.hosts[static_cast<std::size_t>(b)]});
    sched.push_back(std::move(jr));
  }
  j["schedule"] = std::move(sched);
  j["expected_gbps"] = model::number_or_null(r.expected_gbps);
  j["retest"] = r.retest;
  j["duration_s"] = model::number_or_null(r.duration_s);
  j["convention"] =
      "bw_gbps[from][to]: one direction at a time, window messages of size_bytes/window in flight then an "
      "acknowledgement (osu_bw), GB/s = 1e9 B/s; lat: 8 B half round trip, one value per unordered pair; "
      "outliers "
      "per DESIGN §4 (> 3 robust z and > 10 % worse than the median; below 80 % of expected_gbps); a host is "
      "a "
      "suspect when most of its outgoing, incoming or latency links are outliers";
  if (!r.rails.empty()) {
    json first = rail_json(r, r.rails[0]);
    for (auto& [k, v] : first.items())
      if (k != "local_rank") j[k] = v;
    if (r.rails.size() > 1) {
      json rails = json::array();
      for (const auto& rail : r.rails) rails.push_back(rail_json(r, rail));
      j["rails"] = std::move(rails);
    }
  }
  return j;
}

void add_pairs(Document& doc, const PairsResult& r) {
  doc.json()["pairs"] = pairs_json(r);
  doc.set_section("pairs", SectionStatus::kOk);
  auto host = [&](int i) { return r.hosts[static_cast<std::size_t>(i)]; };
  for (const auto& rail : r.rails) {
    const std::string where = r.rails.size() > 1 ? fmt::format(" (local rank {})", rail.local_rank) : "";
    for (const auto& ps : rail.suspects) {
      const auto& s = ps.host;
      Finding f;
      const bool refuted = ps.confirmed == false;
      // DESIGN §5 severity: a slow host confirmed against good partners is not fit for the job (fail);
      // one not retested is a likely problem (warn); one the retest refuted is context (info). The
      // confirmation that fails a host is its bandwidth: a host blamed for its latency pairs alone stays a
      // warning, as a latency-pair outlier does (an 8 B p50 measures the hosts' CPUs and scheduler as much as
      // the link: on busy cores a host's pairs can be slow, and stay slow on retest, with the fabric fine).
      const bool by_bandwidth = ps.by_bandwidth();
      f.severity = refuted                                ? Severity::kInfo
                   : ps.confirmed == true && by_bandwidth ? Severity::kFail
                                                          : Severity::kWarn;
      f.code = refuted ? "PAIRS_SUSPECT_REFUTED" : "PAIRS_SLOW_HOST";
      f.message = fmt::format(
          "host {}{}: {}/{} outgoing, {}/{} incoming bandwidth links and {}/{} latency pairs are "
          "outliers{}{}",
          host(s.host), where, s.out_flagged, s.out_links, s.in_flagged, s.in_links, s.lat_flagged,
          s.lat_links,
          ps.confirmed == true ? ", confirmed against good partners"
          : refuted            ? ", but the retest against good partners did not confirm it"
                               : " (not retested)",
          !refuted && !by_bandwidth ? " (latency only: its bandwidth is in line)" : "");
      f.evidence = {{"host", host(s.host)},
                    {"confirmed", confirmed_json(ps.confirmed)},
                    {"by", by_bandwidth ? "bandwidth" : "latency"},
                    {"bw_median_gbps", model::number_or_null(rail.analysis.bw.median)},
                    {"impact", model::number_or_null(impact_of(rail, ps))}};
      f.remedy = refuted ? "re-run pairs; a single noisy sample was not reproduced"
                         : "check the host's NIC, cable and switch port (link rate, errors); drain it "
                           "(--exclude-hostfile writes the hosts that passed)";
      doc.add_finding(f);
    }
    const auto expl = explained(rail);
    for (std::size_t k = 0; k < rail.outliers.size(); ++k) {
      const auto& po = rail.outliers[k];
      if (po.confirmed == false || expl.count(k)) continue;
      const auto& o = po.link;
      Finding f;
      const bool bw = o.kind == core::LinkKind::kBandwidth;
      // A bandwidth outlier confirmed by the retest is a slow link (fail); latency outliers and unconfirmed
      // ones need a look (warn): an 8 B p50 on shared cores measures the scheduler as much as the link.
      f.severity = bw && po.confirmed == true ? Severity::kFail : Severity::kWarn;
      f.code = bw ? "PAIRS_SLOW_LINK" : "PAIRS_HIGH_LATENCY";
      f.message = bw ? fmt::format("link {} -> {}{}: {:.3f} GB/s, median {:.3f} GB/s ({})", host(o.from),
                                   host(o.to), where, o.value, o.median, rule_name(o))
                     : fmt::format("pair {} <-> {}{}: 8 B latency p50 {:.1f} us, median {:.1f} us",
                                   host(o.from), host(o.to), where, o.value, o.median);
      f.evidence = {{"kind", kind_name(o.kind)},
                    {"from", host(o.from)},
                    {"to", host(o.to)},
                    {"value", model::number_or_null(o.value)},
                    {"median", model::number_or_null(o.median)},
                    {"z", model::number_or_null(o.z)},
                    {"confirmed", confirmed_json(po.confirmed)},
                    {"impact", model::number_or_null(impact_of(o))}};
      f.remedy = bw ? "check the cable/port on this path in this direction (link rate, FEC/symbol errors, "
                      "congestion); re-run pairs to confirm"
                    : "check the switch path between these hosts (hops, congestion, adaptive routing)";
      doc.add_finding(f);
    }
  }
  if (!r.rails.empty() && r.hosts.size() <= 3) {
    for (const auto& note : r.rails[0].analysis.notes) {
      Finding f;
      f.severity = Severity::kInfo;
      f.code = "PAIRS_RULE_LIMIT";
      f.message = note;
      f.evidence = {{"hosts", r.hosts.size()}};
      f.remedy = "run pairs on 4 or more hosts, or give --line-rate-gbit for the independent line-rate test";
      doc.add_finding(f);
    }
  }
}

std::string render_pairs(const PairsResult& r) {
  std::string s;
  s += fmt::format(
      "# fabcheck pairs: {} hosts, {} rounds (circle method), {} per iteration = {} x {} B messages in "
      "flight, retest {}\n",
      r.hosts.size(), r.schedule.size(), core::format_size(r.size_bytes), r.window, r.message_bytes,
      r.retest ? "on" : "off");
  for (const auto& rail : r.rails) {
    if (r.rails.size() > 1) s += fmt::format("# local rank {}\n", rail.local_rank);
    if (r.hosts.size() <= 32) {
      render_matrix(s, r, rail, rail.bw_gbps, core::LinkKind::kBandwidth,
                    "bandwidth GB/s, row = source -> column = destination (* outlier, ? refuted by retest)");
      if (r.bidir)
        render_matrix(s, r, rail, rail.bidir_gbps, core::LinkKind::kBandwidth,
                      "bidirectional GB/s (both directions at once, summed)");
      render_matrix(
          s, r, rail, rail.lat_p50_us, core::LinkKind::kLatency,
          fmt::format("latency p50 us, 8 B half round trip, {} samples per pair", rail.lat_samples).c_str());
    } else {
      s += fmt::format("# {} hosts: matrices are in the JSON report (pairs.bw_gbps, pairs.lat_p50_us)\n",
                       r.hosts.size());
    }
    auto host = [&](int i) { return r.hosts[static_cast<std::size_t>(i)]; };
    s += fmt::format("# median bandwidth {} GB/s, median latency {} us\n",
                     rail.analysis.bw.median ? fmt::format("{:.3f}", *rail.analysis.bw.median) : "n/a",
                     rail.analysis.lat.median ? fmt::format("{:.1f}", *rail.analysis.lat.median) : "n/a");
    s += retest_count_line("outliers", rail.outliers);
    for (const auto& po : rail.outliers) {
      const auto& o = po.link;
      const bool bw = o.kind == core::LinkKind::kBandwidth;
      s += fmt::format("#   {} {} {} {}  {} {}  median {}  z {}  {}  {}\n", kind_name(o.kind), host(o.from),
                       bw ? "->" : "<->", host(o.to), fmt_value(o.value, o.kind), bw ? "GB/s" : "us",
                       fmt_value(o.median, o.kind), o.z ? fmt::format("{:.1f}", *o.z) : "inf", rule_name(o),
                       retest_text(po.confirmed));
    }
    s += retest_count_line("suspects", rail.suspects);
    for (const auto& ps : rail.suspects) {
      const auto& h = ps.host;
      s += fmt::format("#   {}: out {}/{}, in {}/{}, lat {}/{} links flagged, {}\n", host(h.host),
                       h.out_flagged, h.out_links, h.in_flagged, h.in_links, h.lat_flagged, h.lat_links,
                       retest_text(ps.confirmed));
    }
    for (const auto& note : rail.analysis.notes) s += fmt::format("# note: {}\n", note);
  }
  return s;
}

}  // namespace fabcheck::report
