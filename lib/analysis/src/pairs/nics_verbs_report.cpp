// The verbs part of the `nics` report section and its console lines (report/nics.hpp: nics_verbs_json,
// render_nics_verbs).
#include <fmt/format.h>

#include "fabcheck/model/json_value.hpp"
#include "fabcheck/report/nics.hpp"

namespace fabcheck::report {

namespace {

using nlohmann::json;

const model::VerbsNicPort* verbs_port(const model::NicsVerbs& v, int host, int port) {
  if (host < 0 || static_cast<std::size_t>(host) >= v.hosts.size()) return nullptr;
  const auto& ports = v.hosts[static_cast<std::size_t>(host)].ports;
  if (port < 0 || static_cast<std::size_t>(port) >= ports.size()) return nullptr;
  return &ports[static_cast<std::size_t>(port)];
}

std::string host_name(const model::NicsResult& r, int h) {
  return h >= 0 && static_cast<std::size_t>(h) < r.hosts.size() ? r.hosts[static_cast<std::size_t>(h)] : "?";
}

json end_json(const model::NicsResult& r, int host, int port) {
  const auto* p = verbs_port(r.verbs, host, port);
  return {{"host", host_name(r, host)},
          {"device", p ? p->device : ""},
          {"port", p ? p->port : 0},
          {"netdev", p ? p->netdev : ""},
          {"gid_index", p ? json(p->gid_index) : json(nullptr)}};
}

std::string end_text(const model::NicsResult& r, int host, int port) {
  const auto* p = verbs_port(r.verbs, host, port);
  if (!p) return host_name(r, host) + " ?";
  return fmt::format("{} {}/{}{}", host_name(r, host), p->device, p->port,
                     p->netdev.empty() ? "" : fmt::format(" ({})", p->netdev));
}

}  // namespace

json nics_verbs_json(const model::NicsResult& r) {
  const auto& v = r.verbs;
  bool same_reason = true;
  for (const auto& h : v.hosts) same_reason = same_reason && h.skipped == v.skipped;
  if (!v.skipped.empty() && same_reason) return {{"skipped", v.skipped}};
  json j;
  j["skipped"] = v.skipped.empty() ? json(nullptr) : json(v.skipped);
  j["method"] =
      "RC queue pairs per port pair, attributes (QPN, PSN, LID, GID) exchanged over MPI by the host leaders; "
      "source GID index as NCCL chooses it (NCCL_IB_GID_INDEX, else ncclIbGetGidIndex: RoCE v2 IPv4-mapped "
      "first; IB: GID 0 and the LID); path MTU = min of the two active MTUs; bw_gbps = msg_size_bytes * "
      "iters / "
      "(last completion - first post), iters RDMA WRITEs with tx_depth in flight (ib_write_bw); latency = "
      "half "
      "of an 8 B RDMA WRITE round trip, p50/p99 (ib_write_lat)";
  j["options"] = {{"msg_size_bytes", v.msg_size_bytes},
                  {"iters", v.iters},
                  {"tx_depth", v.tx_depth},
                  {"lat_iters", v.lat_iters}};
  json hosts = json::array();
  for (std::size_t h = 0; h < v.hosts.size(); ++h) {
    json ports = json::array();
    for (const auto& p : v.hosts[h].ports) ports.push_back(model::verbs_port_json(p));
    hosts.push_back({{"host", host_name(r, static_cast<int>(h))},
                     {"skipped", v.hosts[h].skipped.empty() ? json(nullptr) : json(v.hosts[h].skipped)},
                     {"ports", std::move(ports)}});
  }
  j["hosts"] = std::move(hosts);
  json links = json::array();
  for (const auto& l : v.links)
    links.push_back({{"from", end_json(r, l.from_host, l.from_port)},
                     {"to", end_json(r, l.to_host, l.to_port)},
                     {"reachable", l.reachable},
                     {"error", l.error.empty() ? json(nullptr) : json(l.error)},
                     {"path_mtu_bytes", l.path_mtu_bytes > 0 ? json(l.path_mtu_bytes) : json(nullptr)},
                     {"bw_gbps", model::number_or_null(l.bw_gbps)},
                     {"lat_p50_us", model::number_or_null(l.lat_p50_us)},
                     {"lat_p99_us", model::number_or_null(l.lat_p99_us)}});
  j["links"] = std::move(links);
  return j;
}

std::string render_nics_verbs(const model::NicsResult& r) {
  const auto& v = r.verbs;
  if (!v.skipped.empty()) return fmt::format("# verbs: skipped: {}\n", v.skipped);
  std::string s =
      fmt::format("# verbs: RDMA WRITE {} B x {} (window {}), 8 B ping-pong x {}: {} port pairs\n",
                  v.msg_size_bytes, v.iters, v.tx_depth, v.lat_iters, v.links.size());
  for (std::size_t h = 0; h < v.hosts.size(); ++h)
    if (!v.hosts[h].skipped.empty())
      s += fmt::format("#   {}: skipped: {}\n", host_name(r, static_cast<int>(h)), v.hosts[h].skipped);
  for (const auto& l : v.links) {
    const auto* p = verbs_port(v, l.from_host, l.from_port);
    const std::string gid = p ? fmt::format("GID {} {}", p->gid_index, p->gid_index_source) : "";
    if (l.bw_gbps)
      s += fmt::format("#   {} -> {}: {:.3f} GB/s, {} us p50, {} us p99 (MTU {}, {}){}\n",
                       end_text(r, l.from_host, l.from_port), end_text(r, l.to_host, l.to_port), *l.bw_gbps,
                       l.lat_p50_us ? fmt::format("{:.2f}", *l.lat_p50_us) : "-",
                       l.lat_p99_us ? fmt::format("{:.2f}", *l.lat_p99_us) : "-", l.path_mtu_bytes, gid,
                       l.error.empty() ? "" : "; " + l.error);
    else
      s += fmt::format("#   {} -> {}: {} ({})\n", end_text(r, l.from_host, l.from_port),
                       end_text(r, l.to_host, l.to_port), l.reachable ? "no bandwidth" : "unreachable",
                       l.error.empty() ? gid : l.error);
  }
  return s;
}

}  // namespace fabcheck::report
