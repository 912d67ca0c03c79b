// Pure helpers of the nics result (model/nics.hpp).
#include "fabcheck/model/nics.hpp"

#include <algorithm>
#include <set>

#include "fabcheck/core/ifname_filter.hpp"
#include "fabcheck/core/ipv4.hpp"

namespace fabcheck::model {

int nic_on_rail(const NicsResult& r, int host, int rail) {
  const auto& v = r.nics[static_cast<std::size_t>(host)];
  for (std::size_t k = 0; k < v.size(); ++k)
    if (v[k].data && v[k].rail == rail) return static_cast<int>(k);
  return -1;
}

void assign_rails(NicsResult& r) {
  std::set<std::string> subnets;
  auto subnet_of = [](const NicInfo& n) {
    std::uint32_t a = 0;
    return core::parse_ipv4(n.addr, a) ? core::ipv4_subnet(a, n.prefix_len) : n.addr + "/32";
  };
  for (const auto& host : r.nics)
    for (const auto& n : host)
      if (n.data) subnets.insert(subnet_of(n));
  r.rails.clear();
  for (const auto& s : subnets) r.rails.push_back(NicRail{s, {}, {}, {}, {}, std::nullopt});
  for (auto& host : r.nics)
    for (auto& n : host) {
      n.rail = -1;
      if (!n.data) continue;
      const auto s = subnet_of(n);
      for (std::size_t k = 0; k < r.rails.size(); ++k)
        if (r.rails[k].subnet == s) n.rail = static_cast<int>(k);
    }
  const std::size_t hosts = r.hosts.size();
  for (std::size_t k = 0; k < r.rails.size(); ++k) {
    auto& rail = r.rails[k];
    rail.bw_gbps = rail.lat_p50_us = core::LinkMatrix(hosts, std::vector<std::optional<double>>(hosts));
    for (const auto& l : r.links) {
      if (l.from_host < 0 || l.to_host < 0 || static_cast<std::size_t>(l.from_host) >= hosts ||
          static_cast<std::size_t>(l.to_host) >= hosts)
        continue;
      if (nic_on_rail(r, l.from_host, static_cast<int>(k)) != l.from_nic ||
          nic_on_rail(r, l.to_host, static_cast<int>(k)) != l.to_nic)
        continue;
      const auto f = static_cast<std::size_t>(l.from_host), t = static_cast<std::size_t>(l.to_host);
      if (l.bw_gbps) rail.bw_gbps[f][t] = l.bw_gbps;
      // Latency is a pair: the lower host's measurement wins when both directions measured it.
      if (l.lat_p50_us) {
        const auto a = std::min(f, t), b = std::max(f, t);
        if (!rail.lat_p50_us[a][b] || f == a) rail.lat_p50_us[a][b] = rail.lat_p50_us[b][a] = l.lat_p50_us;
      }
    }
  }
}

}  // namespace fabcheck::model
