// NCCL's connection errors tied to the host facts that explain them: the GID's netdev and its
// routes (GID_NETDEV_DOWN, GID_PEER_NO_ROUTE) and LOC_PROT_ERR on a GPU-NIC path that breaks GPUDirect
// (LOC_PROT_ERR_HOST_FACTS). The kernel rules, with their sources, are on each function.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "fabcheck/parse/proc_net_ipv4.hpp"
#include "fabcheck/report/inventory.hpp"
#include "fabcheck/report/log_host.hpp"
#include "gid_rules.hpp"
#include "host/pcie_findings.hpp"
#include "log_host_internal.hpp"

namespace fabcheck::report::detail {

namespace {

using nlohmann::json;

/// The GID a host's NCCL uses on one RoCE port, with the netdev the kernel resolves its routes through.
struct GidInUse : RocePort {
  explicit GidInUse(const RocePort& p) : RocePort(p) {}
  const model::GidEntry* gid = nullptr;
  std::string netdev;                          // the GID's ndev (gid_attrs/ndevs), else the port's netdev
  const model::NetInterface* iface = nullptr;  // that netdev in the inventory, null when absent
};

const model::NetInterface* interface_named(const model::HostInventory& h, const std::string& name) {
  for (const auto& n : h.net_interfaces)
    if (n.name == name) return &n;
  return nullptr;
}

std::vector<GidInUse> gids_in_use(const LogHost& h) {
  std::vector<GidInUse> out;
  for (const auto& rp : roce_ports(h)) {
    GidInUse g(rp);
    g.gid = gid_at(*g.port, g.index);
    if (g.gid && !g.gid->netdev.empty()) {
      g.netdev = g.gid->netdev;
    } else {
      for (const auto& n : h.inv->net_interfaces)
        if (n.rdma_device == g.dev->name) g.netdev = n.name;
    }
    g.iface = g.netdev.empty() ? nullptr : interface_named(*h.inv, g.netdev);
    out.push_back(g);
  }
  return out;
}

bool routes_read(const model::HostInventory& h) {
  return !h.ipv4_source.empty() && h.ipv4_source.rfind("not read", 0) != 0;
}

/// Down as the kernel's route lookup sees it: IFF_UP off (admin down), or operstate "down".
bool netdev_down(const model::NetInterface& n) {
  return (n.admin_up && !*n.admin_up) || n.operstate == "down";
}

json gid_evidence(const GidInUse& g) {
  return {{"host", g.host->host},
          {"device", g.dev->name},
          {"port", g.port->port},
          {"gid_index", g.index},
          {"gid", g.gid ? json(g.gid->gid) : json(nullptr)},
          {"netdev", g.netdev},
          {"source", "nccl_log x inventory"}};
}

/// GID_NETDEV_DOWN: the GID NCCL uses belongs to a netdev that is down (typically a VLAN, macvlan or bond
/// upper device of an ACTIVE port). The kernel resolves a RoCE v2 destination through that netdev
/// (drivers/infiniband/core/addr.c: addr4_resolve sets flowi4_oif to the GID attribute's ndev, from
/// ib_resolve_eth_dmac -> rdma_addr_find_l2_eth_by_grh), and ip_route_output_key_hash_rcu returns
/// -ENETUNREACH when that device is not IFF_UP (net/ipv4/route.c): ibv_modify_qp to RTR fails with "Network
/// is unreachable". Fail when the log shows that error, else warn.
void netdev_down_finding(const GidInUse& g, std::vector<Finding>& out) {
  const bool confirmed = !g.host->unreachable_error.empty();
  json ev = gid_evidence(g);
  ev["operstate"] = g.iface->operstate;
  ev["admin_up"] = g.iface->admin_up ? json(*g.iface->admin_up) : json(nullptr);
  if (confirmed) ev["log_error"] = g.host->unreachable_error;
  out.push_back(host_fact_finding(
      confirmed ? Severity::kFail : Severity::kWarn, "GID_NETDEV_DOWN",
      fmt::format("{}: NCCL's GID index {} on {} port {} belongs to {}, which is down ({}{}){}", g.host->host,
                  g.index, g.dev->name, g.port->port, g.netdev,
                  g.iface->admin_up && !*g.iface->admin_up ? "IFF_UP off" : "IFF_UP on",
                  ", operstate " + g.iface->operstate,
                  confirmed ? fmt::format(": the kernel refuses the route, as the log shows ({})",
                                          g.host->unreachable_error)
                            : ""),
      ev,
      fmt::format("bring {} up (ip link set {} up) or point NCCL at a GID of an up netdev "
                  "(NCCL_IB_GID_INDEX: the IPv4 RoCE v2 GID of the port's own netdev)",
                  g.netdev, g.netdev)));
}

/// GID_PEER_NO_ROUTE: no route out of the GID's netdev holds a peer's GID address. The lookup is bound to
/// that netdev (flowi4_oif, as above), so the main table's default route through another interface does not
/// count; when nothing matches, ip_route_output_key_hash_rcu assumes the destination is on link ("Apparently,
/// routing tables are wrong. Assume, that the destination is on link.") and the neighbour lookup on that
/// segment never answers on an L3 (routed-rail) fabric: QP setup or the first work requests time out (the
/// log's "Connection timed out" or completion status 12). Fail when the log shows such an error, else warn.
void no_route_finding(const GidInUse& g, const std::vector<std::pair<std::string, std::string>>& missing,
                      std::vector<Finding>& out) {
  const std::string& log_error =
      g.host->connect_error.empty() ? g.host->unreachable_error : g.host->connect_error;
  const bool confirmed = !log_error.empty();
  std::vector<std::string> peers;
  json peer_ev = json::array();
  for (const auto& [host, addr] : missing) {
    peers.push_back(fmt::format("{} ({})", addr, host));
    peer_ev.push_back({{"host", host}, {"address", addr}});
  }
  json ev = gid_evidence(g);
  ev["routes"] = g.iface->ipv4_routes;
  ev["peers_without_route"] = peer_ev;
  if (confirmed) ev["log_error"] = log_error;
  out.push_back(host_fact_finding(
      confirmed ? Severity::kFail : Severity::kWarn, "GID_PEER_NO_ROUTE",
      fmt::format(
          "{}: no route out of {} (the netdev of NCCL's GID index {} on {} port {}) reaches {}: RoCE v2 "
          "resolves peers through that netdev only{}",
          g.host->host, g.netdev, g.index, g.dev->name, g.port->port, fmt::join(peers, ", "),
          confirmed ? fmt::format("; the log shows the failure: {}", log_error) : ""),
      ev,
      fmt::format("add a route for the peers' rail subnet through {} on {} (ip route add <subnet> via <rail "
                  "gateway> dev {}), as the other hosts of the rail have",
                  g.netdev, g.host->host, g.netdev)));
}

}  // namespace

void route_findings(const std::vector<LogHost>& hosts, std::vector<Finding>& out) {
  std::vector<GidInUse> all;
  for (const auto& h : hosts)
    for (auto& g : gids_in_use(h)) all.push_back(g);
  for (const auto& g : all) {
    if (!g.iface) continue;
    if (netdev_down(*g.iface)) {
      netdev_down_finding(g, out);
      continue;
    }
    if (!routes_read(*g.host->inv)) continue;
    std::vector<std::pair<std::string, std::string>> routes;
    for (const auto& r : g.iface->ipv4_routes) routes.emplace_back(g.netdev, r);
    // A peer host counts as unreachable when no GID address of it has a route out of this netdev: on a
    // rail-only fabric rail i reaches only rail i of the others, which is fine (NCCL pairs rails).
    std::vector<std::pair<std::string, std::string>> missing;
    for (const auto& peer_host : hosts) {
      if (&peer_host == g.host) continue;
      std::vector<std::pair<std::string, std::string>> addrs;
      bool reached = false;
      for (const auto& peer : all) {
        if (peer.host != &peer_host || !peer.gid || peer.gid->ipv4.empty()) continue;
        addrs.emplace_back(peer_host.host, peer.gid->ipv4);
        reached = reached || parse::ipv4_route_of(routes, peer.gid->ipv4).has_value();
      }
      if (!reached) missing.insert(missing.end(), addrs.begin(), addrs.end());
    }
    if (!missing.empty()) no_route_finding(g, missing, out);
  }
}

/// LOC_PROT_ERR_HOST_FACTS: a work completion with IBV_WC_LOC_PROT_ERR (4) in the log, on a host whose
/// GPU-NIC paths have a fact that breaks GPUDirect RDMA: ACS redirect on a bridge between them ("IB error 4
/// is usually due to ACS being enabled and breaking GPU Direct RDMA protocol", NCCL maintainer in
/// NVIDIA/nccl#928) or an IOMMU translating DMA (the NCCL troubleshooting guide's "PCI Access Control
/// Services (ACS)" and IOMMU sections). Fail: the log confirms the failure; the host facts name the bridge or
/// mode to change.
void loc_prot_findings(const std::vector<LogHost>& hosts, std::vector<Finding>& out) {
  for (const auto& h : hosts) {
    if (h.loc_prot_error.empty()) continue;
    std::vector<Finding> facts;
    pcie_path_findings(*h.inv, gpu_rails(*h.inv), facts);
    std::vector<std::string> named;
    json ev_facts = json::array();
    std::string remedy;
    for (const auto& f : facts) {
      if (f.code != "PCIE_ACS_REDIRECT" && f.code != "IOMMU_TRANSLATED") continue;
      named.push_back(f.message);
      ev_facts.push_back({{"code", f.code}, {"evidence", f.evidence}});
      if (remedy.empty()) remedy = f.remedy;
    }
    if (named.empty()) continue;
    out.push_back(host_fact_finding(
        Severity::kFail, "LOC_PROT_ERR_HOST_FACTS",
        fmt::format("{}: the log's local protection error (completion status 4: {}) is what this host's "
                    "GPU-NIC path causes: {}",
                    h.host, h.loc_prot_error, fmt::join(named, "; ")),
        {{"host", h.host},
         {"source", "nccl_log x inventory"},
         {"log_error", h.loc_prot_error},
         {"host_facts", ev_facts}},
        remedy +
            " (to confirm first: NCCL_NET_GDR_LEVEL=0 turns GPUDirect RDMA off and the error should go)"));
  }
}

}  // namespace fabcheck::report::detail
