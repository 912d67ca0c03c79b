// NCCL_IB_HCA and NCCL_SOCKET_IFNAME as NCCL's log shows them, against each host's RDMA devices and
// interfaces (NCCL's list syntax: report/log_host.hpp IfaceFilter).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fabcheck/report/log_host.hpp"
#include "fabcheck/report/transport.hpp"
#include "log_host_internal.hpp"

namespace fabcheck::report::detail {

namespace {

using nlohmann::json;

std::string env_of(const LogHost& h, const char* key) {
  auto it = h.env.find(key);
  return it == h.env.end() ? std::string() : it->second;
}

// NCCL_IB_HCA selects no device/port of a host that has RDMA devices. NCCL then lists none (`NET/IB : No
// device found.`, v2.23.4-1 src/transport/net_ib.cc ncclIbInit skips every unmatched port) and falls back to
// sockets, or fails where NCCL_NET=IB insists.
void hca_finding(const LogHost& h, std::vector<Finding>& out) {
  const std::string value = env_of(h, "NCCL_IB_HCA");
  if (value.empty() || h.inv->rdma_devices.empty()) return;
  const IfaceFilter f = parse_iface_filter(value);
  std::vector<std::string> present;
  bool any = false;
  for (const auto& d : h.inv->rdma_devices)
    for (const auto& p : d.ports) {
      present.push_back(fmt::format("{}:{}{}", d.name, p.port, p.active() ? "" : " (" + p.state + ")"));
      any = any || iface_filter_selects(f, d.name, p.port);
    }
  if (any) return;
  const bool confirmed = h.ib_no_device || h.used_sockets;
  Finding fd;
  fd.code = "NCCL_IB_HCA_NO_MATCH";
  fd.severity = confirmed ? Severity::kFail : Severity::kWarn;
  fd.message = fmt::format("{}: NCCL_IB_HCA={} {} RDMA device here (present: {}){}", h.host, value,
                           f.exclude ? "excludes every" : "matches no", fmt::join(present, ", "),
                           confirmed ? "; NCCL found no IB device and used sockets" : "");
  fd.evidence = {
      {"host", h.host},     {"source", "nccl_log x inventory"}, {"NCCL_IB_HCA", value},
      {"devices", present}, {"nccl_no_device", h.ib_no_device}, {"nccl_used_sockets", h.used_sockets}};
  std::vector<std::string> names;
  for (const auto& d : h.inv->rdma_devices)
    for (const auto& p : d.ports)
      if (p.active()) names.push_back(fmt::format("{}:{}", d.name, p.port));
  fd.remedy = fmt::format(
      "set NCCL_IB_HCA on {} to devices it has ({}; a leading = matches names exactly, ^ excludes) or unset "
      "it",
      h.host, names.empty() ? "none ACTIVE" : fmt::format("{}", fmt::join(names, ",")));
  out.push_back(std::move(fd));
}

// NCCL_SOCKET_IFNAME selects no interface of the host: NCCL's findInterfaces finds none (a value of one
// character is ignored: v2.23.4-1 src/misc/socket.cc:330 `strlen(env) > 1`) and the bootstrap fails ("no
// socket interface found"; NVIDIA/nccl#1837).
void ifname_finding(const LogHost& h, std::vector<Finding>& out) {
  const std::string value = env_of(h, "NCCL_SOCKET_IFNAME");
  if (value.size() <= 1 || h.inv->net_interfaces.empty()) return;
  const IfaceFilter f = parse_iface_filter(value);
  std::vector<std::string> present;
  bool any = false;
  for (const auto& n : h.inv->net_interfaces) {
    present.push_back(n.name);
    any = any || iface_filter_selects(f, n.name, -1);
  }
  if (any) return;
  Finding fd;
  fd.code = "SOCKET_IFNAME_NO_MATCH";
  fd.severity = Severity::kFail;
  fd.message = fmt::format("{}: NCCL_SOCKET_IFNAME={} {} interface of this host (present: {})", h.host, value,
                           f.exclude ? "excludes every" : "matches no", fmt::join(present, ", "));
  fd.evidence = {{"host", h.host},
                 {"source", "nccl_log x inventory"},
                 {"NCCL_SOCKET_IFNAME", value},
                 {"interfaces", present}};
  std::vector<std::string> data;
  for (const auto& n : h.inv->net_interfaces)
    if (!is_management_iface(n.name) && n.operstate == "up") data.push_back(n.name);
  fd.remedy = fmt::format(
      "set NCCL_SOCKET_IFNAME on {} to an interface it has ({}), per host in /etc/nccl.conf where the names "
      "differ, or a comma list of every host's names",
      h.host, data.empty() ? "none up" : fmt::format("{}", fmt::join(data, ", ")));
  out.push_back(std::move(fd));
}

}  // namespace

void selection_findings(const std::vector<LogHost>& hosts, std::vector<Finding>& out) {
  for (const auto& h : hosts) {
    hca_finding(h, out);
    ifname_finding(h, out);
  }
}

}  // namespace fabcheck::report::detail
