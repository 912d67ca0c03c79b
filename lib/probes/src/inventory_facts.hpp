#pragma once
// Private to lib/probes: the inventory's readers of host facts beyond the RDMA ports, each in its own file
// (inventory_pcie.cpp, inventory_qos.cpp), called by collect_host_inventory (inventory.cpp).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "fabcheck/model/inventory.hpp"
#include "fabcheck/model/options_inventory.hpp"

namespace fabcheck::probes::detail {

// Host facts: PCIe config space, IOMMU groups, drivers, interface addresses (inventory_pcie.cpp).

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

// The RoCE lossless configuration (inventory_qos.cpp).

/// Fills `roce_qos` of every RoCE (Ethernet link layer) port of h whose netdev is known. `live`: root is the
/// real /sys, so PFC is asked from DCB netlink; otherwise it comes from the recorded `<root>/mlnx_qos/<if>`.
void read_roce_qos(const std::filesystem::path& root, bool live, model::HostInventory& h);

}  // namespace fabcheck::probes::detail
