#pragma once
/// @file The `inventory` report section (DESIGN §6) and the findings drawn from host inventories (DESIGN §5):
/// PORT_DOWN, PCIE_DOWNTRAINED, NIC_SHARED, NIC_GPU_AFFINITY, GID_INDEX_NOT_ROCEV2, GID_LINK_LOCAL,
/// GID_TABLES_DIFFER, MPI_RDMA_EXCLUDED, GDR_MODULE_NOT_SEEN, SOCKET_IFNAME_MGMT (Open MPI's
/// btl_tcp_if_include); the PCIe path and host facts: PCIE_ACS_REDIRECT, IOMMU_TRANSLATED,
/// PCIE_RELAXED_ORDERING_OFF, PCIE_CONFIG_NOT_READ, GDR_NO_PEER_MEMORY, LID_ON_ETHERNET,
/// IPV4_DUPLICATE_ACROSS_HOSTS, MPI_TCP_IF_DEFAULT; the RoCE lossless configuration: ROCE_LOSSY,
/// ROCE_PFC_WITHOUT_ECN, ROCE_TC_NOT_LOSSLESS.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/model/inventory.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/transport.hpp"

namespace fabcheck::report {

/// The NIC a GPU would use: the closest RDMA device (distance rank), ties broken by the faster ACTIVE port,
/// then by name (the faster port is preferred; a tie is reported).
struct GpuRail {
  int gpu = 0;                    ///< Gpu::index
  std::string nic;                ///< chosen RDMA device, "" when the host has none
  std::string level;              ///< PIX | PXB | PHB | NODE | SYS
  std::vector<std::string> ties;  ///< other devices at the same level
  /// level ≤ PXB (NCCL_NET_GDR_LEVEL default), a peer-memory path exists, the NIC has an ACTIVE port and no
  /// bridge between them redirects P2P (ACS)
  bool gdr_eligible = false;
  std::string gdr_blocked_by;  ///< why not: "distance", "no peer memory", "NIC port down", "ACS <bdf>"; ""
};

/// Chooses each GPU's NIC on one host. Empty when the host has no GPU or no RDMA device with a PCI location.
std::vector<GpuRail> gpu_rails(const model::HostInventory& h);

/// The traffic class a library puts on its RoCE packets. The GRH traffic class byte is the IP
/// header's TOS byte on RoCE v2: DSCP = traffic_class >> 2, the low two bits are ECN (RFC 2474, RFC 3168).
struct RoceJobTraffic {
  std::string library;    ///< "NCCL" or "UCX"
  int traffic_class = 0;  ///< NCCL_IB_TC / UCX_IB_TRAFFIC_CLASS, 0..255
  int service_level = 0;  ///< NCCL_IB_SL / UCX_IB_SL: the 802.1p priority (PCP) of the frames, 0..7
  std::string origin;     ///< "env NCCL_IB_TC=106, NCCL_IB_SL unset (default 0)" and the like
};

/// The traffic the host's environment sets up: NCCL always — NCCL_IB_TC and NCCL_IB_SL, default 0 each
/// (NCCL environment-variable documentation, https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/
/// env.html; `NCCL_PARAM(IbTc, "IB_TC", 0)`, `NCCL_PARAM(IbSl, "IB_SL", 0)` in src/transport/net_ib.cc, read
/// with strtoll base 0) —, UCX when UCX_IB_TRAFFIC_CLASS or UCX_IB_SL is set: "auto" (UCX's default) is 106
/// on RoCE v2 for the traffic class and 0 for the SL (uct/ib/base/ib_iface.c, the TRAFFIC_CLASS and SL
/// config entries). A value that is not a number in range leaves that library out.
std::vector<RoceJobTraffic> roce_job_traffic(const std::map<std::string, std::string>& env);

/// The 802.1p priority RoCE packets of `t` get on a port configured as `q`: trust dscp → dscp2prio[TC >> 2]
/// (mlx5 classifies by the DSCP of the IP header; with mlx5's default map DSCP d → priority d >> 3, i.e.
/// TC >> 5, but only the map read is used); trust pcp → the SL (mlx5 puts the SL into the VLAN PCP of RoCE
/// frames). nullopt when the trust mode or the map entry is unknown; `how` says how it was derived or why
/// not.
std::optional<int> roce_priority(const model::RoceQos& q, const RoceJobTraffic& t, std::string& how);

/// PCIe, GID, port, placement, GPUDirect and MPI findings for every host, plus GID_TABLES_DIFFER across
/// hosts. Each finding's evidence names the host (and device/port/GPU where it applies).
std::vector<Finding> inventory_findings(const model::InventoryResult& r);

/// One-line GPUDirect RDMA state of a host: "not applicable: no RDMA device", "not applicable: no GPU",
/// "peer memory: <path>", or "no peer-memory module (...)".
std::string gdr_summary(const model::HostInventory& h);

/// Writes `inventory: {hosts: [...]}` (DESIGN §6; per host also `rails` and `gdr.summary`), appends
/// inventory_findings(r) and marks run.sections.inventory ok (skipped with a reason when r has no host).
void add_inventory(Document& doc, const model::InventoryResult& r);

/// The inventory's evidence for the transport verdict, one entry per host: RDMA device names, ACTIVE port
/// count, majority link layer of the ACTIVE ports ("InfiniBand" | "RoCE" | ""), their fastest rate (Gbit/s),
/// IPoIB/RoCE netdevs, the libibverbs error text (ENOSYS → "Function not implemented"), peer-memory
/// visibility (nullopt on a host without GPUs), the transport env and whether Open MPI's MCA files exclude
/// UCX.
std::vector<HostRdmaEvidence> rdma_evidence(const model::InventoryResult& r);

/// Console text: one table per host (RDMA ports, GPUs and their NIC, GPUDirect, MPI config, env).
std::string render_inventory(const model::InventoryResult& r);

}  // namespace fabcheck::report
