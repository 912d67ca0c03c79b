// The GID index NCCL's log shows in effect, judged on each host's GID table (the rules'
// sources are cited in report/log_host.hpp and gid_rules.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "fabcheck/report/log_host.hpp"
#include "gid_rules.hpp"
#include "log_host_internal.hpp"

namespace fabcheck::report::detail {

namespace {

using nlohmann::json;

// What the GID index in effect points at on one RoCE port.
struct GidPortCheck : RocePort {
  explicit GidPortCheck(const RocePort& p) : RocePort(p) {}
  std::string verdict;            // ok | empty | not_rocev2 | link_local | not_ipv4
  std::optional<int> ipv4_index;  // the port's IPv4 RoCE v2 GID
  bool judged_by_inventory = false;
};

const model::RdmaPort* port_of(const model::RdmaDevice& d, int port) {
  for (const auto& p : d.ports)
    if (p.port == port) return &p;
  return nullptr;
}

std::vector<GidPortCheck> checks_of(const std::vector<LogHost>& hosts) {
  std::vector<GidPortCheck> out;
  for (const auto& h : hosts) {
    for (const auto& rp : roce_ports(h)) {
      GidPortCheck c(rp);
      c.verdict = judge_gid(*c.port, c.index);
      c.ipv4_index = ipv4_rocev2_index(*c.port);
      const auto* g = gid_at(*c.port, c.index);
      if (c.verdict == "ok" && g && g->ipv4.empty() && c.ipv4_index) c.verdict = "not_ipv4";
      auto inv_env = h.inv->env.find("NCCL_IB_GID_INDEX");
      c.judged_by_inventory = c.effect.from_env && inv_env != h.inv->env.end() &&
                              inv_env->second == h.env.at("NCCL_IB_GID_INDEX");
      out.push_back(c);
    }
  }
  return out;
}

std::string slot_text(const GidPortCheck& c) {
  const auto* g = gid_at(*c.port, c.index);
  if (!g) return "an empty slot";
  if (c.verdict == "not_rocev2")
    return fmt::format("a {} GID ({}{})", g->type.empty() ? "typeless" : g->type, g->gid,
                       g->link_local ? ", link-local" : "");
  if (c.verdict == "link_local") return fmt::format("a link-local RoCE v2 GID ({})", g->gid);
  return fmt::format("an IPv6 RoCE v2 GID ({}) while the port's IPv4 RoCE v2 GID is index {}", g->gid,
                     *c.ipv4_index);
}

// The version-correct remedy for the whole job: the index right on every port checked, else per-host
// configuration; "leave it unset" only where NCCL selects automatically (>= 2.21) and would pick right.
std::string gid_remedy(const std::vector<GidPortCheck>& checks) {
  std::set<std::string> per_host;
  std::set<int> common;
  bool first = true, auto_release = true, auto_right = true, any_ipv4 = false;
  for (const auto& c : checks) {
    std::set<int> mine;
    if (c.ipv4_index) mine.insert(*c.ipv4_index), any_ipv4 = true;
    if (first)
      common = mine;
    else {
      std::set<int> both;
      for (int i : common)
        if (mine.count(i)) both.insert(i);
      common = both;
    }
    first = false;
    per_host.insert(fmt::format("{} {}:{} {}", c.host->host, c.dev->name, c.port->port,
                                c.ipv4_index ? std::to_string(*c.ipv4_index) : "none"));
    const bool automatic = c.effect.automatic || c.host->version_code >= kNcclAutoGidVersion ||
                           c.host->version_min >= kNcclAutoGidVersion;
    if (!automatic) auto_release = false;
    const int picked = detail::nccl_auto_gid_index(*c.port, c.host->env);
    if (!c.ipv4_index || picked != *c.ipv4_index) auto_right = false;
  }
  if (!any_ipv4)
    return "give the RoCE netdev an IPv4 address so that an IPv4 RoCE v2 GID appears (or point NCCL at an "
           "IPv6 "
           "RoCE v2 GID with NCCL_IB_ADDR_FAMILY=AF_INET6 on NCCL >= 2.21)";
  const bool env_set =
      std::any_of(checks.begin(), checks.end(), [](const auto& c) { return c.effect.from_env; });
  if (auto_release && auto_right && env_set)
    return fmt::format(
        "leave NCCL_IB_GID_INDEX unset: this NCCL (>= 2.21) then selects the IPv4 RoCE v2 GID on each host "
        "itself ({})",
        fmt::join(per_host, "; "));
  if (!common.empty())
    return fmt::format("set NCCL_IB_GID_INDEX={} (the IPv4 RoCE v2 GID on every host and port checked)",
                       *common.begin());
  return fmt::format(
      "set NCCL_IB_GID_INDEX per host (the IPv4 RoCE v2 GID: {}) in each host's /etc/nccl.conf or launcher "
      "environment{}",
      fmt::join(per_host, "; "),
      auto_release ? ", or leave it unset (this NCCL >= 2.21 selects per host)"
                   : ", or use NCCL >= 2.21 and leave it unset (it selects per host)");
}

json check_evidence(const GidPortCheck& c) {
  const auto* g = gid_at(*c.port, c.index);
  json ev = {{"host", c.host->host},
             {"device", c.dev->name},
             {"port", c.port->port},
             {"source", "nccl_log x inventory"},
             {"gid_index", c.index},
             {"gid_index_source", c.effect.source},
             {"nccl_version", c.host->version.empty() ? json(nullptr) : json(c.host->version)},
             {"slot", g ? json({{"gid", g->gid}, {"type", g->type}, {"netdev", g->netdev}}) : json("empty")},
             {"ipv4_rocev2_gid_index", c.ipv4_index ? json(*c.ipv4_index) : json(nullptr)}};
  if (!c.host->connect_error.empty()) ev["log_error"] = c.host->connect_error;
  return ev;
}

Finding port_finding(const GidPortCheck& c, const std::string& remedy) {
  Finding f;
  f.code = c.verdict == "link_local" ? "GID_LINK_LOCAL"
           : c.verdict == "not_ipv4" ? "GID_INDEX_NOT_IPV4"
                                     : "GID_INDEX_NOT_ROCEV2";
  f.severity = c.verdict == "empty" || !c.host->connect_error.empty() ? Severity::kFail : Severity::kWarn;
  const std::string how = c.effect.automatic ? "selects" : "uses";
  f.message = fmt::format("{}: NCCL {} GID index {} on {} port {} ({}): {}{}", c.host->host, how, c.index,
                          c.dev->name, c.port->port, c.effect.source, slot_text(c),
                          c.host->connect_error.empty()
                              ? ""
                              : fmt::format("; the log shows the failure: {}", c.host->connect_error));
  f.evidence = check_evidence(c);
  f.remedy = remedy;
  return f;
}

// One job-wide NCCL_IB_GID_INDEX that is right on some hosts and wrong on others.
std::optional<Finding> job_wide_finding(const std::vector<GidPortCheck>& checks, const std::string& remedy) {
  std::set<std::string> values, good, bad, hosts;
  bool confirmed = false, inventory_saw = true;
  json ports = json::array();
  for (const auto& c : checks) {
    if (!c.effect.from_env || !c.effect.index) return std::nullopt;
    values.insert(std::to_string(c.index));
    hosts.insert(c.host->host);
    if (c.verdict == "ok") continue;
    // inventory.cpp judges the same index from the launcher's env (it takes an IPv6 RoCE v2 GID as right)
    inventory_saw = inventory_saw && c.judged_by_inventory && c.verdict != "not_ipv4";
    bad.insert(c.host->host);
    confirmed = confirmed || c.verdict == "empty" || !c.host->connect_error.empty();
    ports.push_back(check_evidence(c));
  }
  for (const auto& h : hosts)
    if (!bad.count(h)) good.insert(h);
  if (values.size() != 1 || good.empty() || bad.empty()) return std::nullopt;
  if (inventory_saw && !confirmed) return Finding{};  // the inventory's GID_TABLES_DIFFER says it
  Finding f;
  f.code = "GID_TABLES_DIFFER";
  f.severity = confirmed ? Severity::kFail : Severity::kWarn;
  f.message = fmt::format(
      "NCCL_IB_GID_INDEX={} (set job-wide, as NCCL's log shows) is the IPv4 RoCE v2 GID on {} but not on {}: "
      "the "
      "hosts' GID tables differ",
      *values.begin(), fmt::join(good, ","), fmt::join(bad, ","));
  f.evidence = {{"source", "nccl_log x inventory"},
                {"NCCL_IB_GID_INDEX", *values.begin()},
                {"hosts_ok", good},
                {"hosts_wrong", bad},
                {"ports", ports}};
  f.remedy = remedy;
  return f;
}

}  // namespace

std::vector<RocePort> roce_ports(const LogHost& h) {
  std::vector<RocePort> out;
  const auto effect = gid_index_in_effect(h.env, h.version_code, h.version_min, h.version_max);
  if (!effect.index && !effect.automatic) return out;
  const auto hca = parse_iface_filter(h.env.count("NCCL_IB_HCA") ? h.env.at("NCCL_IB_HCA") : "");
  for (const auto& d : h.inv->rdma_devices)
    for (const auto& p : d.ports) {
      if (p.link_layer != "Ethernet") continue;
      const bool listed = h.ib_devices.empty() ? p.active() && iface_filter_selects(hca, d.name, p.port)
                                               : std::any_of(h.ib_devices.begin(), h.ib_devices.end(),
                                                             [&](const parse::NcclNetDevice& n) {
                                                               return n.name == d.name && n.port == p.port;
                                                             });
      if (!listed) continue;
      const auto* port = port_of(d, p.port);
      out.push_back(
          {&h, &d, port, effect, effect.index ? *effect.index : detail::nccl_auto_gid_index(*port, h.env)});
    }
  return out;
}

void gid_in_effect_findings(const std::vector<LogHost>& hosts, std::vector<Finding>& out) {
  const auto checks = checks_of(hosts);
  if (checks.empty()) return;
  if (std::all_of(checks.begin(), checks.end(), [](const auto& c) { return c.verdict == "ok"; })) return;
  const std::string remedy = gid_remedy(checks);
  if (auto f = job_wide_finding(checks, remedy)) {
    if (!f->code.empty()) out.push_back(std::move(*f));
    return;
  }
  for (const auto& c : checks) {
    if (c.verdict == "ok") continue;
    Finding f = port_finding(c, remedy);
    // inventory.cpp gid_findings said it already (same index, same table), unless this one is confirmed
    if (c.judged_by_inventory && c.verdict != "not_ipv4" && f.severity != Severity::kFail) continue;
    out.push_back(std::move(f));
  }
}

}  // namespace fabcheck::report::detail
