// The `nics` report section and its console text (report/nics.hpp).
#include "fabcheck/report/nics.hpp"

#include <fmt/format.h>

#include "fabcheck/model/json_value.hpp"
#include "transport/nics_nccl_log.hpp"

namespace fabcheck::report {

namespace {

using model::NicsResult;
using nlohmann::json;

std::string nic_name(const NicsResult& r, int h, int k) {
  return r.nics[static_cast<std::size_t>(h)][static_cast<std::size_t>(k)].name;
}

}  // namespace

json nics_json(const NicsResult& r) {
  json j;
  j["hosts"] = r.hosts;
  j["ifaces"] = r.options.ifaces;
  j["options"] = {{"size_bytes", r.options.size_bytes},
                  {"budget_ms", r.options.budget_ms},
                  {"lat_iters", r.options.lat_iters},
                  {"lat_warmup", r.options.lat_warmup},
                  {"connect_timeout_ms", r.options.connect_timeout_ms},
                  {"retest", r.options.retest}};
  j["method"] =
      "TCP sockets bound to both interfaces (SO_BINDTODEVICE + the interface address); reachability = "
      "connect "
      "within connect_timeout_ms; bandwidth = bytes streamed for budget_ms (or size_bytes) / time until the "
      "receiver's byte count came back; latency = half of an 8 B round trip (TCP_NODELAY), p50/p99; per rail "
      "(subnet) the host x host matrix is judged by the DESIGN §4 rule and attribution";
  json nics = json::array();
  for (const auto& host : r.nics) {
    json a = json::array();
    for (const auto& n : host)
      a.push_back({{"name", n.name},
                   {"addr", n.addr},
                   {"prefix_len", n.prefix_len},
                   {"carrier", n.carrier},
                   {"data", n.data},
                   {"speed_mbps", model::number_or_null(n.speed_mbps)},
                   {"rail", n.rail >= 0 ? json(n.rail) : json(nullptr)}});
    nics.push_back(std::move(a));
  }
  j["nics"] = std::move(nics);
  json rails = json::array();
  for (const auto& rail : r.rails) {
    json s = json::array();
    for (std::size_t i = 0; i < rail.analysis.suspects.size(); ++i) {
      const auto& su = rail.analysis.suspects[i];
      const int k = model::nic_on_rail(r, su.host, static_cast<int>(&rail - r.rails.data()));
      s.push_back({{"host", r.hosts[static_cast<std::size_t>(su.host)]},
                   {"iface", k >= 0 ? nic_name(r, su.host, k) : ""},
                   {"out_flagged", su.out_flagged},
                   {"out_links", su.out_links},
                   {"in_flagged", su.in_flagged},
                   {"in_links", su.in_links},
                   {"confirmed", i < rail.confirmed.size() && rail.confirmed[i] ? json(*rail.confirmed[i])
                                                                                : json(nullptr)}});
    }
    rails.push_back({{"subnet", rail.subnet},
                     {"bw_gbps", model::matrix_or_null(rail.bw_gbps)},
                     {"lat_p50_us", model::matrix_or_null(rail.lat_p50_us)},
                     {"bw_median_gbps", model::number_or_null(rail.analysis.bw.median)},
                     {"lat_median_us", model::number_or_null(rail.analysis.lat.median)},
                     {"suspects", std::move(s)},
                     {"notes", rail.analysis.notes},
                     {"retest_reference_gbps", model::number_or_null(rail.retest_reference_gbps)}});
  }
  j["rails"] = std::move(rails);
  json reach = json::array();
  for (const auto& row : rail_reachability(r)) {
    json a = json::array();
    for (const auto& c : row) a.push_back({{"attempted", c.attempted}, {"reachable", c.reachable}});
    reach.push_back(std::move(a));
  }
  j["reachability"] = std::move(reach);
  json links = json::array();
  for (const auto& l : r.links)
    links.push_back({{"from",
                      {{"host", r.hosts[static_cast<std::size_t>(l.from_host)]},
                       {"iface", nic_name(r, l.from_host, l.from_nic)}}},
                     {"to",
                      {{"host", r.hosts[static_cast<std::size_t>(l.to_host)]},
                       {"iface", nic_name(r, l.to_host, l.to_nic)}}},
                     {"reachable", l.reachable},
                     {"error", l.reachable ? json(nullptr) : json(l.error)},
                     {"bound_device", l.bound_device},
                     {"connect_us", model::number_or_null(l.connect_us)},
                     {"bw_gbps", model::number_or_null(l.bw_gbps)},
                     {"lat_p50_us", model::number_or_null(l.lat_p50_us)},
                     {"lat_p99_us", model::number_or_null(l.lat_p99_us)}});
  j["links"] = std::move(links);
  json rt = json::array();
  for (const auto& t : r.retests)
    rt.push_back({{"role", t.role},
                  {"rail", r.rails[static_cast<std::size_t>(t.rail)].subnet},
                  {"from", r.hosts[static_cast<std::size_t>(t.from_host)]},
                  {"to", r.hosts[static_cast<std::size_t>(t.to_host)]},
                  {"first_gbps", t.first_gbps},
                  {"value_gbps", model::number_or_null(t.value)},
                  {"still_bad", t.still_bad ? json(*t.still_bad) : json(nullptr)}});
  j["retests"] = std::move(rt);
  j["schedule"] = r.schedule;
  j["env"] = r.env;
  j["duration_s"] = r.duration_s;
  j["verbs"] = nics_verbs_json(r);
  if (!r.options.nccl_log.empty()) j["nccl_log"] = nics_nccl_log_json(r);
  return j;
}

void add_nics(Document& doc, const NicsResult& r) {
  doc.json()["nics"] = nics_json(r);
  doc.set_section("nics", SectionStatus::kOk);
  for (const auto& f : nics_findings(r)) doc.add_finding(f);
}

std::string render_nics(const NicsResult& r) {
  std::string s = fmt::format(
      "# fabcheck nics: {} hosts, {} rails, {} rounds, {} NIC pairs in {:.1f} s (--ifaces {})\n",
      r.hosts.size(), r.rails.size(), r.schedule.size(), r.links.size(), r.duration_s, r.options.ifaces);
  for (std::size_t h = 0; h < r.nics.size(); ++h) {
    std::string line;
    for (const auto& n : r.nics[h])
      line += fmt::format(" {}{}={}/{}{}", n.data ? "" : "(", n.name, n.addr, n.prefix_len,
                          !n.data     ? ")"
                          : n.carrier ? ""
                                      : " NO-CARRIER");
    s += fmt::format("#   {}:{}\n", r.hosts[h], line);
  }
  const auto reach = rail_reachability(r);
  if (r.rails.size() > 1) {
    s += "# reachability (NIC pairs connected / tried, from rail row to rail column):\n";
    for (std::size_t a = 0; a < reach.size(); ++a) {
      std::string row = fmt::format("#   rail {} {:<18}", a, r.rails[a].subnet);
      for (const auto& c : reach[a])
        row += fmt::format(" {:>7}", fmt::format("{}/{}", c.reachable, c.attempted));
      s += row + "\n";
    }
  }
  for (std::size_t k = 0; k < r.rails.size(); ++k) {
    const auto& rail = r.rails[k];
    s += fmt::format("# rail {} {}: bandwidth GB/s (row -> column), median {}\n", k, rail.subnet,
                     rail.analysis.bw.median ? fmt::format("{:.3f}", *rail.analysis.bw.median) : "-");
    for (std::size_t i = 0; i < rail.bw_gbps.size(); ++i) {
      std::string row = fmt::format("#   {:<16}", r.hosts[i]);
      for (std::size_t j = 0; j < rail.bw_gbps[i].size(); ++j)
        row += i == j ? fmt::format(" {:>8}", "-")
                      : fmt::format(" {:>8}",
                                    rail.bw_gbps[i][j] ? fmt::format("{:.3f}", *rail.bw_gbps[i][j]) : "x");
      s += row + "\n";
    }
  }
  s += render_nics_verbs(r);
  if (!r.options.nccl_log.empty()) s += render_nccl_log_hosts(r);
  const auto findings = nics_findings(r);
  if (findings.empty()) s += "# no NIC finding\n";
  for (const auto& f : findings) s += fmt::format("# {} {}: {}\n", name(f.severity), f.code, f.message);
  return s;
}

}  // namespace fabcheck::report
