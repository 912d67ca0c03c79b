#pragma once
// Private to lib/probes: reading sysfs/procfs attributes (the inventory and the counters readers share them).
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "fabcheck/model/inventory.hpp"
#include "fabcheck/model/options_inventory.hpp"

namespace fabcheck::probes::detail {

/// Reads a sysfs attribute, stripping exactly one trailing newline. nullopt when unreadable (ENOENT,
/// EINVAL, EACCES...).
inline std::optional<std::string> read_attr(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  std::string s = ss.str();
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

/// The names in a directory, sorted; empty when it cannot be listed.
inline std::vector<std::string> list_dir(const std::filesystem::path& p) {
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

/// read_attr or `def`.
inline std::string read_or(const std::filesystem::path& p, std::string def = {}) {
  return read_attr(p).value_or(std::move(def));
}

/// The attribute as a number (strtol base 0: "0x1003" and "16" both read); nullopt when unreadable.
inline std::optional<long> read_long(const std::filesystem::path& p) {
  auto s = read_attr(p);
  if (!s || s->empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(s->c_str(), &end, 0);
  if (errno != 0 || end == s->c_str()) return std::nullopt;
  return v;
}

/// exists(), without throwing.
inline bool path_exists(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::exists(p, ec);
}

// Issue 24's host facts (inventory_pcie.cpp).

/// Config space, IOMMU group and driver of the PCI function whose sysfs directory is `dir`.
void read_pci_facts(const std::filesystem::path& root, const std::filesystem::path& dir,
                    model::PciLocation& loc);
/// Every bridge on the paths of h's GPUs and RDMA devices, once each, with its config space.
std::vector<model::PciBridge> read_path_bridges(const std::filesystem::path& root,
                                                const model::HostInventory& h);
/// IOMMU units (class/iommu) and group count (kernel/iommu_groups).
model::IommuInfo read_iommu(const std::filesystem::path& root);
/// BAR1 size from the function's `resource` file (line 2: "start end flags"), nullopt when unassigned.
std::optional<std::uint64_t> read_bar1_bytes(const std::filesystem::path& dir);
/// Driver and protocol of each RDMA device, from its PCI function's driver link and its ports.
void classify_rdma_devices(const std::filesystem::path& root, model::HostInventory& h);
/// IFF_UP of each interface (`flags`) and its IPv4 addresses from the proc root (see InventoryOptions).
void read_interface_addresses(const model::InventoryOptions& opts, model::HostInventory& h);

// Issue 20's RoCE lossless configuration (inventory_qos.cpp).

/// Fills `roce_qos` of every RoCE (Ethernet link layer) port of h whose netdev is known. `live`: root is the
/// real /sys, so PFC is asked from DCB netlink; otherwise it comes from the recorded `<root>/mlnx_qos/<if>`.
void read_roce_qos(const std::filesystem::path& root, bool live, model::HostInventory& h);

}  // namespace fabcheck::probes::detail
