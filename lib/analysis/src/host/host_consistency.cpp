// Cross-host consistency of interface addresses and Open MPI's TCP interface choice (pcie_findings.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>

#include "fabcheck/parse/mca_params.hpp"
#include "fabcheck/report/transport.hpp"
#include "pcie_findings.hpp"

namespace fabcheck::report::detail {

using model::HostInventory;
using nlohmann::json;

namespace {

std::string address_only(const std::string& cidr) {
  return cidr.substr(0, cidr.find('/'));
}

/// A container or virtual-machine bridge (docker0, virbr0, br-*, cni0, ...), lo aside.
bool is_bridge_iface(const model::NetInterface& n) {
  return n.name != "lo" && is_management_iface(n.name) && n.admin_up.value_or(true) && !n.ipv4.empty();
}

/// The interface Open MPI should be told to use: an RDMA netdev with an address, else the fastest physical
/// interface with one.
std::string data_interface(const HostInventory& h) {
  const model::NetInterface* best = nullptr;
  for (const auto& n : h.net_interfaces) {
    if (n.ipv4.empty() || n.is_virtual || is_management_iface(n.name)) continue;
    if (!n.rdma_device.empty()) return n.name;
    if (!best || n.speed_mbit.value_or(0) > best->speed_mbit.value_or(0)) best = &n;
  }
  return best ? best->name : std::string("<data interface>");
}

/// IPV4_DUPLICATE_ACROSS_HOSTS (warn): one address on two or more hosts. Open MPI's TCP BTL (and NCCL's
/// socket transport) take a peer's address on a subnet they share as reachable, so a peer's 172.17.0.1 is
/// this host's own docker0 and the connection goes to itself (open-mpi/ompi#8257: "it connected to itself";
/// Open MPI FAQ, "Which ones will Open MPI use?": every interface that is up but loopback).
void duplicate_addresses(const model::InventoryResult& r, std::vector<Finding>& out) {
  std::map<std::string, std::map<std::string, std::string>> by_addr;  // address -> host -> iface
  for (const auto& h : r.hosts)
    for (const auto& n : h.net_interfaces)
      for (const auto& a : n.ipv4) by_addr[address_only(a)][h.host] = n.name;
  for (const auto& [addr, hosts] : by_addr) {
    if (hosts.size() < 2 || addr.rfind("169.254.", 0) == 0) continue;
    std::set<std::string> ifaces;
    std::vector<std::string> names;
    for (const auto& [host, iface] : hosts) {
      ifaces.insert(iface);
      names.push_back(host);
    }
    out.push_back(host_fact_finding(
        Severity::kWarn, "IPV4_DUPLICATE_ACROSS_HOSTS",
        fmt::format("{} is on {} of {} hosts ({}): MPI's and NCCL's TCP paths take the peer's copy for their "
                    "own, so connections over it reach the local host",
                    addr, fmt::join(ifaces, "/"), hosts.size(), fmt::join(names, ", ")),
        {{"address", addr}, {"interface", *ifaces.begin()}, {"interfaces", ifaces}, {"hosts", hosts}},
        fmt::format(
            "keep {} out of MPI and NCCL (--mca btl_tcp_if_include / oob_tcp_if_include <data "
            "interface>, NCCL_SOCKET_IFNAME=<data interface>) or give each host's bridge its own subnet",
            fmt::join(ifaces, ","))));
  }
}

/// MPI_TCP_IF_DEFAULT (warn): neither btl_tcp_if_include nor btl_tcp_if_exclude is set (env or MCA file),
/// the TCP BTL is not excluded, and a container/VM bridge is up with an address: Open MPI's default
/// exclude list is only loopback (btl_tcp_if_exclude "127.0.0.1/8,sppp"; Open MPI FAQ "Tuning the run-time
/// characteristics of MPI TCP communications", §5 and §7), so the TCP BTL uses docker0/virbr0 too
/// (open-mpi/ompi#6377, "TCP BTL fails in the presence of virbr0/docker0 interfaces").
void mpi_tcp_defaults(const model::InventoryResult& r, std::vector<Finding>& out) {
  json per_host = json::object();
  std::vector<std::string> parts;
  std::string data_if;
  for (const auto& h : r.hosts) {
    const auto& eff = h.mpi_config.effective;
    if (eff.count("btl_tcp_if_include") || eff.count("btl_tcp_if_exclude")) continue;
    if (auto btl = eff.find("btl"); btl != eff.end() && !parse::mca_excluded(btl->second, {"tcp"}).empty())
      continue;
    std::vector<std::string> bridges;
    for (const auto& n : h.net_interfaces)
      if (is_bridge_iface(n)) bridges.push_back(fmt::format("{} {}", n.name, fmt::join(n.ipv4, ",")));
    if (bridges.empty()) continue;
    per_host[h.host] = bridges;
    parts.push_back(fmt::format("{}: {}", h.host, fmt::join(bridges, "; ")));
    if (data_if.empty()) data_if = data_interface(h);
  }
  if (parts.empty()) return;
  json evidence = {{"hosts", per_host}, {"default_btl_tcp_if_exclude", "127.0.0.1/8,sppp"}};
  if (per_host.size() == 1) evidence["host"] = per_host.begin().key();
  out.push_back(host_fact_finding(
      Severity::kWarn, "MPI_TCP_IF_DEFAULT",
      fmt::format(
          "btl_tcp_if_include/btl_tcp_if_exclude are unset, so Open MPI's TCP transport would also use "
          "the container/VM bridges ({})",
          fmt::join(parts, " | ")),
      std::move(evidence),
      fmt::format("run with --mca btl_tcp_if_include {0} --mca oob_tcp_if_include {0} (or put "
                  "btl_tcp_if_include = {0} in openmpi-mca-params.conf)",
                  data_if)));
}

}  // namespace

void host_consistency_findings(const model::InventoryResult& r, std::vector<Finding>& out) {
  duplicate_addresses(r, out);
  mpi_tcp_defaults(r, out);
}

}  // namespace fabcheck::report::detail
