// NCCL's log beside the nics probe: the bootstrap / NET-Socket interfaces an NCCL log names per
// host, mapped to the measured hosts, and NICS_MGMT_IN_USE when one of them is not a data NIC.
#include "nics_nccl_log.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "fabcheck/core/ifname_filter.hpp"
#include "fabcheck/report/log_host.hpp"

namespace fabcheck::report {

namespace {

using model::NcclIfaceUse;
using model::NcclLogHost;
using model::NicsResult;
using nlohmann::json;

void add_uses(NcclLogHost& h, const char* role, const std::vector<parse::NcclIface>& list) {
  for (const auto& f : list) {
    const bool seen = std::any_of(h.ifaces.begin(), h.ifaces.end(), [&](const NcclIfaceUse& u) {
      return u.role == role && u.name == f.name && u.addr == f.address;
    });
    if (!seen && h.ifaces.size() < 64) h.ifaces.push_back({role, f.name, f.address});
  }
}

}  // namespace

std::vector<model::NcclLogHost> nics_nccl_log_hosts(const parse::NcclLog& log,
                                                    const std::vector<std::string>& hosts) {
  std::vector<NcclLogHost> out;
  for (const auto& p : log.processes) {
    if (p.host.empty()) continue;  // a prefix-less line names no host
    auto it = std::find_if(out.begin(), out.end(), [&](const NcclLogHost& h) { return h.host == p.host; });
    if (it == out.end()) {
      NcclLogHost h;
      h.host = p.host;
      for (std::size_t i = 0; i < hosts.size() && h.host_index < 0; ++i)
        if (same_host_name(p.host, hosts[i])) h.host_index = static_cast<int>(i);
      out.push_back(std::move(h));
      it = out.end() - 1;
    }
    if (!p.network.empty()) it->network = p.network;
    add_uses(*it, "bootstrap", p.bootstrap_ifaces);
    add_uses(*it, "socket", p.socket_ifaces);
  }
  return out;
}

json nics_nccl_log_json(const NicsResult& r) {
  json hosts = json::array();
  for (const auto& h : r.nccl_log_hosts) {
    json uses = json::array();
    for (const auto& u : h.ifaces) uses.push_back({{"role", u.role}, {"iface", u.name}, {"addr", u.addr}});
    hosts.push_back(
        {{"host", h.host},
         {"measured_host",
          h.host_index >= 0 ? json(r.hosts[static_cast<std::size_t>(h.host_index)]) : json(nullptr)},
         {"network", h.network.empty() ? json(nullptr) : json(h.network)},
         {"ifaces", std::move(uses)}});
  }
  return {{"path", r.options.nccl_log}, {"hosts", std::move(hosts)}};
}

std::string render_nccl_log_hosts(const NicsResult& r) {
  if (r.nccl_log_hosts.empty())
    return fmt::format("# nccl log {}: no line names a host (nothing judged)\n", r.options.nccl_log);
  std::string s;
  for (const auto& h : r.nccl_log_hosts) {
    std::string uses;
    for (const auto& u : h.ifaces)
      uses += fmt::format("{}{} {}:{}", uses.empty() ? "" : ", ", u.role, u.name, u.addr);
    s += fmt::format("# nccl log {}: {} ({}){}{}\n", r.options.nccl_log, h.host,
                     h.host_index >= 0 ? "measured host " + r.hosts[static_cast<std::size_t>(h.host_index)]
                                       : std::string("not a measured host: not judged"),
                     h.network.empty() ? "" : ", network " + h.network,
                     uses.empty() ? ": no interface line" : ": " + uses);
  }
  return s;
}

namespace detail {

namespace {

// Why NCCL's use of `u` on measured host `h` is off the data NICs ("" when it is on one).
std::string off_data_reason(const NicsResult& r, int h, const NcclIfaceUse& u) {
  const auto& nics = r.nics[static_cast<std::size_t>(h)];
  auto it = std::find_if(nics.begin(), nics.end(), [&](const model::NicInfo& n) { return n.name == u.name; });
  if (it == nics.end())
    it = std::find_if(nics.begin(), nics.end(), [&](const model::NicInfo& n) { return n.addr == u.addr; });
  if (it != nics.end() && it->data) return {};
  std::vector<std::string> subnets;
  double slowest_data_mbps = -1;
  for (const auto& n : nics)
    if (n.data) {
      if (n.rail >= 0) subnets.push_back(r.rails[static_cast<std::size_t>(n.rail)].subnet);
      if (n.speed_mbps)
        slowest_data_mbps = std::min(slowest_data_mbps < 0 ? 1e18 : slowest_data_mbps, *n.speed_mbps);
    }
  const bool on_rail = std::any_of(subnets.begin(), subnets.end(),
                                   [&](const std::string& s) { return core::ipv4_in_subnet(u.addr, s); });
  std::string why;
  if (it == nics.end()) {
    // Not an interface the probe saw up with IPv4 (lo is never listed): judged by its network alone.
    if (on_rail) return {};
    why = "not a data NIC";
  } else {
    why = "the management NIC, not a data NIC";
    if (it->speed_mbps && slowest_data_mbps > 0 && *it->speed_mbps < slowest_data_mbps)
      why +=
          fmt::format("; {:.0f} Mb/s against the data NICs' {:.0f} Mb/s", *it->speed_mbps, slowest_data_mbps);
  }
  if (!on_rail && !subnets.empty()) {
    std::string joined;
    for (const auto& s : subnets) joined += (joined.empty() ? "" : ", ") + s;
    why += fmt::format("; {} is on another network than the data NICs ({})", u.addr, joined);
  }
  return why;
}

}  // namespace

void add_nccl_log_mgmt(const NicsResult& r, std::vector<Finding>& out) {
  for (const char* role : {"bootstrap", "socket"}) {
    const std::string rl(role);
    json uses = json::array();
    std::vector<std::string> data, where;
    for (const auto& lh : r.nccl_log_hosts) {
      if (lh.host_index < 0 || static_cast<std::size_t>(lh.host_index) >= r.nics.size()) continue;
      // NET/Socket lists are data interfaces only where the Socket network carries the data (NCCL <= 2.4.7
      // prints one for its bootstrap too).
      if (rl == "socket" && !lh.network.empty() && lh.network != "Socket") continue;
      const auto& nics = r.nics[static_cast<std::size_t>(lh.host_index)];
      if (std::none_of(nics.begin(), nics.end(), [](const model::NicInfo& n) { return n.data; })) continue;
      bool flagged = false;
      for (const auto& u : lh.ifaces) {
        if (u.role != rl) continue;
        const std::string why = off_data_reason(r, lh.host_index, u);
        if (why.empty()) continue;
        flagged = true;
        const std::string& host = r.hosts[static_cast<std::size_t>(lh.host_index)];
        where.push_back(fmt::format("{} {}:{} ({})", host, u.name, u.addr, why));
        uses.push_back(
            {{"host", host}, {"log_host", lh.host}, {"iface", u.name}, {"addr", u.addr}, {"why", why}});
      }
      if (flagged)
        for (const auto& n : nics)
          if (n.data && std::find(data.begin(), data.end(), n.name) == data.end()) data.push_back(n.name);
    }
    if (where.empty()) continue;
    std::string data_list;
    for (const auto& d : data) data_list += (data_list.empty() ? "" : ",") + d;
    const json ev = {{"setting", rl == "bootstrap" ? "NCCL bootstrap (log)" : "NCCL NET/Socket (log)"},
                     {"log", r.options.nccl_log},
                     {"uses", uses},
                     {"data_nics", data}};
    // One cause, one finding: an NCCL_SOCKET_IFNAME that already points at the management NIC is what made
    // NCCL use it, so the log's lines join that finding.
    auto env_f = std::find_if(out.begin(), out.end(), [](const Finding& f) {
      return f.code == "NICS_MGMT_IN_USE" && f.evidence.value("setting", "") == "NCCL_SOCKET_IFNAME";
    });
    if (env_f != out.end()) {
      env_f->evidence["nccl_log"].push_back(ev);
      continue;
    }
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "NICS_MGMT_IN_USE";
    f.message = fmt::format("NCCL's {} per {}: {}{}",
                            rl == "bootstrap" ? "bootstrap interface" : "NET/Socket data", r.options.nccl_log,
                            where[0], where.size() > 1 ? fmt::format(" and {} more", where.size() - 1) : "");
    f.evidence = ev;
    f.remedy = fmt::format(
        "use NCCL_SOCKET_IFNAME={} (NCCL picks its bootstrap and socket interfaces by it; the management "
        "network is for the launcher)",
        data_list);
    out.push_back(std::move(f));
  }
}

}  // namespace detail

}  // namespace fabcheck::report
