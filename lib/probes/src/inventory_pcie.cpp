// Host facts (sysfs_read.hpp): PCIe config space of GPUs, NICs and the bridges between them,
// IOMMU groups, GPU BAR1, RDMA driver and protocol, interface flags and addresses.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <system_error>

#include "fabcheck/core/read_bounded.hpp"
#include "fabcheck/parse/proc_net_ipv4.hpp"
#include "fabcheck/probes/pcie_config.hpp"
#include "inventory_facts.hpp"
#include "sysfs_read.hpp"

namespace fabcheck::probes::detail {

namespace fs = std::filesystem;

namespace {

/// The bytes of a `config` file, at most the 4096 of PCIe config space (the kernel stops there).
std::vector<std::uint8_t> read_config_bytes(const fs::path& p) {
  const auto bytes = core::read_attribute(p.string(), 4096);
  if (!bytes) return {};
  return std::vector<std::uint8_t>(bytes->begin(), bytes->end());
}

/// Target name of a symbolic link ("mlx5_core" for driver -> ../../bus/pci/drivers/mlx5_core), "" if none.
std::string link_name(const fs::path& p) {
  std::error_code ec;
  auto t = fs::read_symlink(p, ec);
  return ec ? std::string() : t.filename().string();
}

fs::path function_dir(const fs::path& root, const model::PciLocation& loc, std::size_t upto) {
  fs::path dir = root / "devices" / loc.root_complex;
  for (std::size_t i = 0; i <= upto && i < loc.chain.size(); ++i) dir /= loc.chain[i];
  return dir;
}

}  // namespace

void read_pci_facts(const fs::path& root, const fs::path& dir, model::PciLocation& loc) {
  loc.config = parse_pcie_config(read_config_bytes(dir / "config"));
  if (auto g = link_name(dir / "iommu_group"); !g.empty()) {
    char* end = nullptr;
    long n = std::strtol(g.c_str(), &end, 10);
    if (end != g.c_str() && *end == '\0' && n >= 0) {
      loc.iommu_group = static_cast<int>(n);
      loc.iommu_group_type = read_or(root / "kernel" / "iommu_groups" / g / "type");
    }
  }
  loc.driver = link_name(dir / "driver");
}

std::vector<model::PciBridge> read_path_bridges(const fs::path& root, const model::HostInventory& h) {
  std::vector<model::PciBridge> out;
  std::set<std::string> seen;
  std::vector<const model::PciLocation*> ends;
  for (const auto& g : h.gpus) ends.push_back(&g.pci);
  for (const auto& d : h.rdma_devices)
    if (d.pci) ends.push_back(&*d.pci);
  for (const auto* loc : ends)
    for (std::size_t i = 0; i + 1 < loc->chain.size(); ++i) {
      if (!seen.insert(loc->chain[i]).second) continue;
      fs::path dir = function_dir(root, *loc, i);
      model::PciBridge b;
      b.bdf = loc->chain[i];
      b.vendor = read_or(dir / "vendor");
      b.device = read_or(dir / "device");
      b.config = parse_pcie_config(read_config_bytes(dir / "config"));
      out.push_back(std::move(b));
    }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.bdf < b.bdf; });
  return out;
}

model::IommuInfo read_iommu(const fs::path& root) {
  model::IommuInfo i;
  i.units = list_dir(root / "class" / "iommu");
  i.group_count = static_cast<int>(list_dir(root / "kernel" / "iommu_groups").size());
  return i;
}

std::optional<std::uint64_t> read_bar1_bytes(const fs::path& dir) {
  // drivers/pci/pci-sysfs.c resource_show: one "0x%016llx 0x%016llx 0x%016llx" line per resource, BAR0 first.
  auto text = read_attr(dir / "resource");
  if (!text) return std::nullopt;
  std::size_t line_start = text->find('\n');
  if (line_start == std::string::npos) return std::nullopt;
  unsigned long long start = 0, end = 0, flags = 0;
  if (std::sscanf(text->c_str() + line_start + 1, "%llx %llx %llx", &start, &end, &flags) != 3)
    return std::nullopt;
  if (start == 0 || end <= start) return std::nullopt;
  return static_cast<std::uint64_t>(end - start + 1);
}

void classify_rdma_devices(const fs::path& root, model::HostInventory& h) {
  for (auto& d : h.rdma_devices) {
    d.driver = link_name(root / "class" / "infiniband" / d.name / "device" / "driver");
    std::set<std::string> kinds;
    for (const auto& p : d.ports) {
      // node_type 4 = RNIC is iWARP (drivers/infiniband/core/sysfs.c node_type_show; RDMA_NODE_RNIC); a CA's
      // link layer (`ports/<n>/link_layer`) tells InfiniBand from RoCE.
      if (d.node_type == "RNIC")
        kinds.insert("iWARP");
      else if (p.link_layer == "InfiniBand")
        kinds.insert("InfiniBand");
      else if (p.link_layer == "Ethernet")
        kinds.insert("RoCE");
    }
    d.protocol = kinds.empty() ? "" : kinds.size() > 1 ? "mixed" : *kinds.begin();
  }
}

void read_interface_addresses(const model::InventoryOptions& opts, model::HostInventory& h) {
  for (auto& n : h.net_interfaces)
    if (auto f = read_long(fs::path(opts.sysfs_root) / "class" / "net" / n.name / "flags"))
      n.admin_up = (*f & 0x1) != 0;  // IFF_UP, include/uapi/linux/if.h
  std::string proc = opts.proc_root;
  if (proc.empty() && fs::path(opts.sysfs_root).lexically_normal() == fs::path("/sys")) proc = "/proc";
  if (proc.empty()) {
    h.ipv4_source = "not read: a model tree without --proc-root";
    return;
  }
  auto trie = read_attr(fs::path(proc) / "net" / "fib_trie");
  auto route = read_attr(fs::path(proc) / "net" / "route");
  if (!trie || !route) {
    h.ipv4_source = fmt::format("not read: {}/net/fib_trie or route unreadable", proc);
    return;
  }
  h.ipv4_source = fmt::format("{}/net/fib_trie + route", proc);
  for (const auto& a : parse::parse_local_ipv4(*trie, *route))
    for (auto& n : h.net_interfaces)
      if (n.name == a.iface) n.ipv4.push_back(fmt::format("{}/{}", a.address, a.prefix_len));
  for (const auto& r : parse::parse_ipv4_routes(*route))
    for (auto& n : h.net_interfaces)
      if (n.name == r.iface) n.ipv4_routes.push_back(parse::ipv4_route_text(r));
}

}  // namespace fabcheck::probes::detail
