// PCIe path, IOMMU and GPUDirect findings of one host (pcie_findings.hpp).
#include "pcie_findings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace fabcheck::report::detail {

using model::HostInventory;
using nlohmann::json;

namespace {

/// PCI_ACS_RR | PCI_ACS_CR | PCI_ACS_EC (include/uapi/linux/pci_regs.h): the ACS controls that send a
/// peer-to-peer request or completion upstream, or block it, instead of across the switch (PCIe r5.0
/// §6.12.1.1, §7.7.8.3). Source Validation, Translation Blocking and Upstream Forwarding alone leave P2P
/// direct.
constexpr int kAcsP2pRedirectMask = 0x04 | 0x08 | 0x20;
constexpr const char* kAmdVendor = "0x1022";  // AMD root complexes and root ports

const model::PciBridge* bridge(const HostInventory& h, const std::string& bdf) {
  for (const auto& b : h.pci_bridges)
    if (b.bdf == bdf) return &b;
  return nullptr;
}

const model::PciLocation* nic_pci(const HostInventory& h, const std::string& name) {
  const auto* d = model::find_rdma_device(h, name);
  return d && d->pci ? &*d->pci : nullptr;
}

std::string hex4(int v) {
  return fmt::format("0x{:04x}", v);
}

/// PCIE_ACS_REDIRECT (warn), one per GPU whose rail path has redirecting bridges. NCCL's troubleshooting
/// guide, "PCI Access Control Services (ACS)" (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/
/// troubleshooting.html#pci-access-control-services-acs): with ACS on a PCI switch, point-to-point traffic is
/// redirected to the CPU root complex — a large slowdown or a hang; on Broadcom PLX switches it is turned off
/// from the OS with `setpci -s <bdf> ECAP_ACS+0x6.w=0000` (again after every reboot), elsewhere in the BIOS.
void acs_findings(const HostInventory& h, const std::vector<GpuRail>& rails, std::vector<Finding>& out) {
  for (const auto& r : rails) {
    auto bad = acs_redirect_bridges(h, r);
    if (bad.empty()) continue;
    const auto& gpu = h.gpus[static_cast<std::size_t>(r.gpu)].pci;
    const auto* nic = nic_pci(h, r.nic);
    std::vector<std::string> names, cmds;
    json bridges = json::array();
    for (const auto* b : bad) {
      auto bits = model::acs_bit_names(*b->config.acs_ctrl);
      names.push_back(fmt::format("{} ({}:{}, ACSCtl {} {}+)", b->bdf, b->vendor, b->device,
                                  hex4(*b->config.acs_ctrl), fmt::join(bits, "+ ")));
      cmds.push_back(fmt::format("setpci -s {} ECAP_ACS+0x6.w=0000", b->bdf));
      bridges.push_back({{"bdf", b->bdf},
                         {"vendor", b->vendor},
                         {"device", b->device},
                         {"acs_ctrl", *b->config.acs_ctrl},
                         {"acs_ctrl_bits", bits}});
    }
    out.push_back(host_fact_finding(
        Severity::kWarn, "PCIE_ACS_REDIRECT",
        fmt::format("{}: PCIe ACS redirects peer-to-peer traffic between GPU{} ({}) and {} ({}) at {}: "
                    "GPUDirect RDMA goes up to the root complex (slow, or completion errors / hangs with an "
                    "IOMMU)",
                    h.host, r.gpu, gpu.bdf, r.nic, nic ? nic->bdf : "?", fmt::join(names, ", ")),
        {{"host", h.host},
         {"gpu", r.gpu},
         {"gpu_bdf", gpu.bdf},
         {"nic", r.nic},
         {"nic_bdf", nic ? json(nic->bdf) : json(nullptr)},
         {"level", r.level},
         {"bridge", bad.front()->bdf},
         {"bridges", bridges}},
        fmt::format("turn ACS off on the bridge(s): {} (as root, again after each reboot), or disable ACS / "
                    "IO virtualization in the BIOS (NCCL troubleshooting guide, 'PCI Access Control "
                    "Services')",
                    fmt::join(cmds, "; "))));
  }
}

/// IOMMU_TRANSLATED (warn): a GPU or its rail NIC in an IOMMU group whose default domain translates DMA
/// (`type` "DMA" or "DMA-FQ"; "identity" is passthrough —
/// Documentation/ABI/testing/sysfs-kernel-iommu_groups). NVIDIA: IOMMU-enabled peer-to-peer is not supported
/// on bare-metal PCIe systems, set the IOMMU to passthrough with iommu=pt
/// (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#iommu-on-linux; NCCL troubleshooting
/// guide, "PCI Access Control Services (ACS)": IO virtualization can redirect P2P to the root complex).
void iommu_finding(const HostInventory& h, const std::vector<GpuRail>& rails, std::vector<Finding>& out) {
  if (h.gpus.empty() || h.rdma_devices.empty()) return;
  json devices = json::array();
  std::vector<std::string> names;
  auto consider = [&](const std::string& who, const model::PciLocation& p) {
    if (p.iommu_group_type != "DMA" && p.iommu_group_type != "DMA-FQ") return;
    devices.push_back(
        {{"device", who}, {"bdf", p.bdf}, {"iommu_group", *p.iommu_group}, {"type", p.iommu_group_type}});
    names.push_back(fmt::format("{} {} group {} {}", who, p.bdf, *p.iommu_group, p.iommu_group_type));
  };
  for (const auto& r : rails) {
    consider(fmt::format("GPU{}", r.gpu), h.gpus[static_cast<std::size_t>(r.gpu)].pci);
    if (const auto* n = nic_pci(h, r.nic))
      if (std::none_of(devices.begin(), devices.end(), [&](const json& d) { return d["bdf"] == n->bdf; }))
        consider(r.nic, *n);
  }
  if (names.empty()) return;
  out.push_back(host_fact_finding(
      Severity::kWarn, "IOMMU_TRANSLATED",
      fmt::format("{}: the IOMMU translates DMA for the GPUDirect devices ({}): peer-to-peer between GPU and "
                  "NIC is remapped or blocked (NCCL: slowdowns, hangs, completion error 4)",
                  h.host, fmt::join(names, "; ")),
      {{"host", h.host},
       {"iommu_units", h.iommu.units},
       {"iommu_groups", h.iommu.group_count},
       {"devices", devices}},
      "boot with iommu=pt (add it to GRUB_CMDLINE_LINUX, regenerate grub.cfg, reboot) so the IOMMU passes "
      "device DMA through (NVIDIA CUDA guide, 'IOMMU on Linux')"));
}

/// PCIE_RELAXED_ORDERING_OFF (warn): an RDMA NIC below an AMD root port with Enable Relaxed Ordering
/// (PCI_EXP_DEVCTL_RELAX_EN) clear. mlx5 marks its DMA relaxed only when pcie_relaxed_ordering_enabled()
/// (net/mlx5e "Add support for PCI relaxed ordering", RDMA/mlx5 "Enable Relaxed Ordering by default for
/// kernel ULPs"), and NCCL registers its buffers with IBV_ACCESS_RELAXED_ORDERING
/// (NCCL_IB_PCI_RELAXED_ORDERING, NCCL environment-variable documentation) — both void while the bit is
/// clear; on AMD EPYC root complexes strict ordering of NIC writes into GPU/host memory costs bandwidth.
void relaxed_ordering_findings(const HostInventory& h, std::vector<Finding>& out) {
  for (const auto& d : h.rdma_devices) {
    if (!d.pci || d.pci->chain.size() < 2 || d.pci->config.relaxed_ordering.value_or(true)) continue;
    const auto* rp = bridge(h, d.pci->chain.front());
    if (!rp || rp->vendor != kAmdVendor) continue;
    out.push_back(host_fact_finding(
        Severity::kWarn, "PCIE_RELAXED_ORDERING_OFF",
        fmt::format(
            "{}: {} ({}) has PCIe relaxed ordering disabled (Device Control {}) below the AMD root "
            "port {}: its RDMA writes stay strictly ordered, NCCL's relaxed-ordering registration has "
            "no effect",
            h.host, d.name, d.pci->bdf, hex4(*d.pci->config.devctl), rp->bdf),
        {{"host", h.host},
         {"device", d.name},
         {"bdf", d.pci->bdf},
         {"devctl", *d.pci->config.devctl},
         {"root_port", rp->bdf},
         {"root_port_vendor", rp->vendor},
         {"max_payload_bytes",
          d.pci->config.max_payload_bytes ? json(*d.pci->config.max_payload_bytes) : json(nullptr)},
         {"max_read_request_bytes", d.pci->config.max_read_request_bytes
                                        ? json(*d.pci->config.max_read_request_bytes)
                                        : json(nullptr)}},
        fmt::format(
            "enable relaxed ordering for {}: check the BIOS PCIe relaxed-ordering setting and the "
            "kernel's quirk list (dmesg 'Relaxed Ordering'), set bit 4 of Device Control (setpci -s {} "
            "CAP_EXP+8.w=0010:0010), then NCCL_IB_PCI_RELAXED_ORDERING=1",
            d.name, d.pci->bdf)));
  }
}

/// PCIE_CONFIG_NOT_READ (info): config space files that gave the unprivileged 64 bytes only
/// (drivers/pci/pci-sysfs.c pci_read_config), so ACS and Device Control were not checked.
void config_not_read_finding(const HostInventory& h, std::vector<Finding>& out) {
  std::vector<std::string> short_reads;
  auto consider = [&](const std::string& bdf, const model::PcieConfig& c) {
    if (c.config_bytes > 0 && c.config_bytes < 256) short_reads.push_back(bdf);
  };
  for (const auto& g : h.gpus) consider(g.pci.bdf, g.pci.config);
  for (const auto& d : h.rdma_devices)
    if (d.pci) consider(d.pci->bdf, d.pci->config);
  for (const auto& b : h.pci_bridges) consider(b.bdf, b.config);
  if (short_reads.empty()) return;
  out.push_back(host_fact_finding(
      Severity::kInfo, "PCIE_CONFIG_NOT_READ",
      fmt::format("{}: PCIe config space of {} device(s) was readable only in its first 64 bytes (not root): "
                  "ACS, relaxed ordering and payload sizes were not checked",
                  h.host, short_reads.size()),
      {{"host", h.host}, {"bdfs", short_reads}},
      "run fabcheck inspect as root (or with CAP_SYS_ADMIN) to check ACS and Device Control"));
}

}  // namespace

Finding host_fact_finding(Severity s, std::string code, std::string message, json evidence,
                          std::string remedy) {
  Finding f;
  f.severity = s;
  f.code = std::move(code);
  f.message = std::move(message);
  f.evidence = std::move(evidence);
  f.remedy = std::move(remedy);
  return f;
}

std::vector<const model::PciBridge*> acs_redirect_bridges(const HostInventory& h, const GpuRail& r) {
  std::vector<const model::PciBridge*> out;
  if (model::distance_rank(r.level) > 2) return out;  // PHB and beyond: through the root complex anyway
  const auto& g = h.gpus[static_cast<std::size_t>(r.gpu)].pci;
  const auto* n = nic_pci(h, r.nic);
  if (!n || g.root_complex != n->root_complex) return out;
  std::vector<std::string> pa(g.chain.begin(), g.chain.end() - 1), pb(n->chain.begin(), n->chain.end() - 1);
  std::size_t common = 0;
  while (common < pa.size() && common < pb.size() && pa[common] == pb[common]) ++common;
  if (common == 0) return out;
  std::vector<std::string> path(pa.begin() + static_cast<long>(common - 1), pa.end());
  path.insert(path.end(), pb.begin() + static_cast<long>(common), pb.end());
  for (const auto& bdf : path)
    if (const auto* b = bridge(h, bdf);
        b && b->config.acs_ctrl && (*b->config.acs_ctrl & kAcsP2pRedirectMask))
      out.push_back(b);
  return out;
}

void pcie_path_findings(const HostInventory& h, const std::vector<GpuRail>& rails,
                        std::vector<Finding>& out) {
  acs_findings(h, rails, out);
  iommu_finding(h, rails, out);
  relaxed_ordering_findings(h, out);
  config_not_read_finding(h, out);
}

/// GDR_NO_PEER_MEMORY (warn): GPUs and RDMA devices, but neither nvidia_peermem nor nv_peer_mem in
/// /sys/module and no memory_peers client. NCCL troubleshooting guide, "GPU-to-NIC
/// communication": the nvidia-peermem module ships with the driver and must be loaded at every boot
/// (`modprobe nvidia-peermem`); DMA-BUF (Linux >= 5.12, the open GPU kernel modules, NCCL >= 2.13) is the
/// other way to GDR. LID_ON_ETHERNET (warn): an Ethernet (RoCE/iWARP) port whose `lid` is non-zero; the
/// kernel reports LID 0 for RoCE ports (`ports/<n>/lid` reads `0x0`), so a LID there means a port whose link
/// layer or driver state is not what the ports' other files say.
void rdma_host_findings(const HostInventory& h, std::vector<Finding>& out) {
  if (!h.gpus.empty() && !h.rdma_devices.empty() && !h.gdr.nvidia_peermem_loaded &&
      !h.gdr.nv_peer_mem_loaded && h.gdr.paths_present.empty())
    out.push_back(host_fact_finding(
        Severity::kWarn, "GDR_NO_PEER_MEMORY",
        fmt::format(
            "{}: {} GPU(s) and {} RDMA device(s) but no peer-memory module (neither nvidia_peermem nor "
            "nv_peer_mem in /sys/module): NCCL turns GPUDirect RDMA off unless DMA-BUF works here",
            h.host, h.gpus.size(), h.rdma_devices.size()),
        {{"host", h.host},
         {"module_checked", {"module/nvidia_peermem", "module/nv_peer_mem"}},
         {"paths_present", h.gdr.paths_present}},
        "modprobe nvidia-peermem (and load it at boot: /etc/modules-load.d), or use DMA-BUF (Linux >= 5.12, "
        "the open GPU kernel modules, NCCL >= 2.13) (NCCL troubleshooting guide, 'GPU-to-NIC "
        "communication')"));
  for (const auto& d : h.rdma_devices)
    for (const auto& p : d.ports) {
      if (p.link_layer != "Ethernet" || p.lid.empty()) continue;
      long lid = std::strtol(p.lid.c_str(), nullptr, 0);
      if (lid == 0) continue;
      out.push_back(host_fact_finding(
          Severity::kWarn, "LID_ON_ETHERNET",
          fmt::format("{}: {} port {} is an Ethernet ({}) port but shows LID {}: RoCE ports have no LID, so "
                      "this port's state is suspect",
                      h.host, d.name, p.port, d.protocol.empty() ? "RoCE" : d.protocol, p.lid),
          {{"host", h.host},
           {"device", d.name},
           {"port", p.port},
           {"lid", p.lid},
           {"link_layer", p.link_layer},
           {"driver", d.driver}},
          fmt::format("check {} with ibv_devinfo -v (link_layer, port_lid) and the port's firmware link type "
                      "(mlxconfig LINK_TYPE_P{}); reload the driver if they disagree",
                      d.name, p.port)));
    }
}

}  // namespace fabcheck::report::detail
