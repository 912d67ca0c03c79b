// Transport verdict (DESIGN §5) from NCCL logs, inventory evidence, env and the MPI signature.
// Log rules: nccl-log-grammar.md §4.3 (network = last `Using network`, else connection lines; GDR per
// connection, else per HCA / per GPU-HCA pair / `Connected all rings ... GDR`; link layer from the device a
// NET/IB connection used, else the device lists, else per-QP LID/GID lines).
#include "fabcheck/report/transport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <tuple>

#include "fabcheck/core/ascii.hpp"
#include "fabcheck/core/redact.hpp"
#include "transport_checks.hpp"

namespace fabcheck::report {

using parse::NcclLog;
using parse::NcclProcessLog;
using parse::NcclTransportKind;

namespace {

std::string lower(const std::string& s) {
  return core::ascii_lower(s);
}

bool starts(const std::string& s, const char* p) {
  return s.rfind(p, 0) == 0;
}

std::string version_text(parse::NcclVersionCode v) {
  return fmt::format("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100);
}

// "IB", "IBext_v8", "Socket", "AWS Libfabric" → ib_verbs | ofi | socket | "" (unknown plugin).
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

std::string host_label(const std::string& h) {
  return h.empty() ? "(no prefix)" : h;
}

// A well-formed IPv4 dotted quad or an IPv6 text (hex digits, ':' and '%scope'): a mistyped address in a
// posted log ("10.10.10..2") must not count as a second machine.
bool valid_address(const std::string& a) {
  if (a.find(':') != std::string::npos) {
    for (char c : a.substr(0, a.find('%')))
      if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return false;
    return true;
  }
  int parts = 0, digits = 0;
  for (char c : a) {
    if (c == '.') {
      if (digits == 0) return false;
      ++parts;
      digits = 0;
    } else if (std::isdigit(static_cast<unsigned char>(c)) && digits < 3) {
      ++digits;
    } else {
      return false;
    }
  }
  return parts == 3 && digits > 0;
}

// The external net plugin did not come up: a plugin failure line, a plugin that then found no device, or a
// failed plugin init propagated from plugin/net.cc (`net.cc:79 -> 3`). Such a plugin is neither the network
// in use nor evidence of RDMA hardware (issue 18, class 5).
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

// One process of one log.
struct Proc {
  const NcclProcessLog* p = nullptr;
  std::string net_class;  // ib_verbs | ofi | socket | "" unknown
  std::string net_name;
  std::string net_basis;  // the line/rule that decided it
};

// libfabric providers that move data over kernel sockets (aws-ofi-nccl without EFA): not RDMA.
bool ofi_provider_is_socket(const std::string& provider) {
  std::string l = lower(provider);
  return starts(l, "tcp") || starts(l, "sockets") || starts(l, "udp") || starts(l, "shm");
}

Proc classify_process_raw(const NcclProcessLog& p);

Proc classify_process(const NcclProcessLog& p) {
  Proc r = classify_process_raw(p);
  if (r.net_class == "ofi" && ofi_provider_is_socket(p.ofi_provider)) {
    r.net_class = "socket";
    r.net_basis += "; libfabric provider " + p.ofi_provider + " runs over kernel sockets";
  }
  return r;
}

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
  // 2.0 - 2.5 logs that print no `Using network` line (issue 18, class 7).
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
  // other choice on record means IB was selected (grammar §4.3, class 7).
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

struct Ctx {
  std::optional<bool> inter_node;
  bool forced = false;
  bool configured = false;
  std::string configured_by;
  std::map<const MpiSignature*, SignatureJudgement> judged;  // every input signature, judged once
};

struct Scope {
  std::vector<const Proc*> procs;
  std::vector<const HostRdmaEvidence*> hw;
  std::vector<const MpiSignature*> sigs;
  std::string host;  // "" = the run
};

TransportAssessment assess(const Scope& s, const Ctx& ctx, std::vector<EvidenceLine>* ev) {
  TransportAssessment a;
  auto add = [&](const std::string& src, const std::string& host, const std::string& msg) {
    if (ev) ev->push_back({src, host, msg});
  };

  // --- network ---
  std::map<std::string, int> classes;
  std::map<std::string, std::pair<const Proc*, int>> example;
  for (const Proc* pr : s.procs) {
    if (pr->net_class.empty()) continue;
    ++classes[pr->net_class];
    if (!example.count(pr->net_class)) example[pr->net_class] = {pr, 0};
  }
  if (!classes.empty()) {
    if (classes.count("socket")) {
      a.network = "socket";  // a socket path anywhere limits the whole job
    } else {
      a.network = std::max_element(classes.begin(), classes.end(), [](auto& x, auto& y) {
                    return x.second < y.second;
                  })->first;
    }
    const Proc* pr = example[a.network].first;
    a.network_name = pr->net_name;
    for (const auto& [cls, n] : classes) {
      const Proc* e = example[cls].first;
      add("nccl_log", host_label(e->p->host),
          fmt::format("network {} ({} process(es)); {}", cls, n, e->net_basis));
    }
    a.network_source = "nccl_log";
  } else {
    // No log decided it: the MPI signature (the weakest evidence, DESIGN §5), else nothing. A TCP-class pair
    // anywhere limits the job, as a socket process does above. An RDMA-class signature counts only where the
    // inventory attests RDMA hardware: it never outweighs an inventory that found none.
    int sockets = 0, rdma = 0;
    for (const MpiSignature* sg : s.sigs) {
      auto it = ctx.judged.find(sg);
      if (it == ctx.judged.end()) continue;
      sockets += it->second.cls == SignatureClass::kSocketsLike;
      rdma += it->second.cls == SignatureClass::kRdmaLike;
    }
    bool hw_seen = false, hw_listed = false;
    for (const HostRdmaEvidence* e : s.hw) {
      hw_seen = true;
      hw_listed = hw_listed || !e->rdma_devices.empty() || e->active_ports > 0 || !e->rdma_netdevs.empty();
    }
    if (sockets > 0) {
      a.network = "socket";
      a.network_name = "MPI over TCP (signature)";
      a.network_source = "signature";
    } else if (rdma > 0 && hw_listed) {
      a.network = "ib_verbs";
      a.network_name = "MPI over RDMA (signature)";
      a.network_source = "signature";
    } else if (rdma > 0) {
      add("signature", s.host,
          hw_seen ? "RDMA-class signature set aside: the inventory found no RDMA hardware (the inventory "
                    "outranks the signature)"
                  : "RDMA-class signature alone names no network (no inventory to attest RDMA hardware)");
    }
  }

  // --- positive RDMA hardware evidence / fallback causes ---
  std::vector<EvidenceLine> positive, causes;
  for (const Proc* pr : s.procs) {
    const auto& p = *pr->p;
    std::string h = host_label(p.host);
    if (!p.ib_devices.empty()) {
      std::string devs;
      for (const auto& d : p.ib_devices)
        devs +=
            fmt::format(" [{}]{}:{}/{}", d.index, d.name, d.port, d.link_layer.empty() ? "?" : d.link_layer);
      positive.push_back({"nccl_log", h, "HCA listed by NCCL: NET/IB : Using" + devs});
    }
    // An installed plugin is not hardware: it counts only when it came up (issue 18, class 5).
    if (plugin_failed(p)) {
      if (!p.net_plugin.empty() || !p.net_plugin_path.empty())
        causes.push_back({"nccl_log", h,
                          "net plugin " + (p.net_plugin.empty() ? p.net_plugin_path : p.net_plugin) +
                              " loaded but did not come up (no device / init failed): not evidence of RDMA "
                              "hardware"});
    } else if (!p.net_plugin.empty() && classify_network(p.net_plugin) == "ib_verbs") {
      positive.push_back({"nccl_log", h,
                          "IB net plugin loaded: " + p.net_plugin +
                              (p.net_plugin_path.empty() ? "" : " (" + p.net_plugin_path + ")")});
    } else if (p.net_plugin_path.find("rdma") != std::string::npos ||
               p.net_plugin_path.find("sharp") != std::string::npos) {
      positive.push_back({"nccl_log", h, "IB net plugin loaded: " + p.net_plugin_path});
    }
    for (const auto& is : p.issues)
      if (is.kind == parse::NcclIssueKind::kPlugin && is.message.rfind("NET/OFI", 0) == 0 &&
          (is.message.find(" domain ") != std::string::npos ||
           is.message.find("GDR-supported instance") != std::string::npos)) {
        // aws-ofi-nccl opened a libfabric domain (an EFA device) before failing: the hardware is there.
        positive.push_back({"nccl_log", h, fmt::format("line {}: {}", is.line, is.message.substr(0, 160))});
        break;
      }
    if (!p.ofi_provider.empty() && !ofi_provider_is_socket(p.ofi_provider))
      positive.push_back(
          {"nccl_log", h,
           "libfabric RDMA provider selected: NET/OFI Selected Provider is " + p.ofi_provider});
    std::set<std::string> seen;
    for (const auto* list : {&p.bootstrap_ifaces, &p.socket_ifaces, &p.oob_ifaces})
      for (const auto& f : *list)
        if (is_ipoib_or_roce_netdev(f.name) && seen.insert(f.name).second)
          positive.push_back(
              {"nccl_log", h, "IPoIB/RoCE netdev in use by NCCL sockets: " + f.name + ":" + f.address});
    if (p.ib_no_device) causes.push_back({"nccl_log", h, "NET/IB : No device found."});
    if (p.ib_init_failed) causes.push_back({"nccl_log", h, "Failed to initialize NET plugin IB"});
    if (p.libibverbs_missing)
      causes.push_back({"nccl_log", h, "Failed to open libibverbs.so (rdma-core missing)"});
    for (const auto& is : p.issues)
      if (is.kind == parse::NcclIssueKind::kPlugin || is.kind == parse::NcclIssueKind::kNetworkNotFound)
        causes.push_back({"nccl_log", h, fmt::format("line {}: {}", is.line, is.message)});
  }
  bool hw_inspected = false, hw_none = true;
  for (const HostRdmaEvidence* e : s.hw) {
    hw_inspected = true;
    if (e->active_ports > 0)
      positive.push_back({"inventory", e->host,
                          fmt::format("{} ACTIVE RDMA port(s) ({})", e->active_ports,
                                      e->link_layer.empty() ? "link layer unknown" : e->link_layer)});
    else if (!e->rdma_devices.empty())
      positive.push_back(
          {"inventory", e->host,
           fmt::format("RDMA device(s) listed: {} (no ACTIVE port)", fmt::join(e->rdma_devices, ", "))});
    if (!e->rdma_netdevs.empty())
      positive.push_back(
          {"inventory", e->host, fmt::format("IPoIB/RoCE netdev(s): {}", fmt::join(e->rdma_netdevs, ", "))});
    if (!e->rdma_devices.empty() || e->active_ports > 0 || !e->rdma_netdevs.empty()) hw_none = false;
    if (e->rdma_devices.empty() && e->active_ports == 0)
      add("inventory", e->host,
          "no RDMA device" +
              (e->verbs_error.empty() ? std::string() : " (libibverbs: " + e->verbs_error + ")"));
    if (e->mpi_rdma_excluded)
      add("mpi_config", e->host,
          "Open MPI MCA parameter files exclude the RDMA components (ucx/openib): MPI uses TCP");
  }
  {
    // One line per host pair, at most kMaxSignatureLines of them (n hosts give n(n-1)/2 pairs): the pairs of
    // the least common class first, then a count of every class.
    constexpr std::size_t kMaxSignatureLines = 8;
    std::map<SignatureClass, std::size_t> count;
    for (const MpiSignature* sg : s.sigs)
      if (auto it = ctx.judged.find(sg); it != ctx.judged.end()) ++count[it->second.cls];
    std::vector<const MpiSignature*> order;
    for (const MpiSignature* sg : s.sigs)
      if (ctx.judged.count(sg)) order.push_back(sg);
    std::stable_sort(order.begin(), order.end(), [&](const MpiSignature* x, const MpiSignature* y) {
      return count[ctx.judged.at(x).cls] < count[ctx.judged.at(y).cls];
    });
    for (std::size_t i = 0; i < order.size() && i < kMaxSignatureLines; ++i) {
      const MpiSignature* sg = order[i];
      const auto& j = ctx.judged.at(sg);
      add("signature", sg->from_host + "<->" + sg->to_host,
          fmt::format("MPI point-to-point ({}) {}: {}", sg->source, name(j.cls), j.reason));
    }
    if (order.size() > kMaxSignatureLines)
      add("signature", s.host,
          fmt::format("{} host pairs in all: {} sockets_like, {} rdma_like, {} inconclusive; {} not listed",
                      order.size(), count[SignatureClass::kSocketsLike], count[SignatureClass::kRdmaLike],
                      count[SignatureClass::kInconclusive], order.size() - kMaxSignatureLines));
  }

  // --- link layer ---
  if (a.network == "ib_verbs") {
    std::map<std::string, int> used, listed;
    bool lid = false, gid = false;
    for (const Proc* pr : s.procs) {
      const auto& p = *pr->p;
      for (const auto& c : p.connections) {
        if (c.kind != NcclTransportKind::kNet || classify_network(c.net) != "ib_verbs") continue;
        for (const auto& d : p.ib_devices)
          if (d.index == c.net_dev && !d.link_layer.empty()) ++used[d.link_layer];
      }
      for (const auto& d : p.ib_devices)
        if (!d.link_layer.empty()) ++listed[d.link_layer];
      lid = lid || p.qp_lid;
      lid = lid || p.ib_peer_in_error;
      gid = gid || p.qp_gid || p.roce_gid_in_error;
    }
    auto top = [](const std::map<std::string, int>& m) {
      return std::max_element(m.begin(), m.end(), [](auto& x, auto& y) { return x.second < y.second; })
          ->first;
    };
    if (!used.empty()) {
      a.link_layer = top(used);
      add("nccl_log", s.host,
          fmt::format("link layer {} from the devices NET/IB connections used", *a.link_layer));
    } else if (listed.size() == 1) {
      a.link_layer = listed.begin()->first;
      add("nccl_log", s.host, fmt::format("link layer {} from the NET/IB device list", *a.link_layer));
    } else if (!listed.empty()) {
      a.link_layer_reason =
          "the NET/IB device list mixes InfiniBand and RoCE ports and no connection line "
          "names the device used";
    } else if (lid != gid) {
      a.link_layer = lid ? "InfiniBand" : "RoCE";
      add("nccl_log", s.host,
          fmt::format("link layer {} from per-QP {} lines", *a.link_layer, lid ? "LID" : "GID"));
    } else {
      std::map<std::string, int> inv;
      for (const HostRdmaEvidence* e : s.hw)
        if (!e->link_layer.empty()) ++inv[e->link_layer];
      if (!inv.empty()) {
        a.link_layer = top(inv);
        add("inventory", s.host, "link layer " + *a.link_layer + " from the ACTIVE ports");
      } else {
        a.link_layer_reason = "no device list, per-QP line or inventory names the link layer";
      }
    }
  } else {
    a.link_layer_reason =
        a.network == "ofi" ? "OFI/libfabric reports no link layer" : "not an IB verbs network";
  }

  // --- GPUDirect RDMA ---
  if (a.network == "socket") {
    a.gdr = "off";
    a.gdr_basis = "sockets stage through host memory";
  } else if (a.network == "ib_verbs" || a.network == "ofi") {
    std::size_t net = 0, gdr = 0;
    std::size_t hca_on = 0, hca_off = 0, pair_on = 0, pair_off = 0;
    bool rings_off = false;
    std::string off_reason;
    for (const Proc* pr : s.procs) {
      const auto& p = *pr->p;
      for (const auto& c : p.connections) {
        if (c.kind != NcclTransportKind::kNet || classify_network(c.net) == "socket") continue;
        ++net;
        gdr += c.gdr;
      }
      for (const auto& h : p.gdr_hca) {
        if (classify_network(h.net) == "socket") continue;
        (h.enabled ? hca_on : hca_off)++;
        if (!h.enabled && off_reason.empty())
          off_reason = fmt::format("GPU Direct RDMA Disabled for HCA {} '{}'{}", h.hca, h.name,
                                   h.reason.empty() ? "" : " " + h.reason);
      }
      for (const auto& g : p.gdr_pairs) {
        (g.enabled ? pair_on : pair_off)++;
        if (!g.enabled && off_reason.empty()) off_reason = g.text;
      }
      if (p.rings_gdr && *p.rings_gdr == 0) rings_off = true;
    }
    if (net > 0) {
      a.gdr = gdr == net ? "on" : "off";
      a.gdr_basis = fmt::format("{} of {} NET connection lines carry /GDRDMA", gdr, net);
      if (gdr != net && !off_reason.empty()) a.gdr_basis += "; " + off_reason;
    } else if (hca_on + hca_off > 0) {
      a.gdr = hca_off == 0 ? "on" : "off";
      a.gdr_basis =
          fmt::format("per-HCA lines: {} enabled, {} disabled (no connection lines)", hca_on, hca_off);
      if (hca_off) a.gdr_basis += "; " + off_reason;
    } else if (pair_on + pair_off > 0) {
      a.gdr = pair_off == 0 ? "on" : "off";
      a.gdr_basis =
          fmt::format("per GPU/HCA lines: {} enabled, {} disabled (no connection lines)", pair_on, pair_off);
      if (pair_off) a.gdr_basis += "; " + off_reason;
    } else if (rings_off) {
      a.gdr = "off";
      a.gdr_basis = "Connected all rings ... GDR 0";
    } else if (a.network_source == "signature") {
      a.gdr_basis = "the MPI signature says nothing about GPU buffers (no NCCL log)";
    } else {
      a.gdr_basis = "no connection, per-HCA or per-GPU GDR line";
      for (const HostRdmaEvidence* e : s.hw)
        if (e->gdr_module && !*e->gdr_module)
          a.gdr_basis +=
              "; inventory: no peer-memory module on " + e->host + " (DMA-BUF may still allow GDR)";
    }
    add(a.network_source == "signature" ? "signature" : "nccl_log", s.host,
        "gdr " + a.gdr + ": " + a.gdr_basis);
  } else {
    bool module_off = false;
    for (const HostRdmaEvidence* e : s.hw) module_off = module_off || (e->gdr_module && !*e->gdr_module);
    if (!s.hw.empty() && hw_none) {
      a.gdr = "off";
      a.gdr_basis = "no RDMA hardware";
    } else if (module_off) {
      a.gdr_basis = "no network attested; the inventory found no peer-memory module";
    }
  }

  // --- why sockets (issue 18, class 6): what the log can support, strongest first ---
  // A plugin's own failure lines (aws-ofi-nccl, `Failed to initialize NET plugin X`, X not IB) come before
  // NCCL's internal IB then finding no device: the plugin was the intended network.
  bool libibverbs_missing = false, no_device = false, plugin_down = false, plugin_error = false,
       ports_down = false;
  for (const Proc* pr : s.procs) {
    const auto& p = *pr->p;
    libibverbs_missing = libibverbs_missing || p.libibverbs_missing;
    // NCCL looked and found nothing: `No device found`, the 2.0 - 2.3 IB sideband line with no HCA listed
    // before sockets were chosen, or libfabric picking a socket provider (no EFA/verbs provider there).
    no_device = no_device || p.ib_no_device ||
                (p.ib_sideband && p.ib_devices.empty() && pr->net_class == "socket") ||
                (p.ofi && ofi_provider_is_socket(p.ofi_provider));
    plugin_down = plugin_down || p.ib_init_failed || plugin_failed(p);
    for (const auto& is : p.issues)
      plugin_error =
          plugin_error || is.kind == parse::NcclIssueKind::kNetworkNotFound ||
          (is.kind == parse::NcclIssueKind::kPlugin && is.message.find("NET plugin IB") == std::string::npos);
  }
  plugin_down = plugin_down || plugin_error;
  for (const HostRdmaEvidence* e : s.hw)
    ports_down = ports_down || (!e->rdma_devices.empty() && e->active_ports == 0);
  std::string cause = ctx.configured                           ? "user_disabled"
                      : libibverbs_missing                     ? "libibverbs_missing"
                      : plugin_error                           ? "plugin_failed"
                      : no_device || (hw_inspected && hw_none) ? "no_device"
                      : plugin_down                            ? "plugin_failed"
                      : ports_down                             ? "ports_down"
                                                               : "unknown";

  // --- verdict (DESIGN §5 precedence) ---
  bool pos = !positive.empty();
  if (ctx.inter_node == false && !ctx.forced) {
    a.verdict = "intra_node_only";
  } else if (ctx.configured && (a.network == "socket" || a.network == "none")) {
    a.verdict = "socket_configured";
    add("env", s.host, ctx.configured_by);
  } else if (a.network == "socket") {
    // Software missing is not hardware missing: with libibverbs absent NCCL could not look (class 6); and
    // `no_rdma_hardware` needs NCCL to have looked and found none (No device found, IB init failed, the
    // inventory) — a log that never shows the IB probe supports only `unknown`.
    const bool looked = no_device || plugin_down || (hw_inspected && hw_none);
    a.verdict = pos                                        ? "socket_fallback"
                : cause == "libibverbs_missing" || !looked ? "unknown"
                                                           : "no_rdma_hardware";
  } else if (a.network == "ib_verbs" || a.network == "ofi") {
    // `rdma` needs traffic between hosts attested (or same-host peers forced onto NET): IB chosen with no
    // NET connection line, no nNodes > 1 and one host's lines says nothing about the fabric (class 3).
    if (ctx.inter_node == true || ctx.forced)
      a.verdict = a.gdr == "off" ? "rdma_no_gdr" : "rdma";
    else
      add("nccl_log", s.host,
          "verdict unknown: " + a.network + " was chosen, but no line attests traffic between hosts");
  } else {
    bool log_no_device = no_device || plugin_down;
    if (!pos && ((hw_inspected && hw_none) || log_no_device) && !libibverbs_missing)
      a.verdict = "no_rdma_hardware";
  }
  if (a.verdict == "socket_fallback" || a.verdict == "socket_configured" || a.verdict == "no_rdma_hardware" ||
      (a.verdict == "unknown" && libibverbs_missing && a.network != "ib_verbs" && a.network != "ofi"))
    a.cause = cause;
  if (ev) {
    if (a.verdict == "socket_fallback" || a.verdict == "no_rdma_hardware" ||
        a.verdict == "socket_configured") {
      for (auto& c : causes) ev->push_back(c);
    }
    for (auto& p : positive) ev->push_back(p);
  }
  return a;
}

std::string env_value(const std::map<std::string, std::string>& env, const std::string& k) {
  auto it = env.find(k);
  return it == env.end() ? std::string() : it->second;
}

// NCCL reads its integer parameters with strtoll (src/misc/param.cc) and echoes the number: any non-zero
// value disables (NCCL_IB_DISABLE=10 and -1 do; "true" reads as 0 and does not).
bool truthy(const std::string& v) {
  if (v.empty()) return false;
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 0);
  return end != v.c_str() && n != 0;
}

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

bool is_management_iface(const std::string& iface) {
  std::string l = lower(iface);
  if (l == "lo") return true;
  for (const char* p : {"docker", "virbr", "br-", "veth", "cni", "flannel", "cali", "tun", "tap", "mgmt",
                        "bmc", "idrac", "ipmi", "vnet"})
    if (starts(l, p)) return true;
  return false;
}

TransportResult analyze_transport(const TransportInput& in) {
  TransportResult r;

  // Processes and hosts.
  std::vector<Proc> procs;
  for (const auto& log : in.nccl_logs)
    for (const auto& p : log.processes) procs.push_back(classify_process(p));
  std::vector<std::string> host_order;
  auto note_host = [&](const std::string& h) {
    if (std::find(host_order.begin(), host_order.end(), h) == host_order.end()) host_order.push_back(h);
  };
  for (const auto& pr : procs) note_host(pr.p->host);
  for (const auto& e : in.hosts) note_host(e.host);

  // Log summaries.
  for (const auto& log : in.nccl_logs) {
    LogSummary ls;
    ls.source = log.source;
    ls.stats = log.stats;
    ls.processes = static_cast<int>(log.processes.size());
    std::set<std::string> hs;
    for (const auto& p : log.processes) hs.insert(p.host);
    ls.hosts = static_cast<int>(hs.size());
    r.logs.push_back(std::move(ls));
  }

  // Effective environment: launcher env < inventory env < command lines in the log < NCCL's own `X set by
  // environment to Y` echoes (what the process really saw; issue 18, class 4).
  std::map<std::string, std::string> env = in.env;
  for (const auto& e : in.hosts)
    for (const auto& [k, v] : e.env) env.emplace(k, v);
  for (const auto& log : in.nccl_logs)
    for (const auto& [k, v] : log.command_env) env[k] = v;
  for (const auto& pr : procs)
    for (const auto& [k, v] : pr.p->env) env[k] = v;
  for (const auto& [k, v] : env)
    if (starts(k, "NCCL_") || starts(k, "UCX_") || starts(k, "OMPI_MCA_")) r.env[k] = v;

  Ctx ctx;
  {
    // Link rate of a pair: the slower end's fastest ACTIVE RDMA port (unknown when either end has none).
    std::map<std::string, double> rate;
    for (const auto& e : in.hosts)
      if (e.link_rate_gbit) rate[e.host] = *e.link_rate_gbit;
    for (const auto& sg : in.signatures) {
      std::optional<double> link;
      auto a = rate.find(sg.from_host), b = rate.find(sg.to_host);
      if (a != rate.end() && b != rate.end()) link = std::min(a->second, b->second);
      ctx.judged[&sg] = classify_signature(sg, link);
    }
  }
  std::string p2p_level = lower(env_value(env, "NCCL_P2P_LEVEL"));
  bool p2p_off = truthy(env_value(env, "NCCL_P2P_DISABLE")) || p2p_level == "loc" || p2p_level == "0";
  bool shm_off = truthy(env_value(env, "NCCL_SHM_DISABLE"));
  ctx.forced = p2p_off && shm_off;
  r.net_forced_local = ctx.forced;
  if (ctx.forced)
    r.evidence.push_back(
        {"env", "", "P2P and SHM disabled by env: same-host peers go through NET (not a fault)"});
  if (truthy(env_value(env, "NCCL_IB_DISABLE"))) {
    ctx.configured = true;
    ctx.configured_by =
        "NCCL_IB_DISABLE=" + env_value(env, "NCCL_IB_DISABLE") + " (sockets chosen by the operator)";
  }
  if (lower(env_value(env, "NCCL_NET")) == "socket") {
    ctx.configured = true;
    ctx.configured_by = "NCCL_NET=" + env_value(env, "NCCL_NET") + " (sockets chosen by the operator)";
  }

  // --- inter_node ---
  int max_nnodes = 0;
  int nranks = 0;
  bool nvls = false;
  for (const auto& pr : procs) {
    max_nnodes = std::max(max_nnodes, pr.p->nnodes.value_or(0));
    nranks = std::max(nranks, pr.p->nranks.value_or(0));
    nvls = nvls || pr.p->nvls_available.value_or(false);
  }
  // Distinct machines: host names; one name whose processes show different addresses on the same interface
  // counts as several machines (reporters often redact host names to one placeholder).
  std::map<std::string, std::map<std::string, std::set<std::string>>> addrs;  // host → iface → addresses
  std::set<std::string> named;
  for (const auto& pr : procs) {
    if (pr.p->host.empty()) continue;
    named.insert(pr.p->host);
    for (const auto* list : {&pr.p->bootstrap_ifaces, &pr.p->socket_ifaces, &pr.p->oob_ifaces})
      for (const auto& f : *list)
        if (valid_address(f.address)) addrs[pr.p->host][f.name].insert(f.address);
  }
  std::size_t machines = 0;
  std::string split_note;
  for (const auto& h : named) {
    std::size_t n = 1;
    for (const auto& [iface, set] : addrs[h])
      if (set.size() > n) {
        n = set.size();
        split_note = fmt::format("host name '{}' shows {} different addresses on {}", h, set.size(), iface);
      }
    machines += n;
  }
  std::set<std::string> test_hosts;
  for (const auto& log : in.nccl_logs)
    for (const auto& tr : log.tests_ranks) test_hosts.insert(tr.host);
  std::size_t net_conns = 0;
  const parse::NcclConnection* net_example = nullptr;
  std::string net_example_host;
  for (const auto& pr : procs)
    for (const auto& c : pr.p->connections)
      if (c.kind == NcclTransportKind::kNet || c.kind == NcclTransportKind::kCollNet) {
        ++net_conns;
        if (!net_example) {
          net_example = &c;
          net_example_host = host_label(pr.p->host);
        }
      }
  std::size_t local_conns = 0;
  for (const auto& pr : procs)
    for (const auto& c : pr.p->connections)
      local_conns += c.kind == NcclTransportKind::kP2P || c.kind == NcclTransportKind::kShm;
  std::set<int> local_ranks;
  for (const auto& pr : procs) local_ranks.insert(pr.p->ranks.begin(), pr.p->ranks.end());
  bool single_host = machines <= 1 && test_hosts.size() <= 1;
  std::set<std::string> sig_hosts;
  for (const auto& s : in.signatures)
    if (s.from_host != s.to_host) sig_hosts.insert(s.from_host);

  if (max_nnodes > 1) {
    r.inter_node = true;
    r.inter_node_basis = fmt::format("nNodes {}", max_nnodes);
  } else if (max_nnodes == 1) {
    r.inter_node = false;
    r.inter_node_basis = "nNodes 1";
  } else if (machines >= 2) {
    r.inter_node = true;
    r.inter_node_basis = split_note.empty() ? fmt::format("NCCL lines from {} hosts", machines)
                                            : fmt::format("{} machines ({})", machines, split_note);
  } else if (test_hosts.size() >= 2) {
    r.inter_node = true;
    r.inter_node_basis = fmt::format("nccl-tests header lists ranks on {} hosts", test_hosts.size());
  } else if (net_conns > 0 && !ctx.forced) {
    r.inter_node = true;
    r.inter_node_basis = fmt::format("{} NET connection line(s), e.g. line {} on {}: {} -> {} via {}",
                                     net_conns, net_example->line, net_example_host, net_example->from_rank,
                                     net_example->to_rank, net_example->via);
  } else if (!sig_hosts.empty()) {
    r.inter_node = true;
    r.inter_node_basis = "MPI signature measured between hosts";
  } else if (single_host && local_conns > 0 && net_conns == 0 && !ctx.forced) {
    // One host whose connection lines are all P2P/SHM (one process driving several GPUs, or several local
    // processes): a ring that left the host would show NET lines on this host too (class 3).
    r.inter_node = false;
    r.inter_node_basis =
        fmt::format("{} connection line(s) from one host, all P2P/SHM (no NET)", local_conns);
  } else if (test_hosts.size() == 1 && machines <= 1) {
    r.inter_node = false;
    r.inter_node_basis = "nccl-tests header lists every rank on " + *test_hosts.begin();
  } else if (single_host && nranks > 0 && static_cast<int>(local_ranks.size()) >= nranks &&
             *local_ranks.rbegin() == nranks - 1 && procs.size() > 0) {
    r.inter_node = false;
    r.inter_node_basis = fmt::format("all {} ranks of the communicator log from one host", nranks);
  } else if (single_host && nranks > 8) {
    r.inter_node = true;
    r.inter_node_basis =
        fmt::format("inferred: {} ranks exceed the 8 GPUs of a node (one host's lines shown)", nranks);
  } else if (single_host && !procs.empty() && ctx.forced) {
    r.inter_node = false;
    r.inter_node_basis =
        "inferred: one host, and env forces same-host peers onto NET (a single-node NET test)";
  } else if (single_host && !procs.empty() && nvls && nranks > 0 && nranks <= 8) {
    r.inter_node = false;
    r.inter_node_basis =
        fmt::format("inferred: one host, NVLS available and {} ranks fit one NVSwitch board", nranks);
  } else {
    r.inter_node_basis = procs.empty()
                             ? "no NCCL log and no MPI signature between hosts"
                             : "no nNodes line, no second host and no NET connection line in the log";
  }
  ctx.inter_node = r.inter_node;
  r.evidence.push_back({"nccl_log", "",
                        "inter_node " +
                            std::string(!r.inter_node   ? "null"
                                        : *r.inter_node ? "true"
                                                        : "false") +
                            ": " + r.inter_node_basis});

  // --- run-level assessment ---
  Scope all;
  for (const auto& pr : procs) all.procs.push_back(&pr);
  for (const auto& e : in.hosts) all.hw.push_back(&e);
  for (const auto& s : in.signatures) all.sigs.push_back(&s);
  r.run = assess(all, ctx, &r.evidence);
  {
    // One line per distinct (source, host, message), in first-seen order.
    std::set<std::tuple<std::string, std::string, std::string>> seen;
    std::vector<EvidenceLine> uniq;
    for (auto& e : r.evidence)
      if (seen.insert({e.source, e.host, e.message}).second) uniq.push_back(std::move(e));
    r.evidence = std::move(uniq);
  }

  // --- per host ---
  for (const auto& h : host_order) {
    Scope sc;
    sc.host = host_label(h);
    HostTransport ht;
    ht.host = host_label(h);
    std::set<std::string> versions;
    parse::NcclVersionCode lo = 0, hi = 0;
    std::vector<const NcclProcessLog*> host_procs;
    for (const auto& pr : procs) {
      if (pr.p->host != h) continue;
      sc.procs.push_back(&pr);
      const auto& p = *pr.p;
      ++ht.processes;
      if (!p.version.empty()) versions.insert(p.version);
      if (p.version_min) {
        lo = lo ? std::max(lo, p.version_min) : p.version_min;
        hi = hi ? std::min(hi, p.version_max) : p.version_max;
      }
      if (ht.net_plugin.empty() && !p.net_plugin.empty())
        ht.net_plugin = p.net_plugin + (plugin_failed(p) ? " (did not come up)" : "");
      for (const auto& c : p.connections) {
        ++ht.connections[std::string(parse::name(c.kind))];
        if (c.kind == NcclTransportKind::kNet && c.gdr) ++ht.connections["net_gdr"];
      }
      ht.nvls_channels = std::max(ht.nvls_channels, p.nvls_channels);
      for (const auto& d : p.ib_devices) {
        std::string s = fmt::format("{}:{}/{}", d.name, d.port, d.link_layer.empty() ? "?" : d.link_layer);
        if (std::find(ht.net_devices.begin(), ht.net_devices.end(), s) == ht.net_devices.end())
          ht.net_devices.push_back(s);
      }
      for (const auto& f : p.socket_ifaces)
        if (std::find(ht.socket_ifaces.begin(), ht.socket_ifaces.end(), f.name) == ht.socket_ifaces.end())
          ht.socket_ifaces.push_back(f.name);
      for (const auto& is : p.issues) {
        NcclErrorClass cls;
        bool fatal = false;
        if (ht.errors.size() < 20 && classify_issue(is, cls, fatal)) ht.errors.push_back(is);
      }
      host_procs.push_back(&p);
    }
    {
      // Errors are what the health counts: INFO chatter and propagation traces are not (class 2).
      TransportHealth hh = assess_health(host_procs);
      ht.health = hh.status;
      ht.errors_total = hh.errors;
    }
    for (const auto& e : in.hosts)
      if (e.host == h) sc.hw.push_back(&e);
    for (const auto& s : in.signatures)
      if (s.from_host == h || s.to_host == h) sc.sigs.push_back(&s);
    if (!versions.empty()) {
      ht.nccl_version = *versions.begin();
      for (auto it = std::next(versions.begin()); it != versions.end(); ++it) ht.nccl_version += ", " + *it;
    } else if (lo && lo <= hi) {
      ht.nccl_version = fmt::format("{}-{} (inferred)", version_text(lo), version_text(hi));
    }
    ht.assessment = assess(sc, ctx, nullptr);
    r.per_host.push_back(std::move(ht));
  }
  // Bare `NCCL version` lines (2.3-2.21 print it from rank 0 only): give them to the only host, if one.
  std::set<std::string> bare;
  for (const auto& log : in.nccl_logs)
    for (const auto& v : log.bare_versions) bare.insert(v);
  if (!bare.empty() && r.per_host.size() == 1 && r.per_host[0].nccl_version.find('(') != std::string::npos)
    r.per_host[0].nccl_version = *bare.begin();
  else if (!bare.empty() && r.per_host.size() == 1 && r.per_host[0].nccl_version.empty())
    r.per_host[0].nccl_version = *bare.begin();

  // --- findings ---
  const auto& run = r.run;
  auto evidence_json = [&](std::initializer_list<std::string> sources, std::size_t cap) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& e : r.evidence) {
      if (arr.size() >= cap) break;
      if (std::find(sources.begin(), sources.end(), e.source) != sources.end() || sources.size() == 0)
        arr.push_back({{"source", e.source}, {"host", e.host}, {"message", e.message}});
    }
    return arr;
  };
  if (run.verdict == "socket_fallback") {
    // Severity is a promise (DESIGN §5): RDMA hardware present while sockets carried NCCL's traffic is a
    // fail on the log's word; the MPI signature alone (a timing class) is a warning.
    Finding f;
    f.severity = run.network_source == "signature" ? Severity::kWarn : Severity::kFail;
    f.code = "RDMA_FALLBACK_SOCKET";
    std::vector<std::string> sock_hosts;
    for (const auto& ht : r.per_host)
      if (ht.assessment.network == "socket") sock_hosts.push_back(ht.host);
    const bool by_signature = run.network_source == "signature";
    const std::string who =
        sock_hosts.empty() ? "" : fmt::format(" (hosts: {})", fmt::join(sock_hosts, ", "));
    f.message = by_signature ? "RDMA hardware is present but MPI point-to-point traffic between hosts has a "
                               "TCP signature" +
                                   who
                             : "RDMA hardware is present but NCCL ran over TCP sockets" + who;
    f.evidence = {{"verdict", run.verdict},
                  {"cause", run.cause},
                  {"network", run.network_name},
                  {"network_source", run.network_source},
                  {"lines", by_signature ? evidence_json({"signature", "inventory", "mpi_config"}, 12)
                                         : evidence_json({"nccl_log", "inventory"}, 12)}};
    if (!by_signature && !run.cause.empty() && run.cause != "unknown") f.message += " — cause: " + run.cause;
    f.remedy =
        by_signature
            ? "Let MPI use the RDMA ports: Open MPI with UCX (--mca pml ucx, and remove the ucx/openib "
              "exclusion from openmpi-mca-params.conf), UCX_NET_DEVICES naming the HCA port; rerun pairs"
        : run.cause == "libibverbs_missing"
            ? "Install rdma-core (libibverbs and the provider, e.g. libmlx5) in the image and pass "
              "/dev/infiniband into the container; then NCCL lists the HCAs (`NET/IB : Using ...`)"
        : run.cause == "plugin_failed"
            ? "The net plugin did not come up: check NCCL_NET_PLUGIN and that the plugin and its "
              "dependencies "
              "load (ldd), or set NCCL_NET_PLUGIN=none to use NCCL's internal IB transport"
        : run.cause == "ports_down"
            ? "Bring the RDMA ports up (ibv_devinfo: PORT_ACTIVE; cable, subnet manager for IB, link for "
              "RoCE), then rerun with NCCL_DEBUG=INFO"
            : "Make IB verbs usable to NCCL: rdma-core/libibverbs in the container, ACTIVE ports "
              "(ibv_devinfo), NCCL_IB_HCA and the net plugin (NCCL_NET_PLUGIN) matching the HCAs; rerun with "
              "NCCL_DEBUG=INFO";
    r.findings.push_back(std::move(f));
  }
  if (run.verdict == "rdma_no_gdr") {
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "GDR_DISABLED";
    f.message = "RDMA is used without GPUDirect RDMA: NET traffic is staged through host memory";
    f.evidence = {{"gdr_basis", run.gdr_basis}};
    bool distance = run.gdr_basis.find("distance") != std::string::npos;
    f.remedy =
        distance ? "GPU and NIC are farther apart than NCCL_NET_GDR_LEVEL allows: use a NIC under the same "
                   "PCIe switch as the GPU, or raise NCCL_NET_GDR_LEVEL if the path is known to be fast"
                 : "Load nvidia_peermem (or nv_peer_mem) where this NCCL version looks for it, or enable "
                   "DMA-BUF (kernel >= 5.12, NCCL_DMABUF_ENABLE=1); then check for /GDRDMA in the NET lines";
    r.findings.push_back(std::move(f));
  }
  {
    // Version mismatch: explicit versions per host (and bare rank-0 lines), and inferred format ranges.
    std::map<parse::NcclVersionCode, std::vector<std::string>> by_version;
    for (const auto& ht : r.per_host)
      if (!ht.nccl_version.empty() && ht.nccl_version.find('(') == std::string::npos) {
        std::size_t start = 0;
        while (start < ht.nccl_version.size()) {
          std::size_t c = ht.nccl_version.find(", ", start);
          std::string v =
              ht.nccl_version.substr(start, c == std::string::npos ? std::string::npos : c - start);
          if (auto code = parse::nccl_version_code(v)) by_version[code].push_back(ht.host + " " + v);
          if (c == std::string::npos) break;
          start = c + 2;
        }
      }
    for (const auto& b : bare)
      if (auto code = parse::nccl_version_code(b))
        by_version[code].push_back("rank 0 (NCCL version line) " + b);
    nlohmann::json ev = nlohmann::json::array();
    bool mismatch = by_version.size() > 1;
    if (mismatch)
      for (const auto& [code, who] : by_version)
        for (const auto& w : who) ev.push_back(w);
    if (!mismatch && by_version.size() == 1) {
      parse::NcclVersionCode v = by_version.begin()->first;
      for (const auto& ht : r.per_host) {
        if (ht.nccl_version.find("(inferred)") == std::string::npos) continue;
        std::size_t dash = ht.nccl_version.find('-');
        auto lo2 = parse::nccl_version_code(ht.nccl_version.substr(0, dash));
        auto hi2 = parse::nccl_version_code(ht.nccl_version.substr(dash + 1));
        if (lo2 && hi2 && (v < lo2 || v > hi2)) {
          mismatch = true;
          ev.push_back(ht.host + " message formats of NCCL " + ht.nccl_version);
        }
      }
      if (mismatch) ev.push_back(by_version.begin()->second.front());
    }
    if (mismatch) {
      Finding f;
      f.severity = Severity::kWarn;
      f.code = "NCCL_VERSION_MISMATCH";
      f.message = "Hosts of one job run different NCCL versions";
      f.evidence = {{"versions", ev}};
      f.remedy =
          "Install one NCCL version on every host/container image (check LD_LIBRARY_PATH and the PyTorch "
          "wheel's bundled NCCL)";
      r.findings.push_back(std::move(f));
    }
  }
  {
    nlohmann::json ev = nlohmann::json::array();
    for (const char* key : {"NCCL_SOCKET_IFNAME", "OMPI_MCA_btl_tcp_if_include",
                            "OMPI_MCA_oob_tcp_if_include", "UCX_NET_DEVICES"}) {
      std::string v = env_value(env, key);
      for (const auto& n : split_ifnames(v))
        if (is_management_iface(n.substr(0, n.find(':'))))
          ev.push_back(fmt::format("{}={} names {}", key, v, n));
    }
    for (const auto& pr : procs) {
      if (pr.net_class != "socket") continue;
      for (const auto& f : pr.p->socket_ifaces)
        if (is_management_iface(f.name)) {
          std::string s = fmt::format("{}: NET/Socket uses {}:{}", host_label(pr.p->host), f.name, f.address);
          if (std::find(ev.begin(), ev.end(), s) == ev.end() && ev.size() < 16) ev.push_back(s);
        }
    }
    if (!ev.empty()) {
      Finding f;
      f.severity = Severity::kWarn;
      f.code = "SOCKET_IFNAME_MGMT";
      f.message = "NCCL or MPI is pointed at a loopback, container-bridge or management interface";
      f.evidence = {{"lines", ev}};
      f.remedy =
          "Set NCCL_SOCKET_IFNAME (and btl_tcp_if_include) to the data-network interface, e.g. ib0 or the "
          "RoCE netdev, or exclude with NCCL_SOCKET_IFNAME=^docker0,lo";
      r.findings.push_back(std::move(f));
    }
  }
  // --- health (did the attempted transport work?) and the socket-path checks ---
  r.health = assess_health(in.nccl_logs);
  for (auto& f : health_findings(r.health, run.verdict == "socket_fallback"))
    r.findings.push_back(std::move(f));
  {
    std::vector<const NcclProcessLog*> all_procs;
    for (const auto& pr : procs) all_procs.push_back(pr.p);
    if (auto f = detail::socket_single_nic(all_procs)) r.findings.push_back(std::move(*f));
    if (auto f = detail::bootstrap_addr_not_routable(all_procs, r.inter_node))
      r.findings.push_back(std::move(*f));
  }
  return r;
}

namespace {

nlohmann::json assessment_json(const TransportAssessment& a) {
  nlohmann::json j;
  j["network"] = a.network;
  j["network_name"] = a.network_name.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.network_name);
  j["network_source"] = a.network_source.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.network_source);
  j["link_layer"] = a.link_layer ? nlohmann::json(*a.link_layer) : nlohmann::json(nullptr);
  if (!a.link_layer) j["link_layer_reason"] = a.link_layer_reason;
  j["gdr"] = a.gdr;
  j["gdr_basis"] = a.gdr_basis;
  j["verdict"] = a.verdict;
  j["cause"] = a.cause.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.cause);
  return j;
}

}  // namespace

void add_transport(Document& doc, const TransportResult& r) {
  nlohmann::json t = assessment_json(r.run);
  t["inter_node"] = r.inter_node ? nlohmann::json(*r.inter_node) : nlohmann::json(nullptr);
  t["inter_node_basis"] = r.inter_node_basis;
  t["net_forced_local"] = r.net_forced_local;
  t["health"] = health_json(r.health);
  t["env"] = r.env;
  t["env_redacted"] = core::redacted_names(r.env);
  t["evidence"] = nlohmann::json::array();
  for (const auto& e : r.evidence)
    t["evidence"].push_back({{"source", e.source}, {"host", e.host}, {"message", e.message}});
  t["per_host"] = nlohmann::json::array();
  for (const auto& h : r.per_host) {
    nlohmann::json j = assessment_json(h.assessment);
    j["host"] = h.host;
    j["nccl_version"] = h.nccl_version.empty() ? nlohmann::json(nullptr) : nlohmann::json(h.nccl_version);
    j["net_plugin"] = h.net_plugin.empty() ? nlohmann::json(nullptr) : nlohmann::json(h.net_plugin);
    j["processes"] = h.processes;
    j["connections"] = h.connections;
    j["nvls_channels"] = h.nvls_channels;
    j["net_devices"] = h.net_devices;
    j["socket_ifaces"] = h.socket_ifaces;
    j["errors_total"] = h.errors_total;
    j["health"] = h.health;
    j["errors"] = nlohmann::json::array();
    for (const auto& is : h.errors) {
      nlohmann::json e = {
          {"line", is.line}, {"kind", std::string(parse::name(is.kind))}, {"message", is.message}};
      if (!is.ibv_function.empty()) e["ibv_function"] = is.ibv_function;
      if (!is.error_text.empty()) e["error_text"] = is.error_text;
      if (is.kind == parse::NcclIssueKind::kCompletion) {
        e["status"] = is.status >= 0 ? nlohmann::json(is.status) : nlohmann::json(nullptr);
        e["status_name"] = is.status_name.empty() ? nlohmann::json(nullptr) : nlohmann::json(is.status_name);
      }
      j["errors"].push_back(std::move(e));
    }
    t["per_host"].push_back(std::move(j));
  }
  t["logs"] = nlohmann::json::array();
  for (const auto& l : r.logs) {
    const auto& s = l.stats;
    t["logs"].push_back({{"file", l.source},
                         {"bytes", s.bytes},
                         {"lines", s.lines},
                         {"nccl_lines", s.nccl_lines},
                         {"message_only_lines", s.message_only_lines},
                         {"foreign_lines", s.foreign_lines},
                         {"blank_lines", s.blank_lines},
                         {"skipped_lines", s.skipped_overlong + s.skipped_binary},
                         {"skipped_overlong", s.skipped_overlong},
                         {"skipped_binary", s.skipped_binary},
                         {"unparsed_lines", s.unparsed},
                         {"truncated", s.truncated},
                         {"processes", l.processes},
                         {"hosts", l.hosts}});
  }
  doc.json()["transport"] = std::move(t);
  for (const auto& f : r.findings) doc.add_finding(f);
  doc.set_section("transport", SectionStatus::kOk);
}

void update_transport(Document& doc, const TransportResult& previous, const TransportResult& r) {
  auto& fs = doc.json()["findings"];
  if (fs.is_array()) {
    for (const auto& f : previous.findings) {
      const nlohmann::json old = {{"severity", std::string(name(f.severity))},
                                  {"code", f.code},
                                  {"message", f.message},
                                  {"evidence", f.evidence},
                                  {"remedy", f.remedy}};
      for (auto it = fs.begin(); it != fs.end(); ++it)
        if (*it == old) {
          fs.erase(it);
          break;
        }
    }
  }
  add_transport(doc, r);
}

std::string render_transport(const TransportResult& r) {
  std::string out;
  const auto& a = r.run;
  // First line: what was attempted, and whether it worked (issue 18: a failed job is never "healthy").
  const std::string head = health_headline(r.health);
  out += fmt::format("transport verdict: {}{}\n", a.verdict,
                     head.empty() ? std::string(" (health ok)") : " \u2014 " + head);
  out += fmt::format("  network {}{}, link_layer {}, gdr {}, inter_node {}\n", a.network,
                     a.network_name.empty() ? "" : " (" + a.network_name + ")", a.link_layer.value_or("-"),
                     a.gdr,
                     !r.inter_node   ? "unknown"
                     : *r.inter_node ? "yes"
                                     : "no");
  out += "evidence:\n";
  for (const auto& e : r.evidence)
    out += fmt::format("  [{}]{} {}\n", e.source, e.host.empty() ? "" : " " + e.host + ":", e.message);
  out += fmt::format("\n{:<24} {:<9} {:<11} {:<8} {:<18} {:<22} {:>5} {:>5} {:>5} {:>6}\n", "host", "network",
                     "link_layer", "gdr", "verdict", "nccl", "p2p", "shm", "net", "errors");
  for (const auto& h : r.per_host) {
    auto cnt = [&](const char* k) {
      auto it = h.connections.find(k);
      return it == h.connections.end() ? 0 : it->second;
    };
    out +=
        fmt::format("{:<24} {:<9} {:<11} {:<8} {:<18} {:<22} {:>5} {:>5} {:>5} {:>6}\n", h.host.substr(0, 24),
                    h.assessment.network, h.assessment.link_layer.value_or("-"), h.assessment.gdr,
                    h.assessment.verdict, h.nccl_version.empty() ? "-" : h.nccl_version.substr(0, 22),
                    cnt("p2p"), cnt("shm"), cnt("net"), h.errors_total);
  }
  for (const auto& l : r.logs) {
    const auto& s = l.stats;
    out += fmt::format("log {}: {} lines, {} NCCL, {} prefix-less, {} foreign, {} skipped, {} unparsed{}\n",
                       l.source, s.lines, s.nccl_lines, s.message_only_lines, s.foreign_lines,
                       s.skipped_overlong + s.skipped_binary, s.unparsed, s.truncated ? ", truncated" : "");
  }
  if (!r.findings.empty()) {
    out += "findings:\n";
    for (const auto& f : r.findings)
      out += fmt::format("  {} {}: {}\n    remedy: {}\n", name(f.severity), f.code, f.message, f.remedy);
  }
  return out;
}

}  // namespace fabcheck::report
