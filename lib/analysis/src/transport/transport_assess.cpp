// The transport verdict of one scope, the run or one host (DESIGN §5): network, positive RDMA hardware
// evidence and fallback causes, the MPI signature's lines, link layer, GPUDirect RDMA, why sockets, and the
// verdict by precedence. Evidence strength: NCCL log > inventory > signature.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "transport_internal.hpp"

namespace fabcheck::report::detail {

using parse::NcclTransportKind;

namespace {

// Appends evidence lines when the caller keeps them (the run's scope), drops them otherwise (a host's).
struct Sink {
  std::vector<EvidenceLine>* ev = nullptr;
  void operator()(const std::string& src, const std::string& host, const std::string& msg) const {
    if (ev) ev->push_back({src, host, msg});
  }
};

// What the scope's evidence says of RDMA hardware: positive lines (an HCA listed, an IB plugin that came up,
// an ACTIVE port...), the lines that explain a fallback, and whether an inventory looked and found none.
struct HwEvidence {
  std::vector<EvidenceLine> positive, causes;
  bool inspected = false, none = true;
};

// Why sockets, strongest first; `cause` is the report's `cause` value.
struct SocketCause {
  bool libibverbs_missing = false, no_device = false, plugin_down = false;
  std::string cause;
};

// The network: the NCCL log's classes (a socket process anywhere limits the job), else the MPI signature.
void assess_network(const Scope& s, const Ctx& ctx, TransportAssessment& a, const Sink& add) {
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
}

// Positive RDMA hardware evidence and fallback causes from the NCCL log's processes.
void nccl_hardware_lines(const Scope& s, HwEvidence& found) {
  for (const Proc* pr : s.procs) {
    const auto& p = *pr->p;
    std::string h = host_label(p.host);
    if (!p.ib_devices.empty()) {
      std::string devs;
      for (const auto& d : p.ib_devices)
        devs +=
            fmt::format(" [{}]{}:{}/{}", d.index, d.name, d.port, d.link_layer.empty() ? "?" : d.link_layer);
      found.positive.push_back({"nccl_log", h, "HCA listed by NCCL: NET/IB : Using" + devs});
    }
    // An installed plugin is not hardware: it counts only when it came up.
    if (plugin_failed(p)) {
      if (!p.net_plugin.empty() || !p.net_plugin_path.empty())
        found.causes.push_back(
            {"nccl_log", h,
             "net plugin " + (p.net_plugin.empty() ? p.net_plugin_path : p.net_plugin) +
                 " loaded but did not come up (no device / init failed): not evidence of RDMA "
                 "hardware"});
    } else if (!p.net_plugin.empty() && classify_network(p.net_plugin) == "ib_verbs") {
      found.positive.push_back({"nccl_log", h,
                                "IB net plugin loaded: " + p.net_plugin +
                                    (p.net_plugin_path.empty() ? "" : " (" + p.net_plugin_path + ")")});
    } else if (p.net_plugin_path.find("rdma") != std::string::npos ||
               p.net_plugin_path.find("sharp") != std::string::npos) {
      found.positive.push_back({"nccl_log", h, "IB net plugin loaded: " + p.net_plugin_path});
    }
    for (const auto& is : p.issues)
      if (is.kind == parse::NcclIssueKind::kPlugin && is.message.rfind("NET/OFI", 0) == 0 &&
          (is.message.find(" domain ") != std::string::npos ||
           is.message.find("GDR-supported instance") != std::string::npos)) {
        // aws-ofi-nccl opened a libfabric domain (an EFA device) before failing: the hardware is there.
        found.positive.push_back(
            {"nccl_log", h, fmt::format("line {}: {}", is.line, is.message.substr(0, 160))});
        break;
      }
    if (!p.ofi_provider.empty() && !ofi_provider_is_socket(p.ofi_provider))
      found.positive.push_back(
          {"nccl_log", h,
           "libfabric RDMA provider selected: NET/OFI Selected Provider is " + p.ofi_provider});
    std::set<std::string> seen;
    for (const auto* list : {&p.bootstrap_ifaces, &p.socket_ifaces, &p.oob_ifaces})
      for (const auto& f : *list)
        if (is_ipoib_or_roce_netdev(f.name) && seen.insert(f.name).second)
          found.positive.push_back(
              {"nccl_log", h, "IPoIB/RoCE netdev in use by NCCL sockets: " + f.name + ":" + f.address});
    if (p.ib_no_device) found.causes.push_back({"nccl_log", h, "NET/IB : No device found."});
    if (p.ib_init_failed) found.causes.push_back({"nccl_log", h, "Failed to initialize NET plugin IB"});
    if (p.libibverbs_missing)
      found.causes.push_back({"nccl_log", h, "Failed to open libibverbs.so (rdma-core missing)"});
    for (const auto& is : p.issues)
      if (is.kind == parse::NcclIssueKind::kPlugin || is.kind == parse::NcclIssueKind::kNetworkNotFound)
        found.causes.push_back({"nccl_log", h, fmt::format("line {}: {}", is.line, is.message)});
  }
}

// Positive RDMA hardware evidence from the inventory; its "no RDMA device" and MPI-exclusion lines.
void inventory_hardware_lines(const Scope& s, HwEvidence& found, const Sink& add) {
  for (const HostRdmaEvidence* e : s.hw) {
    found.inspected = true;
    if (e->active_ports > 0)
      found.positive.push_back({"inventory", e->host,
                                fmt::format("{} ACTIVE RDMA port(s) ({})", e->active_ports,
                                            e->link_layer.empty() ? "link layer unknown" : e->link_layer)});
    else if (!e->rdma_devices.empty())
      found.positive.push_back(
          {"inventory", e->host,
           fmt::format("RDMA device(s) listed: {} (no ACTIVE port)", fmt::join(e->rdma_devices, ", "))});
    if (!e->rdma_netdevs.empty())
      found.positive.push_back(
          {"inventory", e->host, fmt::format("IPoIB/RoCE netdev(s): {}", fmt::join(e->rdma_netdevs, ", "))});
    if (!e->rdma_devices.empty() || e->active_ports > 0 || !e->rdma_netdevs.empty()) found.none = false;
    if (e->rdma_devices.empty() && e->active_ports == 0)
      add("inventory", e->host,
          "no RDMA device" +
              (e->verbs_error.empty() ? std::string() : " (libibverbs: " + e->verbs_error + ")"));
    if (e->mpi_rdma_excluded)
      add("mpi_config", e->host,
          "Open MPI MCA parameter files exclude the RDMA components (ucx/openib): MPI uses TCP");
  }
}

// The MPI signature lines: one per host pair, at most kMaxSignatureLines of them (n hosts give n(n-1)/2
// pairs): the pairs of the least common class first, then a count of every class.
void signature_lines(const Scope& s, const Ctx& ctx, const Sink& add) {
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

// The link layer of an IB verbs network: the devices NET/IB connections used, else the device list, else
// per-QP LID/GID lines, else the inventory's ACTIVE ports.
void assess_link_layer(const Scope& s, TransportAssessment& a, const Sink& add) {
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
}

// GPUDirect RDMA: per NET connection line, else per HCA, else per GPU/HCA pair, else the rings line.
void assess_gdr(const Scope& s, TransportAssessment& a, bool hw_none, const Sink& add) {
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
}

// Why sockets: what the log can support, strongest first.
SocketCause socket_cause(const Scope& s, const Ctx& ctx, const HwEvidence& found) {
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
  std::string cause = ctx.configured                                 ? "user_disabled"
                      : libibverbs_missing                           ? "libibverbs_missing"
                      : plugin_error                                 ? "plugin_failed"
                      : no_device || (found.inspected && found.none) ? "no_device"
                      : plugin_down                                  ? "plugin_failed"
                      : ports_down                                   ? "ports_down"
                                                                     : "unknown";
  return {libibverbs_missing, no_device, plugin_down, cause};
}

// The verdict by DESIGN §5 precedence, and its cause where sockets carried (or would carry) the traffic.
void decide_verdict(const Scope& s, const Ctx& ctx, const HwEvidence& found, const SocketCause& why,
                    TransportAssessment& a, const Sink& add) {
  bool pos = !found.positive.empty();
  if (ctx.inter_node == false && !ctx.forced) {
    a.verdict = "intra_node_only";
  } else if (ctx.configured && (a.network == "socket" || a.network == "none")) {
    a.verdict = "socket_configured";
    add("env", s.host, ctx.configured_by);
  } else if (a.network == "socket") {
    // Software missing is not hardware missing: with libibverbs absent NCCL could not look; and
    // `no_rdma_hardware` needs NCCL to have looked and found none (No device found, IB init failed, the
    // inventory) — a log that never shows the IB probe supports only `unknown`.
    const bool looked = why.no_device || why.plugin_down || (found.inspected && found.none);
    a.verdict = pos                                            ? "socket_fallback"
                : why.cause == "libibverbs_missing" || !looked ? "unknown"
                                                               : "no_rdma_hardware";
  } else if (a.network == "ib_verbs" || a.network == "ofi") {
    // `rdma` needs traffic between hosts attested (or same-host peers forced onto NET): IB chosen with no
    // NET connection line, no nNodes > 1 and one host's lines says nothing about the fabric.
    if (ctx.inter_node == true || ctx.forced)
      a.verdict = a.gdr == "off" ? "rdma_no_gdr" : "rdma";
    else
      add("nccl_log", s.host,
          "verdict unknown: " + a.network + " was chosen, but no line attests traffic between hosts");
  } else {
    bool log_no_device = why.no_device || why.plugin_down;
    if (!pos && ((found.inspected && found.none) || log_no_device) && !why.libibverbs_missing)
      a.verdict = "no_rdma_hardware";
  }
  if (a.verdict == "socket_fallback" || a.verdict == "socket_configured" || a.verdict == "no_rdma_hardware" ||
      (a.verdict == "unknown" && why.libibverbs_missing && a.network != "ib_verbs" && a.network != "ofi"))
    a.cause = why.cause;
}

}  // namespace

TransportAssessment assess(const Scope& s, const Ctx& ctx, std::vector<EvidenceLine>* ev) {
  TransportAssessment a;
  const Sink add{ev};
  assess_network(s, ctx, a, add);
  HwEvidence found;
  nccl_hardware_lines(s, found);
  inventory_hardware_lines(s, found, add);
  signature_lines(s, ctx, add);
  assess_link_layer(s, a, add);
  assess_gdr(s, a, found.none, add);
  decide_verdict(s, ctx, found, socket_cause(s, ctx, found), a, add);
  if (ev) {
    if (a.verdict == "socket_fallback" || a.verdict == "no_rdma_hardware" ||
        a.verdict == "socket_configured") {
      for (auto& c : found.causes) ev->push_back(c);
    }
    for (auto& p : found.positive) ev->push_back(p);
  }
  return a;
}

}  // namespace fabcheck::report::detail
