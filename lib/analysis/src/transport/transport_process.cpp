// Which network each NCCL process used (the last `Using network`, else the
// connection lines, else the OFI provider, verbs errors, error traces, the pre-2.6 device list), and the
// small tests of plugin and device names the verdict shares (transport_internal.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "transport_internal.hpp"

namespace fabcheck::report::detail {

using parse::NcclProcessLog;
using parse::NcclTransportKind;

std::string classify_network(const std::string& name) {
  std::string l = lower(name);
  if (l.empty()) return {};
  if (l.find("socket") != std::string::npos || l.find("tcp") != std::string::npos) return "socket";
  if (l.find("libfabric") != std::string::npos || l.find("ofi") != std::string::npos ||
      l.find("efa") != std::string::npos)
    return "ofi";
  if (starts(l, "ib") || l.find("rdma") != std::string::npos || l.find("verbs") != std::string::npos ||
      l.find("sharp") != std::string::npos)
    return "ib_verbs";
  return {};
}

bool is_ipoib_or_roce_netdev(const std::string& n) {
  if (n.size() >= 3 && starts(n, "ib") &&
      (std::isdigit(static_cast<unsigned char>(n[2])) || n[2] == 'p' || n[2] == 's'))
    return true;
  // mlx5 RoCE netdevs carry the physical port name: ens1f0np0, enp65s0f1np1.
  auto np = n.rfind("np");
  if (np != std::string::npos && np + 2 < n.size() && np > 0) {
    bool digits = true;
    for (std::size_t i = np + 2; i < n.size(); ++i)
      digits = digits && std::isdigit(static_cast<unsigned char>(n[i]));
    return digits;
  }
  return false;
}

bool plugin_failed(const NcclProcessLog& p) {
  if (p.net_plugin.empty() && p.net_plugin_path.empty()) return false;
  if (p.ib_no_device || p.ib_using_empty) return true;
  for (const auto& is : p.issues) {
    if (is.kind == parse::NcclIssueKind::kPlugin || is.kind == parse::NcclIssueKind::kNetworkNotFound)
      return true;
    if (is.kind == parse::NcclIssueKind::kErrorTrace && is.status > 0 &&
        is.message.find("net.cc:") != std::string::npos && is.message.find("net_") == std::string::npos)
      return true;
  }
  return false;
}

bool ofi_provider_is_socket(const std::string& provider) {
  std::string l = lower(provider);
  return starts(l, "tcp") || starts(l, "sockets") || starts(l, "udp") || starts(l, "shm");
}

namespace {

// The network as the log's lines decide it, before the libfabric provider's correction.
Proc classify_process_raw(const NcclProcessLog& p) {
  Proc r;
  r.p = &p;
  if (!p.network.empty()) {
    r.net_name = p.network;
    r.net_class = classify_network(p.network);
    if (r.net_class.empty() && !p.ib_devices.empty()) r.net_class = "ib_verbs";
    if (r.net_class.empty() && p.ofi) r.net_class = "ofi";
    r.net_basis = fmt::format("line {}: Using network {}", p.network_line, p.network);
    if (!r.net_class.empty()) return r;
  }
  std::map<std::string, int> by_net;
  for (const auto& c : p.connections)
    if (c.kind == NcclTransportKind::kNet) ++by_net[c.net];
  if (!by_net.empty()) {
    auto best =
        std::max_element(by_net.begin(), by_net.end(), [](auto& a, auto& b) { return a.second < b.second; });
    r.net_name = best->first;
    r.net_class = classify_network(best->first);
    r.net_basis = fmt::format("{} connection line(s) via NET/{}", best->second, best->first);
    if (!r.net_class.empty()) return r;
  }
  if (p.ofi && !p.ofi_provider.empty()) {
    r.net_class = "ofi";
    r.net_name = "OFI (" + p.ofi_provider + ")";
    r.net_basis = "NET/OFI Selected Provider is " + p.ofi_provider;
    return r;
  }
  for (const auto& is : p.issues) {
    if (is.kind == parse::NcclIssueKind::kCompletion || is.kind == parse::NcclIssueKind::kIbvCall) {
      // A CQ error or a failed verbs call means the IB verbs transport was set up and carried (or tried)
      // traffic.
      r.net_class = "ib_verbs";
      r.net_name = p.net_plugin.empty() || plugin_failed(p) ? "IB" : p.net_plugin;
      r.net_basis = fmt::format("line {}: {}", is.line, is.message.substr(0, 160));
      return r;
    }
  }
  // Error traces name the transport code that ran (`transport/net_ib.cu:537 -> 2`, `net_socket.cc`): NCCL
  // 2.0 - 2.5 logs that print no `Using network` line.
  for (const auto& is : p.issues) {
    if (is.kind != parse::NcclIssueKind::kErrorTrace) continue;
    const bool ib = is.message.find("net_ib") != std::string::npos;
    const bool sock = is.message.find("net_socket") != std::string::npos;
    if (!ib && !sock) continue;
    r.net_class = ib ? "ib_verbs" : "socket";
    r.net_name = ib ? "IB" : "Socket";
    r.net_basis = fmt::format("line {}: error trace from the {} transport ({})", is.line, r.net_name,
                              is.message.substr(0, 80));
    return r;
  }
  // Before 2.6 NCCL printed no `Using network` line; IB is preferred over sockets, so a device list with no
  // other choice on record means IB was selected.
  if (!p.ib_devices.empty() && p.network.empty() && !p.ofi && !plugin_failed(p)) {
    r.net_class = "ib_verbs";
    r.net_name = "IB";
    r.net_basis = fmt::format(
        "NET/IB listed {} device(s) and no other network was chosen (no `Using network` "
        "line before NCCL 2.6)",
        p.ib_devices.size());
    return r;
  }
  if ((p.ib_no_device || p.ib_init_failed || p.libibverbs_missing) && p.net_plugin.empty() && !p.ofi &&
      p.ib_devices.empty()) {
    r.net_class = "socket";
    r.net_name = "Socket";
    r.net_basis = p.ib_init_failed
                      ? "IB plugin failed to initialize; the internal Socket transport is what remains"
                      : "NET/IB found no usable device; the internal Socket transport is what remains";
    return r;
  }
  return r;
}

}  // namespace

Proc classify_process(const NcclProcessLog& p) {
  Proc r = classify_process_raw(p);
  if (r.net_class == "ofi" && ofi_provider_is_socket(p.ofi_provider)) {
    r.net_class = "socket";
    r.net_basis += "; libfabric provider " + p.ofi_provider + " runs over kernel sockets";
  }
  return r;
}

}  // namespace fabcheck::report::detail
