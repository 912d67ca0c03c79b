// NCCL's log x the hosts it ran on: host matching, the per-host facts of the log, the
// GID index in effect and NCCL's interface-list syntax. The rules: log_host_gid.cpp, log_host_select.cpp.
#include "fabcheck/report/log_host.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "gid_rules.hpp"
#include "log_host_internal.hpp"

namespace fabcheck::report {

bool same_host_name(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return false;
  return a == b || a.substr(0, a.find('.')) == b.substr(0, b.find('.'));
}

namespace {

const model::HostInventory* inventory_of_host(const std::string& host, const model::InventoryResult& inv) {
  if (inv.hosts.size() == 1 && inv.hosts[0].host.empty()) return &inv.hosts[0];
  for (const auto& h : inv.hosts)
    if (h.host == host) return &h;
  for (const auto& h : inv.hosts)
    if (same_host_name(h.host, host)) return &h;
  return nullptr;
}

// A prefix-less process (host "") belongs to the only inventory host, if there is one.
const model::HostInventory* inventory_of_process(const parse::NcclProcessLog& p,
                                                 const model::InventoryResult& inv) {
  if (p.host.empty()) return inv.hosts.size() == 1 ? &inv.hosts[0] : nullptr;
  return inventory_of_host(p.host, inv);
}

// An IB connection error that a wrong GID explains: QP setup refused (ibv_modify_qp), or work requests that
// time out at once (completion status 12, RETRY_EXC_ERR; maintainer in NVIDIA/nccl#426).
bool gid_explains(const parse::NcclIssue& is) {
  if (is.kind == parse::NcclIssueKind::kIbvCall) return is.ibv_function == "ibv_modify_qp";
  return is.kind == parse::NcclIssueKind::kCompletion && is.status == 12;
}

void add_process(detail::LogHost& h, const parse::NcclProcessLog& p, const parse::NcclLog& log) {
  if (h.version.empty() && !p.version.empty()) {
    h.version = p.version;
    h.version_code = parse::nccl_version_code(p.version);
  }
  if (h.version.empty() && log.bare_versions.size() == 1) {
    h.version = log.bare_versions[0];
    h.version_code = parse::nccl_version_code(h.version);
  }
  if (p.version_min) h.version_min = std::max(h.version_min, p.version_min);
  if (p.version_max) h.version_max = h.version_max ? std::min(h.version_max, p.version_max) : p.version_max;
  for (const auto& [k, v] : p.env) h.env[k] = v;
  if (h.ib_devices.empty()) h.ib_devices = p.ib_devices;
  h.ib_no_device = h.ib_no_device || p.ib_no_device || p.ib_using_empty;
  h.used_sockets = h.used_sockets || p.network == "Socket";
  if (h.connect_error.empty())
    for (const auto& is : p.issues)
      if (gid_explains(is)) {
        h.connect_error = is.message;
        break;
      }
  for (const auto& is : p.issues) {
    if (h.unreachable_error.empty() && is.kind == parse::NcclIssueKind::kIbvCall &&
        is.error_text.find("unreachable") != std::string::npos)
      h.unreachable_error = is.message;
    if (h.loc_prot_error.empty() && is.kind == parse::NcclIssueKind::kCompletion && is.status == 4)
      h.loc_prot_error = is.message;
  }
}

}  // namespace

namespace detail {

std::string nccl_version_text(parse::NcclVersionCode v) {
  return fmt::format("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100);
}

std::vector<LogHost> match_log_hosts(const std::vector<parse::NcclLog>& logs,
                                     const model::InventoryResult& inventory) {
  std::vector<LogHost> out;
  for (const auto& log : logs)
    for (const auto& p : log.processes) {
      const model::HostInventory* inv = inventory_of_process(p, inventory);
      if (!inv) continue;
      const std::string name = p.host.empty() ? inv->host : p.host;
      auto it = std::find_if(out.begin(), out.end(), [&](const LogHost& h) { return h.inv == inv; });
      if (it == out.end()) {
        LogHost h;
        h.host = name;
        h.inv = inv;
        out.push_back(std::move(h));
        it = out.end() - 1;
        for (const auto& [k, v] : log.command_env) it->env[k] = v;
      }
      add_process(*it, p, log);
    }
  return out;
}

}  // namespace detail

GidIndexInEffect gid_index_in_effect(const std::map<std::string, std::string>& env,
                                     parse::NcclVersionCode version, parse::NcclVersionCode version_min,
                                     parse::NcclVersionCode version_max) {
  GidIndexInEffect g;
  // Which side of 2.21 the log's NCCL is on: its version line, else the bounds its message formats give.
  std::optional<bool> automatic_release;
  if (version)
    automatic_release = version >= kNcclAutoGidVersion;
  else if (version_min >= kNcclAutoGidVersion)
    automatic_release = true;
  else if (version_max && version_max < kNcclAutoGidVersion)
    automatic_release = false;
  const std::string nccl = version ? "NCCL " + detail::nccl_version_text(version) : std::string("NCCL");
  if (auto it = env.find("NCCL_IB_GID_INDEX"); it != env.end() && !it->second.empty()) {
    g.from_env = true;
    const long long v = std::strtoll(it->second.c_str(), nullptr, 0);  // as src/misc/param.cc reads it
    if (v < 0 && automatic_release.value_or(false)) {
      g.automatic = true;
      g.source = fmt::format("NCCL_IB_GID_INDEX={} (negative: {} selects automatically)", it->second, nccl);
      return g;
    }
    g.index = static_cast<int>(v);
    g.source = fmt::format("NCCL_IB_GID_INDEX set by environment to {}", it->second);
    return g;
  }
  if (!automatic_release) {
    g.source =
        "NCCL_IB_GID_INDEX unset and the NCCL version unknown (index 0 up to 2.20, automatic from 2.21)";
    return g;
  }
  if (*automatic_release) {
    g.automatic = true;
    g.source = fmt::format(
        "NCCL_IB_GID_INDEX unset: {} selects the GID automatically (from 2.21: src/transport/net_ib.cc "
        "ncclIbGetGidIndex)",
        nccl);
    return g;
  }
  g.index = 0;
  g.source = fmt::format(
      "NCCL_IB_GID_INDEX unset: {} uses its default index 0 (up to 2.20: src/transport/net_ib.cc "
      "NCCL_PARAM(IbGidIndex, \"IB_GID_INDEX\", 0))",
      nccl);
  return g;
}

int nccl_auto_gid_index(const model::RdmaPort& port, const std::map<std::string, std::string>& env) {
  return detail::nccl_auto_gid_index(port, env);
}

IfaceFilter parse_iface_filter(std::string_view value) {
  IfaceFilter f;
  if (!value.empty() && value.front() == '^') {
    f.exclude = true;
    value.remove_prefix(1);
  }
  if (!value.empty() && value.front() == '=') {
    f.exact = true;
    value.remove_prefix(1);
  }
  std::size_t start = 0;
  while (start <= value.size()) {
    std::size_t comma = value.find(',', start);
    if (comma == std::string_view::npos) comma = value.size();
    std::string_view item = value.substr(start, comma - start);
    IfaceFilter::Entry e;
    const std::size_t colon = item.find(':');
    e.prefix = std::string(item.substr(0, colon));
    if (colon != std::string_view::npos)
      e.port = static_cast<int>(std::strtol(std::string(item.substr(colon + 1)).c_str(), nullptr, 10));
    if (!e.prefix.empty()) f.entries.push_back(std::move(e));  // parseStringList skips empty names
    start = comma + 1;
  }
  return f;
}

bool iface_filter_selects(const IfaceFilter& f, const std::string& name, int port) {
  if (f.entries.empty()) return true;  // matchIfList: no list, no restriction (and `^` of nothing keeps all)
  bool hit = false;
  for (const auto& e : f.entries) {
    const bool name_ok = f.exact ? name == e.prefix : name.compare(0, e.prefix.size(), e.prefix) == 0;
    const bool port_ok = e.port == -1 || port == -1 || e.port == port;
    if (name_ok && port_ok) hit = true;
  }
  return hit != f.exclude;
}

std::vector<std::string> log_host_names(const std::vector<parse::NcclLog>& logs) {
  std::set<std::string> names;
  for (const auto& log : logs)
    for (const auto& p : log.processes)
      if (!p.host.empty()) names.insert(p.host);
  return {names.begin(), names.end()};
}

std::vector<Finding> log_host_findings(const std::vector<parse::NcclLog>& logs,
                                       const model::InventoryResult& inventory) {
  std::vector<Finding> out;
  if (logs.empty() || inventory.hosts.empty()) return out;
  const auto hosts = detail::match_log_hosts(logs, inventory);
  if (hosts.empty()) return out;
  detail::gid_in_effect_findings(hosts, out);
  detail::selection_findings(hosts, out);
  detail::route_findings(hosts, out);
  detail::loc_prot_findings(hosts, out);
  return out;
}

}  // namespace fabcheck::report
