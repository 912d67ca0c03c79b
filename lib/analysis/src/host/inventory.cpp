// Inventory section, its findings and console tables.
#include "fabcheck/report/inventory.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "transport/gdr_level.hpp"
#include "transport/gid_rules.hpp"
#include "pcie_findings.hpp"
#include "transport/socket_ifname.hpp"

namespace fabcheck::report {

using detail::gid_at;
using detail::judge_gid;
using model::HostInventory;
using model::RdmaDevice;
using model::RdmaPort;
using nlohmann::json;

namespace {

/// PXB: NCCL_NET_GDR_LEVEL default (src/graph/paths.cc ncclTopoCheckGdr); beyond it a GPU sits far from its
/// NIC (the placement finding), whatever the variable says.
constexpr int kPlacementMaxRank = 2;

double best_active_rate(const RdmaDevice& d) {
  double r = 0;
  for (const auto& p : d.ports)
    if (p.rate_gbit) r = std::max(r, *p.rate_gbit);
  return r;
}

std::optional<double> port_rate_any(const RdmaDevice& d) {
  // Rate of the device's ports for comparison with PCIe: ACTIVE rate when known.
  double r = best_active_rate(d);
  if (r > 0) return r;
  return std::nullopt;
}

bool peer_memory_seen(const HostInventory& h) {
  if (h.gdr.seen_by_this_nccl) return *h.gdr.seen_by_this_nccl;
  auto it = h.gdr.seen_by_nccl.find(">=2.23.4");
  return it != h.gdr.seen_by_nccl.end() && it->second;
}

std::string fmt_gts(double g) {
  return fmt::format("{:.1f} GT/s", g);
}

std::string fmt_num(double v) {
  return v == static_cast<long>(v) ? fmt::format("{}", static_cast<long>(v)) : fmt::format("{:.1f}", v);
}

void port_findings(const HostInventory& h, std::vector<Finding>& out) {
  for (const auto& d : h.rdma_devices)
    for (const auto& p : d.ports) {
      if (p.active()) continue;
      Finding f;
      f.severity = Severity::kWarn;
      f.code = "PORT_DOWN";
      std::string why;
      if (p.phys_state == "Polling") {
        why = "no link partner: cable, transceiver or switch port";
        f.remedy = fmt::format(
            "check the cable/transceiver and the switch port of {} port {} (ibstat {}; mlxlink -d {} -m)",
            d.name, p.port, d.name, d.name);
      } else if (p.phys_state == "Disabled") {
        why = "administratively disabled";
        f.remedy = fmt::format(
            "enable the port (ibportstate / ip link set <netdev> up) or leave {} out with NCCL_IB_HCA",
            d.name);
      } else {
        why = fmt::format("physical state {}", p.phys_state.empty() ? "unknown" : p.phys_state);
        f.remedy = fmt::format("bring {} port {} up (subnet manager for INIT/ARMED, cabling for link down)",
                               d.name, p.port);
      }
      f.message = fmt::format("{}: {} port {} is {} ({}); its rate '{}' is not a real link rate", h.host,
                              d.name, p.port, p.state.empty() ? "not ACTIVE" : p.state, why, p.rate_raw);
      f.evidence = {{"host", h.host},
                    {"device", d.name},
                    {"port", p.port},
                    {"state", p.state},
                    {"phys_state", p.phys_state},
                    {"link_layer", p.link_layer},
                    {"rate_ignored", p.rate_raw},
                    {"lid", p.lid}};
      out.push_back(std::move(f));
    }
}

void pcie_findings(const HostInventory& h, std::vector<Finding>& out) {
  for (const auto& d : h.rdma_devices) {
    if (!d.pci) continue;
    const auto& l = d.pci->link;
    if (!l.speed_below_cap && !l.width_below_cap) continue;
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "PCIE_DOWNTRAINED";
    std::string what;
    if (l.width_below_cap && !l.speed_below_cap)
      what = fmt::format("PCIe x{} of x{} at {}", *l.current_width, *l.cap_width, fmt_gts(*l.current_gts));
    else if (l.speed_below_cap && !l.width_below_cap)
      what = fmt::format("PCIe {} of {} x{}", fmt_gts(*l.current_gts), fmt_gts(*l.cap_gts), *l.current_width);
    else
      what = fmt::format("PCIe {} x{} of {} x{}", fmt_gts(*l.current_gts), *l.current_width,
                         fmt_gts(*l.cap_gts), *l.cap_width);
    std::string bw;
    if (l.current_gbit && l.cap_gbit)
      bw = fmt::format(": ~{:.0f} of ~{:.0f} Gb/s", *l.current_gbit, *l.cap_gbit);
    auto rate = port_rate_any(d);
    std::string vs;
    if (rate && l.current_gbit)
      vs = *l.current_gbit < *rate ? fmt::format(", below the {}G port", fmt_num(*rate))
                                   : fmt::format(" (still above the {}G port)", fmt_num(*rate));
    f.message = fmt::format("{}: {} {}{}{}", h.host, d.name, what, bw, vs);
    f.evidence = {{"host", h.host},
                  {"device", d.name},
                  {"bdf", d.pci->bdf},
                  {"current_link_speed_gts", *l.current_gts},
                  {"current_link_width", *l.current_width},
                  {"max_link_speed_gts", l.max_gts ? json(*l.max_gts) : json(nullptr)},
                  {"max_link_width", l.max_width ? json(*l.max_width) : json(nullptr)},
                  {"parent_max_link_speed_gts", l.parent_max_gts ? json(*l.parent_max_gts) : json(nullptr)},
                  {"parent_max_link_width", l.parent_max_width ? json(*l.parent_max_width) : json(nullptr)},
                  {"current_gbit", l.current_gbit ? json(*l.current_gbit) : json(nullptr)},
                  {"cap_gbit", l.cap_gbit ? json(*l.cap_gbit) : json(nullptr)},
                  {"port_rate_gbit", rate ? json(*rate) : json(nullptr)}};
    f.remedy =
        "reseat the card or move it to a full-width slot; check BIOS slot settings (lspci -vv LnkSta, dmesg "
        "'available PCIe bandwidth')";
    out.push_back(std::move(f));
  }
  // GPUs: judge width only (idle GPUs drop link speed).
  for (const auto& g : h.gpus) {
    const auto& l = g.pci.link;
    if (!l.width_below_cap) continue;
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "PCIE_DOWNTRAINED";
    f.message = fmt::format("{}: GPU{} ({}) PCIe x{} of x{}", h.host, g.index, g.pci.bdf, *l.current_width,
                            *l.cap_width);
    f.evidence = {{"host", h.host},
                  {"gpu", g.index},
                  {"bdf", g.pci.bdf},
                  {"current_link_width", *l.current_width},
                  {"cap_width", *l.cap_width}};
    f.remedy = "reseat the GPU / check the riser; the speed of an idle GPU may drop, its width must not";
    out.push_back(std::move(f));
  }
}

void placement_findings(const HostInventory& h, std::vector<Finding>& out) {
  auto rails = gpu_rails(h);
  if (rails.empty()) return;
  std::map<std::string, std::vector<int>> by_nic;
  for (const auto& r : rails) by_nic[r.nic].push_back(r.gpu);
  for (const auto& [nic, gpus] : by_nic) {
    if (gpus.size() < 2) continue;
    const RdmaDevice* d = model::find_rdma_device(h, nic);
    double rate = d ? best_active_rate(*d) : 0;
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "NIC_SHARED";
    std::string share = rate > 0
                            ? fmt::format(": ~{} Gb/s per GPU of its {} Gb/s",
                                          fmt_num(rate / static_cast<double>(gpus.size())), fmt_num(rate))
                            : "";
    f.message = fmt::format("{}: {} GPUs (GPU{}) share {} ({}:1){}; not rail-optimized", h.host, gpus.size(),
                            fmt::join(gpus, ", GPU"), nic, gpus.size(), share);
    f.evidence = {{"host", h.host},
                  {"nic", nic},
                  {"gpus", gpus},
                  {"ratio", fmt::format("{}:1", gpus.size())},
                  {"nic_rate_gbit", rate > 0 ? json(rate) : json(nullptr)},
                  {"per_gpu_gbit", rate > 0 ? json(rate / static_cast<double>(gpus.size())) : json(nullptr)}};
    f.remedy = "expect 1/" + std::to_string(gpus.size()) +
               " of the NIC's bandwidth per GPU in inter-node collectives; one NIC per GPU (rail-optimized) "
               "avoids it";
    out.push_back(std::move(f));
  }
  std::vector<std::string> far;
  json ev = json::array();
  for (const auto& r : rails) {
    if (model::distance_rank(r.level) <= kPlacementMaxRank) continue;
    far.push_back(fmt::format("GPU{} {} {}", r.gpu, r.level, r.nic));
    ev.push_back({{"gpu", r.gpu}, {"nic", r.nic}, {"level", r.level}});
  }
  if (!far.empty()) {
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "NIC_GPU_AFFINITY";
    const auto limit = detail::gdr_level_limit(h.env);
    const std::string gdr =
        limit.max_rank > kPlacementMaxRank
            ? limit.source + " keeps GPUDirect RDMA on across the host bridge, where it is usually slower"
            : "NCCL turns GPUDirect RDMA off beyond PXB";
    f.message = fmt::format(
        "{}: {} GPU(s) reach their nearest RDMA NIC only through the CPU ({}): {} and the traffic crosses "
        "the "
        "host bridge{}",
        h.host, far.size(), fmt::join(far, "; "), gdr,
        std::any_of(rails.begin(), rails.end(), [](const GpuRail& r) { return r.level == "SYS"; })
            ? " and the inter-socket link"
            : "");
    f.evidence = {{"host", h.host},
                  {"gpus", ev},
                  {"gdr_level_default", "PXB"},
                  {"gdr_level", limit.level},
                  {"gdr_level_source", limit.source}};
    f.remedy =
        "put a NIC under each GPU's PCIe switch, or bind each rank to the GPU nearest its NIC "
        "(NCCL_NET_GDR_LEVEL=SYS forces GDR across the CPU, usually slower)";
    out.push_back(std::move(f));
  }
}

std::optional<int> env_int(const HostInventory& h, const char* key) {
  auto it = h.env.find(key);
  if (it == h.env.end() || it->second.empty()) return std::nullopt;
  char* end = nullptr;
  long v = std::strtol(it->second.c_str(), &end, 10);
  if (*end != '\0' || v < 0) return std::nullopt;
  return static_cast<int>(v);
}

void gid_findings(const HostInventory& h, std::vector<Finding>& out) {
  auto cfg = env_int(h, "NCCL_IB_GID_INDEX");
  for (const auto& d : h.rdma_devices)
    for (const auto& p : d.ports) {
      if (p.link_layer != "Ethernet" || !p.active()) continue;
      std::string fix =
          p.rocev2_gid_index
              ? fmt::format("set NCCL_IB_GID_INDEX={} (the routable RoCE v2 GID of {} port {})",
                            *p.rocev2_gid_index, d.name, p.port)
              : fmt::format("give {}'s netdev a routable IPv4/IPv6 address so a RoCE v2 GID appears", d.name);
      json ev = {{"host", h.host},
                 {"device", d.name},
                 {"port", p.port},
                 {"rocev2_gid_index", p.rocev2_gid_index ? json(*p.rocev2_gid_index) : json(nullptr)}};
      if (cfg) {
        auto verdict = judge_gid(p, *cfg);
        if (verdict == "ok") continue;
        const auto* g = gid_at(p, *cfg);
        ev["NCCL_IB_GID_INDEX"] = *cfg;
        ev["slot"] = g ? json({{"gid", g->gid}, {"type", g->type}, {"netdev", g->netdev}}) : json("empty");
        Finding f;
        f.severity = Severity::kWarn;
        f.evidence = ev;
        f.remedy = fix;
        if (verdict == "link_local") {
          f.code = "GID_LINK_LOCAL";
          f.message = fmt::format(
              "{}: NCCL_IB_GID_INDEX={} on {} port {} is a link-local RoCE v2 GID ({}): it routes "
              "only inside one L2 segment",
              h.host, *cfg, d.name, p.port, g->gid);
        } else {
          f.code = "GID_INDEX_NOT_ROCEV2";
          f.message = verdict == "empty"
                          ? fmt::format("{}: NCCL_IB_GID_INDEX={} on {} port {} is an empty GID slot", h.host,
                                        *cfg, d.name, p.port)
                          : fmt::format("{}: NCCL_IB_GID_INDEX={} on {} port {} is a {} GID, not RoCE v2",
                                        h.host, *cfg, d.name, p.port, g->type.empty() ? "typeless" : g->type);
        }
        out.push_back(std::move(f));
      } else if (!p.rocev2_gid_index) {
        bool any_v2 =
            std::any_of(p.gids.begin(), p.gids.end(), [](const auto& g) { return g.type == "RoCE v2"; });
        if (!any_v2) continue;  // RoCE v1 only: nothing routable to choose from either way
        Finding f;
        f.severity = Severity::kWarn;
        f.code = "GID_LINK_LOCAL";
        f.message = fmt::format(
            "{}: {} port {} has only link-local RoCE v2 GIDs (fe80::): RoCE traffic cannot cross "
            "an L3 boundary",
            h.host, d.name, p.port);
        f.evidence = ev;
        f.remedy = fix;
        out.push_back(std::move(f));
      }
    }
}

void gid_tables_differ(const model::InventoryResult& r, std::vector<Finding>& out) {
  if (r.hosts.size() < 2) return;
  std::map<std::string, std::vector<std::string>> by_value;  // configured value → hosts
  std::vector<std::string> works, fails;
  std::map<std::string, std::map<std::string, std::string>> idx;  // device → host → rocev2 index
  bool any_roce = false;
  for (const auto& h : r.hosts) {
    auto it = h.env.find("NCCL_IB_GID_INDEX");
    by_value[it == h.env.end() ? std::string("(unset)") : it->second].push_back(h.host);
    auto cfg = env_int(h, "NCCL_IB_GID_INDEX");
    bool host_roce = false, host_ok = true;
    for (const auto& d : h.rdma_devices)
      for (const auto& p : d.ports) {
        if (p.link_layer != "Ethernet" || !p.active()) continue;
        host_roce = any_roce = true;
        idx[d.name][h.host] = p.rocev2_gid_index ? std::to_string(*p.rocev2_gid_index) : "none";
        if (cfg && judge_gid(p, *cfg) != "ok") host_ok = false;
      }
    if (host_roce && cfg) (host_ok ? works : fails).push_back(h.host);
  }
  if (!any_roce) return;
  json values = json::object();
  for (const auto& [v, hs] : by_value) values[v] = hs;
  json tables = json::object();
  for (const auto& [d, m] : idx) tables[d] = m;
  bool configured = by_value.size() > 1 || by_value.begin()->first != "(unset)";
  Finding f;
  f.code = "GID_TABLES_DIFFER";
  f.evidence = {{"NCCL_IB_GID_INDEX", values}, {"rocev2_gid_index", tables}};
  if (by_value.size() > 1) {
    f.severity = Severity::kWarn;
    std::vector<std::string> parts;
    for (const auto& [v, hs] : by_value) parts.push_back(fmt::format("{} on {}", v, fmt::join(hs, ",")));
    f.message = fmt::format("hosts disagree on NCCL_IB_GID_INDEX ({})", fmt::join(parts, "; "));
    f.remedy =
        "export one NCCL_IB_GID_INDEX to every rank (mpirun -x) that is the routable RoCE v2 GID on all "
        "hosts";
  } else if (configured && !works.empty() && !fails.empty()) {
    f.severity = Severity::kWarn;
    f.message = fmt::format(
        "NCCL_IB_GID_INDEX={} is a routable RoCE v2 GID on {} but not on {}: the hosts' GID "
        "tables differ",
        by_value.begin()->first, fmt::join(works, ","), fmt::join(fails, ","));
    // Unset is a remedy on NCCL >= 2.21 only (automatic selection, v2.21.5-1 src/transport/net_ib.cc:80);
    // up to 2.20 unset means index 0 (v2.20.5-1 src/transport/net_ib.cc:80).
    f.remedy =
        "set NCCL_IB_GID_INDEX per host (each host's /etc/nccl.conf) or make the GID tables equal; leave it "
        "unset only on NCCL >= 2.21, which selects the RoCE v2 GID per host (older NCCL then uses index 0)";
  } else if (!configured) {
    bool differ = false;
    for (const auto& [d, m] : idx) {
      std::set<std::string> vals;
      for (const auto& [hh, v] : m) vals.insert(v);
      if (vals.size() > 1) differ = true;
    }
    if (!differ) return;
    f.severity = Severity::kInfo;
    f.message =
        "the routable RoCE v2 GID sits at different indexes on different hosts: no single NCCL_IB_GID_INDEX "
        "fits all";
    f.remedy =
        "on NCCL >= 2.21 leave NCCL_IB_GID_INDEX unset (it selects per host); older NCCL uses index 0 when "
        "it "
        "is unset: set it per host (each host's /etc/nccl.conf)";
  } else {
    return;
  }
  out.push_back(std::move(f));
}

void mpi_findings(const HostInventory& h, std::vector<Finding>& out) {
  const auto& m = h.mpi_config;
  bool ucx_out = std::any_of(m.rdma_excluded.begin(), m.rdma_excluded.end(),
                             [](const std::string& s) { return s.rfind("pml ", 0) == 0; });
  if (ucx_out) {
    const bool rdma = h.rdma_status == "present";
    Finding f;
    f.severity = rdma ? Severity::kWarn : Severity::kInfo;
    f.code = "MPI_RDMA_EXCLUDED";
    std::vector<std::string> what;
    std::set<std::string> from;
    for (const char* fw : {"pml", "btl", "mtl", "osc"}) {
      auto e = m.effective.find(fw);
      if (e == m.effective.end()) continue;
      if (std::none_of(m.rdma_excluded.begin(), m.rdma_excluded.end(),
                       [&](const std::string& x) { return x.rfind(std::string(fw) + " ", 0) == 0; }))
        continue;
      what.push_back(fmt::format("{} = {}", fw, e->second));
      if (m.origin.count(fw)) from.insert(m.origin.at(fw));
    }
    f.message = fmt::format(
        "{}: Open MPI's MCA parameters exclude the RDMA components ({}; from {}): MPI runs over TCP{}",
        h.host, fmt::join(what, ", "), fmt::join(from, ", "),
        rdma ? " although RDMA devices are present" : " (no RDMA hardware here, so nothing is lost now)");
    json files = json::array();
    for (const auto& file : m.files) files.push_back(file.path);
    f.evidence = {{"host", h.host}, {"excluded", m.rdma_excluded}, {"files", files}};
    f.remedy =
        "on RDMA hosts run with --mca pml ucx (or export OMPI_MCA_pml=ucx), or drop the '^ucx' line from the "
        "file";
    out.push_back(std::move(f));
  }
  for (auto& f : detail::socket_ifname_from_mca(h)) out.push_back(std::move(f));
}

void gdr_findings(const HostInventory& h, std::vector<Finding>& out) {
  if (h.rdma_devices.empty() || h.gpus.empty()) return;
  const auto& g = h.gdr;
  if (!g.nvidia_peermem_loaded && !g.nv_peer_mem_loaded) return;  // nothing loaded: not "loaded but unseen"
  std::vector<std::string> blind;
  for (const auto& [range, seen] : g.seen_by_nccl)
    if (!seen) blind.push_back(range);
  bool known = g.seen_by_this_nccl.has_value();
  if (known ? *g.seen_by_this_nccl : blind.empty()) return;
  Finding f;
  f.code = "GDR_MODULE_NOT_SEEN";
  f.severity = (known || blind.size() == g.seen_by_nccl.size()) ? Severity::kWarn : Severity::kInfo;
  std::string mod = g.nvidia_peermem_loaded ? "nvidia_peermem" : "nv_peer_mem";
  f.message =
      known ? fmt::format(
                  "{}: {} is loaded but NCCL {} looks only where it is not registered (present: {})", h.host,
                  mod, g.nccl_version,
                  g.paths_present.empty() ? "none" : fmt::format("{}", fmt::join(g.paths_present, ", ")))
            : fmt::format(
                  "{}: {} is loaded but NCCL releases {} would not see it (present: {})", h.host, mod,
                  fmt::join(blind, ", "),
                  g.paths_present.empty() ? "none" : fmt::format("{}", fmt::join(g.paths_present, ", ")));
  f.evidence = {{"host", h.host},
                {"module", mod},
                {"module_version", g.module_version},
                {"paths_present", g.paths_present},
                {"seen_by_nccl", g.seen_by_nccl},
                {"nccl_version", g.nccl_version.empty() ? json(nullptr) : json(g.nccl_version)}};
  f.remedy =
      "use NCCL >= 2.23.4 (it checks /sys/module/nvidia_peermem/version) or load nvidia_peermem built "
      "against "
      "MLNX_OFED/DOCA so /sys/kernel/mm/memory_peers/nv_mem exists; or use DMA-BUF (kernel >= 5.12, NCCL >= "
      "2.13)";
  out.push_back(std::move(f));
}

std::string pcie_text(const std::optional<model::PciLocation>& p) {
  if (!p || !p->link.current_gts || !p->link.current_width) return "-";
  std::string s = fmt::format("{:g}GT/s x{}", *p->link.current_gts, *p->link.current_width);
  if (p->link.speed_below_cap || p->link.width_below_cap)
    s += fmt::format(" (cap {:g}x{})", p->link.cap_gts.value_or(0), p->link.cap_width.value_or(0));
  return s;
}

}  // namespace

std::vector<GpuRail> gpu_rails(const HostInventory& h) {
  std::vector<GpuRail> out;
  bool peer = peer_memory_seen(h);
  const auto limit = detail::gdr_level_limit(h.env);
  for (const auto& g : h.gpus) {
    const model::GpuNicDistance* best = nullptr;
    double best_rate = -1;
    std::vector<const model::GpuNicDistance*> mine;
    for (const auto& d : h.distances) {
      if (d.gpu != g.index) continue;
      mine.push_back(&d);
      const RdmaDevice* dev = model::find_rdma_device(h, d.nic);
      double rate = dev ? best_active_rate(*dev) : 0;
      int rk = model::distance_rank(d.level);
      if (!best || rk < model::distance_rank(best->level) ||
          (rk == model::distance_rank(best->level) &&
           (rate > best_rate || (rate == best_rate && d.nic < best->nic)))) {
        best = &d;
        best_rate = rate;
      }
    }
    if (!best) continue;
    GpuRail r;
    r.gpu = g.index;
    r.nic = best->nic;
    r.level = best->level;
    for (const auto* d : mine)
      if (d != best && d->level == best->level) r.ties.push_back(d->nic);
    const RdmaDevice* nic = model::find_rdma_device(h, r.nic);
    const bool nic_up = nic && std::any_of(nic->ports.begin(), nic->ports.end(),
                                           [](const RdmaPort& p) { return p.active(); });
    if (model::distance_rank(r.level) > limit.max_rank)
      r.gdr_blocked_by = limit.from_env() ? limit.source : "distance";
    else if (!peer)
      r.gdr_blocked_by = "no peer memory";
    else if (!nic_up)
      r.gdr_blocked_by = "NIC port down";
    else if (auto acs = detail::acs_redirect_bridges(h, r); !acs.empty())
      r.gdr_blocked_by = "ACS " + acs.front()->bdf;
    r.gdr_eligible = r.gdr_blocked_by.empty();
    out.push_back(std::move(r));
  }
  return out;
}

std::string gdr_summary(const HostInventory& h) {
  if (h.rdma_devices.empty()) return "not applicable: no RDMA device";
  if (h.gpus.empty()) return "not applicable: no GPU";
  if (peer_memory_seen(h)) {
    std::string p;
    for (const auto& x : h.gdr.paths_present) p += (p.empty() ? "" : ", ") + x;
    return "peer memory: " + p;
  }
  if (h.gdr.nvidia_peermem_loaded || h.gdr.nv_peer_mem_loaded)
    return "peer-memory module loaded but not where NCCL looks";
  return "no peer-memory module (DMA-BUF may still work: kernel >= 5.12, CUDA >= 11.7, NCCL >= 2.13)";
}

std::vector<Finding> inventory_findings(const model::InventoryResult& r) {
  std::vector<Finding> out;
  for (const auto& h : r.hosts) {
    port_findings(h, out);
    pcie_findings(h, out);
    placement_findings(h, out);
    gid_findings(h, out);
    gdr_findings(h, out);
    mpi_findings(h, out);
    const auto rails = gpu_rails(h);
    detail::pcie_path_findings(h, rails, out);
    detail::gdr_level_findings(h, rails, out);
    detail::rank_binding_findings(h, rails, out);
    detail::rdma_host_findings(h, out);
    detail::roce_qos_findings(h, out);
  }
  gid_tables_differ(r, out);
  detail::host_consistency_findings(r, out);
  return out;
}

void add_inventory(Document& doc, const model::InventoryResult& r) {
  json hosts = json::array();
  for (const auto& h : r.hosts) {
    json j = json::parse(model::to_json_text(h));
    json rails = json::array();
    for (const auto& x : gpu_rails(h))
      rails.push_back(
          {{"gpu", x.gpu},
           {"nic", x.nic},
           {"level", x.level},
           {"ties", x.ties},
           {"gdr_eligible", x.gdr_eligible},
           {"gdr_blocked_by", x.gdr_blocked_by.empty() ? json(nullptr) : json(x.gdr_blocked_by)}});
    j["rails"] = rails;
    j["gdr"]["summary"] = gdr_summary(h);
    hosts.push_back(std::move(j));
  }
  doc.json()["inventory"] = {{"hosts", hosts}};
  if (r.hosts.empty())
    doc.set_section("inventory", SectionStatus::kSkipped, "no host inventory was collected");
  else
    doc.set_section("inventory", SectionStatus::kOk);
  for (const auto& f : inventory_findings(r)) doc.add_finding(f);
}

std::vector<HostRdmaEvidence> rdma_evidence(const model::InventoryResult& r) {
  std::vector<HostRdmaEvidence> out;
  for (const auto& h : r.hosts) {
    HostRdmaEvidence e;
    e.host = h.host;
    int ib = 0, roce = 0;
    std::set<std::string> netdevs;
    for (const auto& d : h.rdma_devices) {
      e.rdma_devices.push_back(d.name);
      for (const auto& p : d.ports) {
        if (!p.active()) continue;
        ++e.active_ports;
        if (p.rate_gbit && (!e.link_rate_gbit || *p.rate_gbit > *e.link_rate_gbit))
          e.link_rate_gbit = p.rate_gbit;
        (p.link_layer == "InfiniBand" ? ib : roce) +=
            p.link_layer == "InfiniBand" || p.link_layer == "Ethernet";
        for (const auto& g : p.gids)
          if (!g.netdev.empty()) netdevs.insert(g.netdev);
      }
    }
    for (const auto& n : h.net_interfaces)
      if (!n.rdma_device.empty()) netdevs.insert(n.name);
    e.rdma_netdevs.assign(netdevs.begin(), netdevs.end());
    e.link_layer = ib > roce ? "InfiniBand" : roce > ib ? "RoCE" : "";
    if (h.verbs.status == "unavailable") e.verbs_error = h.verbs.error_text;
    if (!h.gpus.empty()) e.gdr_module = peer_memory_seen(h);
    e.env = h.env;
    e.mpi_rdma_excluded = std::any_of(h.mpi_config.rdma_excluded.begin(), h.mpi_config.rdma_excluded.end(),
                                      [](const std::string& s) { return s.rfind("pml ", 0) == 0; });
    out.push_back(std::move(e));
  }
  return out;
}

std::string render_inventory(const model::InventoryResult& r) {
  std::string s;
  for (const auto& h : r.hosts) {
    s += fmt::format("host {}: rdma {}{}; {} GPU(s); GPUDirect: {}\n", h.host, h.rdma_status,
                     h.rdma_reason.empty() ? fmt::format(" ({} device(s))", h.rdma_devices.size())
                                           : fmt::format(" ({})", h.rdma_reason),
                     h.gpus.size(), gdr_summary(h));
    if (!h.rdma_devices.empty()) {
      s += fmt::format("  {:<12} {:>4} {:<8} {:<10} {:<10} {:>9} {:>5} {:>4}  {:<22} {:>6}  {}\n", "device",
                       "port", "state", "phys", "link_layer", "rate_gbit", "mtu", "numa", "pcie", "v2_gid",
                       "netdev");
      for (const auto& d : h.rdma_devices)
        for (const auto& p : d.ports) {
          const std::string nd = model::port_netdev(d, p);
          s += fmt::format("  {:<12} {:>4} {:<8} {:<10} {:<10} {:>9} {:>5} {:>4}  {:<22} {:>6}  {}\n", d.name,
                           p.port, p.state, p.phys_state, p.link_layer == "Ethernet" ? "RoCE" : p.link_layer,
                           p.rate_gbit ? fmt_num(*p.rate_gbit) : "-", p.mtu ? std::to_string(*p.mtu) : "-",
                           d.pci && d.pci->numa_node ? std::to_string(*d.pci->numa_node) : "-",
                           pcie_text(d.pci), p.rocev2_gid_index ? std::to_string(*p.rocev2_gid_index) : "-",
                           nd.empty() ? "-" : nd);
        }
    }
    auto rails = gpu_rails(h);
    if (!h.gpus.empty()) {
      s += fmt::format("  {:<5} {:<13} {:>4}  {:<22} {:<12} {:<5} {}\n", "gpu", "bdf", "numa", "pcie", "nic",
                       "level", "gdr");
      for (const auto& g : h.gpus) {
        const GpuRail* rr = nullptr;
        for (const auto& x : rails)
          if (x.gpu == g.index) rr = &x;
        std::optional<model::PciLocation> loc = g.pci;
        s += fmt::format(
            "  GPU{:<2} {:<13} {:>4}  {:<22} {:<12} {:<5} {}\n", g.index, g.pci.bdf,
            g.pci.numa_node ? std::to_string(*g.pci.numa_node) : "-", pcie_text(loc),
            rr ? rr->nic + (rr->ties.empty() ? "" : "+") : "-", rr ? rr->level : "-",
            rr ? (rr->gdr_eligible ? std::string("yes") : "no (" + rr->gdr_blocked_by + ")") : "-");
      }
    }
    s += fmt::format("  verbs: {}{}\n", h.verbs.status,
                     h.verbs.error_text.empty() ? "" : " (" + h.verbs.error_text + ")");
    if (!h.mpi_config.rdma_excluded.empty())
      s += fmt::format("  mpi: {}\n", fmt::join(h.mpi_config.rdma_excluded, "; "));
    if (!h.env.empty()) {
      std::vector<std::string> kv;
      for (const auto& [k, v] : h.env) kv.push_back(k + "=" + v);
      s += fmt::format("  env: {}\n", fmt::join(kv, " "));
    }
  }
  return s;
}

}  // namespace fabcheck::report
