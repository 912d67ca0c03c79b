// Socket-path checks of NCCL logs (see transport_checks.hpp).
#include "transport_checks.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <string>

#include "transport_internal.hpp"

namespace fabcheck::report::detail {

namespace {

bool is_socket_net(const std::string& net) {
  return net.find("Socket") != std::string::npos || net.find("socket") != std::string::npos;
}

// Dotted-quad prefix test: "172.17.0.2" in 172.17.0.0/16 → prefix "172.17.".
bool in_prefix(const std::string& addr, const char* prefix) {
  return addr.rfind(prefix, 0) == 0;
}

std::string unroutable_reason(const std::string& addr) {
  if (in_prefix(addr, "172.17.")) return "Docker's default bridge (172.17.0.0/16)";
  if (in_prefix(addr, "192.168.122.")) return "libvirt's default network (192.168.122.0/24)";
  if (in_prefix(addr, "169.254.")) return "IPv4 link-local (169.254.0.0/16)";
  if (in_prefix(addr, "127.")) return "loopback (127.0.0.0/8)";
  return {};
}

}  // namespace

std::optional<Finding> socket_single_nic(const std::vector<const parse::NcclProcessLog*>& procs) {
  nlohmann::json hosts = nlohmann::json::array();
  std::set<std::string> seen;
  std::string first_text;
  for (const auto* p : procs) {
    if (p->socket_ifaces.size() < 2) continue;
    std::set<int> devs;
    std::size_t n = 0;
    for (const auto& c : p->connections)
      if (c.kind == parse::NcclTransportKind::kNet && is_socket_net(c.net)) {
        devs.insert(c.net_dev);
        ++n;
      }
    if (n == 0 || devs.size() != 1 || *devs.begin() < 0) continue;
    const int dev = *devs.begin();
    std::string host = host_label(p->host);
    if (!seen.insert(host).second) continue;
    std::string used = static_cast<std::size_t>(dev) < p->socket_ifaces.size()
                           ? p->socket_ifaces[static_cast<std::size_t>(dev)].name
                           : fmt::format("NET/Socket/{}", dev);
    std::vector<std::string> names;
    for (const auto& f : p->socket_ifaces) names.push_back(f.name);
    nlohmann::json h = {
        {"host", host}, {"interfaces", names}, {"used", used}, {"net_dev", dev}, {"connections", n}};
    auto bw = p->topo_net_gbps.find(dev);
    if (bw != p->topo_net_gbps.end()) {
      h["ceiling_gbps"] = bw->second;
      h["ceiling_gbit"] = bw->second * 8.0;
    }
    if (first_text.empty())
      first_text =
          fmt::format("{} lists {} interfaces ({}) but all {} connection line(s) go via NET/Socket/{} ({})",
                      host, names.size(), fmt::join(names, ", "), n, dev, used) +
          (bw != p->topo_net_gbps.end()
               ? fmt::format(": capped at {:.2f} GB/s ({:.0f} Gbit/s), NCCL's bandwidth of that NIC",
                             bw->second, bw->second * 8.0)
               : ": capped at that one NIC's line rate (`ethtool " + used + "` on the host)");
    hosts.push_back(std::move(h));
  }
  if (hosts.empty()) return std::nullopt;
  Finding f;
  f.severity = Severity::kWarn;
  f.code = "SOCKET_SINGLE_NIC";
  f.message = "NCCL's socket transport uses one of several interfaces: " + first_text;
  f.evidence = {{"hosts", hosts}};
  if (hosts.size() == 1) f.evidence["host"] = hosts[0]["host"];
  f.remedy =
      "Make RDMA work if the hosts have it (the socket path is the fallback); otherwise point "
      "NCCL_SOCKET_IFNAME at the fastest data interface or bond the NICs, and raise NCCL_NSOCKS_PERTHREAD / "
      "NCCL_SOCKET_NTHREADS for that one NIC";
  return f;
}

std::optional<Finding> bootstrap_addr_not_routable(const std::vector<const parse::NcclProcessLog*>& procs,
                                                   std::optional<bool> inter_node) {
  // address → hosts that use it (bootstrap, NET/Socket, and the OOB interface of NET/IB).
  std::map<std::string, std::set<std::string>> by_addr;
  std::map<std::string, std::string> iface_of;
  std::set<std::string> hosts;
  for (const auto* p : procs) {
    if (p->host.empty()) continue;
    hosts.insert(p->host);
    for (const auto* list : {&p->bootstrap_ifaces, &p->socket_ifaces, &p->oob_ifaces})
      for (const auto& f : *list) {
        if (f.address.empty()) continue;
        by_addr[f.address].insert(p->host);
        iface_of.emplace(f.address, f.name);
      }
  }
  if (hosts.size() < 2 && inter_node != true) return std::nullopt;
  nlohmann::json lines = nlohmann::json::array();
  std::string first;
  for (const auto& [addr, who] : by_addr) {
    std::string why = unroutable_reason(addr);
    if (who.size() >= 2)
      why = fmt::format("the same address on {} hosts{}", who.size(), why.empty() ? "" : " — " + why);
    if (why.empty()) continue;
    std::string text = fmt::format("{}:{} on {}: {}", iface_of[addr], addr, fmt::join(who, ", "), why);
    if (first.empty()) first = text;
    if (lines.size() < 16) lines.push_back(text);
  }
  if (lines.empty()) return std::nullopt;
  Finding f;
  f.severity = Severity::kWarn;
  f.code = "BOOTSTRAP_ADDR_NOT_ROUTABLE";
  f.message = "NCCL's bootstrap/socket address cannot route between the hosts: " + first;
  f.evidence = {{"lines", lines}};
  f.remedy =
      "Give each host its own routable address for NCCL: set NCCL_SOCKET_IFNAME to the data/cluster "
      "interface "
      "(not docker0/virbr0/link-local); in containers use host networking or a CNI network that routes "
      "between hosts";
  return f;
}

}  // namespace fabcheck::report::detail
