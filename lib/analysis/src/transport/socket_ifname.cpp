// SOCKET_IFNAME_MGMT, from the environment and NCCL's logs and from Open MPI's MCA files (see
// socket_ifname.hpp).
#include "socket_ifname.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "fabcheck/core/ascii.hpp"
#include "transport_internal.hpp"

namespace fabcheck::report {

bool is_management_iface(const std::string& iface) {
  std::string l = detail::lower(iface);
  if (l == "lo") return true;
  for (const char* p : {"docker", "virbr", "br-", "veth", "cni", "flannel", "cali", "tun", "tap", "mgmt",
                        "bmc", "idrac", "ipmi", "vnet"})
    if (detail::starts(l, p)) return true;
  return false;
}

}  // namespace fabcheck::report

namespace fabcheck::report::detail {

namespace {

using nlohmann::json;

// The finding, whichever reader found the interface: the code and severity live here once.
Finding ifname_finding(std::string message, json evidence, std::string remedy) {
  Finding f;
  f.severity = Severity::kWarn;
  f.code = "SOCKET_IFNAME_MGMT";
  f.message = std::move(message);
  f.evidence = std::move(evidence);
  f.remedy = std::move(remedy);
  return f;
}

// NCCL_SOCKET_IFNAME's syntax (NCCL's environment-variable documentation): "^a,b" excludes (names nothing
// here), "=a" matches exactly; else a comma list of prefixes.
std::vector<std::string> split_ifnames(std::string v) {
  std::vector<std::string> out;
  if (!v.empty() && v[0] == '^') return out;  // exclusion list
  if (!v.empty() && v[0] == '=') v.erase(0, 1);
  std::size_t start = 0;
  while (start <= v.size()) {
    std::size_t c = v.find(',', start);
    std::string n = v.substr(start, c == std::string::npos ? std::string::npos : c - start);
    if (!n.empty()) out.push_back(n);
    if (c == std::string::npos) break;
    start = c + 1;
  }
  return out;
}

}  // namespace

std::optional<Finding> socket_ifname_from_env(const std::map<std::string, std::string>& env,
                                              const std::vector<const parse::NcclProcessLog*>& socket_procs) {
  json ev = json::array();
  for (const char* key : {"NCCL_SOCKET_IFNAME", "OMPI_MCA_btl_tcp_if_include", "OMPI_MCA_oob_tcp_if_include",
                          "UCX_NET_DEVICES"}) {
    std::string v = env_value(env, key);
    for (const auto& n : split_ifnames(v))
      if (is_management_iface(n.substr(0, n.find(':'))))
        ev.push_back(fmt::format("{}={} names {}", key, v, n));
  }
  for (const parse::NcclProcessLog* p : socket_procs) {
    for (const auto& f : p->socket_ifaces)
      if (is_management_iface(f.name)) {
        std::string s = fmt::format("{}: NET/Socket uses {}:{}", host_label(p->host), f.name, f.address);
        if (std::find(ev.begin(), ev.end(), s) == ev.end() && ev.size() < 16) ev.push_back(s);
      }
  }
  if (ev.empty()) return std::nullopt;
  return ifname_finding("NCCL or MPI is pointed at a loopback, container-bridge or management interface",
                        {{"lines", ev}},
                        "Set NCCL_SOCKET_IFNAME (and btl_tcp_if_include) to the data-network interface, e.g. "
                        "ib0 or the RoCE netdev, or exclude with NCCL_SOCKET_IFNAME=^docker0,lo");
}

std::vector<Finding> socket_ifname_from_mca(const model::HostInventory& h) {
  std::vector<Finding> out;
  const auto& m = h.mpi_config;
  auto it = m.effective.find("btl_tcp_if_include");
  if (it == m.effective.end()) return out;
  double fastest_mbit = 0;
  for (const auto& n : h.net_interfaces)
    if (n.speed_mbit && !n.is_virtual)
      fastest_mbit = std::max(fastest_mbit, static_cast<double>(*n.speed_mbit));
  for (const auto& name : core::split_list(it->second)) {
    if (name.find('/') != std::string::npos) continue;  // a CIDR subnet, not an interface name
    const model::NetInterface* ni = nullptr;
    for (const auto& n : h.net_interfaces)
      if (n.name == name) ni = &n;
    // From the environment, a management/container name is already reported by the transport analysis
    // (socket_ifname_from_env reads OMPI_MCA_btl_tcp_if_include); here: the MCA files, and slow interfaces.
    const bool from_env =
        m.origin.count("btl_tcp_if_include") && m.origin.at("btl_tcp_if_include").rfind("env ", 0) == 0;
    if (from_env && is_management_iface(name)) continue;
    std::string why;
    if (is_management_iface(name) || (ni && ni->is_virtual && ni->rdma_device.empty()))
      why = "a loopback/container/virtual-bridge interface";
    else if (ni && ni->speed_mbit && fastest_mbit > 0 &&
             static_cast<double>(*ni->speed_mbit) < fastest_mbit && ni->rdma_device.empty())
      why = fmt::format("a {} Mb/s interface while the host has {} Mb/s ones", *ni->speed_mbit, fastest_mbit);
    if (why.empty()) continue;
    out.push_back(ifname_finding(
        fmt::format("{}: Open MPI's btl_tcp_if_include={} points at {} ({})", h.host, it->second, name, why),
        {{"host", h.host},
         {"source", "mpi_config"},
         {"btl_tcp_if_include", it->second},
         {"origin", m.origin.count("btl_tcp_if_include") ? m.origin.at("btl_tcp_if_include") : ""},
         {"iface", name},
         {"speed_mbit", ni && ni->speed_mbit ? json(*ni->speed_mbit) : json(nullptr)}},
        "point btl_tcp_if_include at the data-network interface (or its subnet), never a management/docker "
        "one"));
  }
  return out;
}

}  // namespace fabcheck::report::detail
