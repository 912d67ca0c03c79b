#pragma once
// Host findings (DESIGN §5): the PCIe path between each GPU and its NIC (ACS redirect, relaxed
// ordering), the IOMMU mode, config space not readable, GPUDirect without any peer-memory module, a LID on
// an Ethernet port; and across hosts, one IPv4 address on several hosts and Open MPI's default TCP interface
// choice. inventory.cpp calls them; each rule's source is cited where it is defined.
#include <string>
#include <vector>

#include "fabcheck/model/inventory.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/inventory.hpp"

namespace fabcheck::report::detail {

/// The finding of every rule declared here (severity, code, message, evidence, remedy: DESIGN §5).
Finding host_fact_finding(Severity s, std::string code, std::string message, nlohmann::json evidence,
                          std::string remedy);

/// The bridges between a GPU and its rail NIC (from their lowest common ancestor down both paths) whose ACS
/// Control has P2P Request Redirect, P2P Completion Redirect or P2P Egress Control set. Empty when the
/// path goes through the host bridge (PHB and farther: P2P crosses the root complex anyway) or when the
/// bridges' config space was not read.
std::vector<const model::PciBridge*> acs_redirect_bridges(const model::HostInventory& h, const GpuRail& r);

/// PCIE_ACS_REDIRECT, IOMMU_TRANSLATED, PCIE_RELAXED_ORDERING_OFF and PCIE_CONFIG_NOT_READ for one host.
void pcie_path_findings(const model::HostInventory& h, const std::vector<GpuRail>& rails,
                        std::vector<Finding>& out);

/// GDR_NO_PEER_MEMORY (no peer-memory module at all) and LID_ON_ETHERNET for one host.
void rdma_host_findings(const model::HostInventory& h, std::vector<Finding>& out);

/// ROCE_LOSSY, ROCE_PFC_WITHOUT_ECN and ROCE_TC_NOT_LOSSLESS for one host's ACTIVE RoCE ports
/// (roce_qos_findings.cpp).
void roce_qos_findings(const model::HostInventory& h, std::vector<Finding>& out);

/// RANK_CPU_FAR_FROM_NIC for one host's ranks (when the inventory ran under MPI; rank_binding.cpp).
void rank_binding_findings(const model::HostInventory& h, const std::vector<GpuRail>& rails,
                           std::vector<Finding>& out);

/// IPV4_DUPLICATE_ACROSS_HOSTS and MPI_TCP_IF_DEFAULT across the hosts of r.
void host_consistency_findings(const model::InventoryResult& r, std::vector<Finding>& out);

}  // namespace fabcheck::report::detail
