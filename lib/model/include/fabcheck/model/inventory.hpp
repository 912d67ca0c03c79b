#pragma once
/// @file Result structs of the inventory probe, as the report model holds them (the model owns
/// every probe's data; lib/probes fills them, lib/analysis and lib/render read them, without MPI).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/model/options_inventory.hpp"

namespace fabcheck::model {
/// One non-empty GID slot (`ports/<n>/gids/<idx>`, Linux drivers/infiniband/core/sysfs.c). Empty slots
/// (all-zero GID) are not listed.
struct GidEntry {
  int index = 0;            ///< slot index in gids/
  std::string gid;          ///< 8 groups of 4 hex digits as sysfs prints it
  std::string type;         ///< "IB", "RoCE v1", "RoCE v2", or "" when the type file could not be read
  std::string netdev;       ///< gid_attrs/ndevs/<i> (RoCE), "" on IB
  bool link_local = false;  ///< fe80::/64
  std::string ipv4;         ///< dotted IPv4 for an IPv4-mapped GID (::ffff:a.b.c.d), else ""
};
/// The lossless configuration of a RoCE port's netdev, as the host shows it; nothing is guessed:
/// an empty vector or nullopt is "unknown" and its `*_source` says why. Priorities are IEEE 802.1p 0..7.
/// Sources: MLNX_OFED's mlx5 sysfs `qos/` group (`trust`, `dscp2prio`, `prio2buffer`: Mellanox/mlnx-tools
/// python/mlnx_qos reads them), the kernel's DCB netlink (PFC enable bits `struct ieee_pfc.pfc_en` and the
/// DSCP app table, include/uapi/linux/dcbnl.h: what mlnx_qos shows when `qos/trust` is absent), a recorded
/// `mlnx_qos -i <if>` output for trees under `--sysfs-root`, and mlx5's `ecn/roce_np|roce_rp/enable/<prio>`
/// (en_sysfs.c mlx5e_fill_attributes; "0"/"1" per priority).
struct RoceQos {
  std::string netdev;            ///< the port's netdev (port_netdev)
  std::string trust;             ///< "pcp" or "dscp"; "" unknown
  std::string trust_source;      ///< "sysfs qos/trust", "dcbnl app table", "mlnx_qos capture", or why unknown
  std::vector<int> dscp2prio;    ///< priority of DSCP 0..63 (64 entries, -1 = not listed); empty = unknown
  std::string dscp2prio_source;  ///< where the map came from, or why it is unknown
  std::optional<int> pfc_enabled_mask;  ///< bit p set = PFC enabled on priority p; nullopt = unknown
  std::string pfc_source;               ///< "dcbnl ieee_pfc", "mlnx_qos capture", or why unknown
  std::vector<int> prio2buffer;    ///< receive buffer of priority 0..7 (qos/prio2buffer); empty = unknown
  std::optional<int> ecn_np_mask;  ///< bit p = ecn/roce_np/enable/<p> is 1 (notification point: sends CNPs)
  std::optional<int> ecn_rp_mask;  ///< bit p = ecn/roce_rp/enable/<p> is 1 (reaction point: slows on CNPs)
  std::string ecn_source;          ///< "sysfs ecn/", or why unknown (a missing or unreadable file of the 16)
};
/// One port of an RDMA device (`class/infiniband/<dev>/ports/<n>`, Linux drivers/infiniband/core/sysfs.c).
struct RdmaPort {
  int port = 1;                     ///< port number (from 1)
  std::string state;                ///< "ACTIVE", "DOWN", ... (text after "N: ")
  int state_num = 0;                ///< 4 = ACTIVE
  std::string phys_state;           ///< "LinkUp", "Polling", "Disabled", ...
  std::string link_layer;           ///< "InfiniBand", "Ethernet" (= RoCE), "Unknown"
  std::string rate_raw;             ///< the rate file as read ("400 Gb/sec (4X NDR)")
  std::optional<double> rate_gbit;  ///< Gb/s, only when ACTIVE (rates of down ports are fiction)
  std::optional<int> mtu;           ///< active MTU in bytes (verbs, or RoCE: iboe_get_mtu(netdev mtu))
  std::string mtu_source;           ///< "verbs", "netdev <name> mtu <n>", or why it is unknown
  std::string lid;                  ///< "0x80"; "0xffff" = unassigned
  int gid_tbl_len = 0;              ///< number of slots in gids/
  std::vector<GidEntry> gids;       ///< non-empty slots, by index
  std::optional<int>
      rocev2_gid_index;             ///< first routable RoCE v2 GID (NCCL validGid && !linkLocal), RoCE only
  std::optional<RoceQos> roce_qos;  ///< lossless configuration of the netdev, RoCE ports only
  bool active() const { return state_num == 4; }
};
/// A PCIe link as sysfs shows it (Linux drivers/pci/pci-sysfs.c). Speeds in GT/s.
struct PcieLink {
  std::optional<double> current_gts;     ///< current_link_speed
  std::optional<int> current_width;      ///< current_link_width
  std::optional<double> max_gts;         ///< max_link_speed of the device
  std::optional<int> max_width;          ///< max_link_width of the device
  std::optional<double> parent_max_gts;  ///< max_link_speed of the parent bridge (upstream port)
  std::optional<int> parent_max_width;   ///< max_link_width of the parent bridge
  std::optional<double> cap_gts;         ///< min(device max, parent max)
  std::optional<int> cap_width;          ///< min(device max, parent max)
  bool speed_below_cap = false;          ///< current speed < cap
  bool width_below_cap = false;          ///< current width < cap
  std::optional<double> current_gbit;  ///< usable bandwidth at the current link (kernel pcie_bandwidth maths)
  std::optional<double> cap_gbit;      ///< usable bandwidth at the capability
};
/// The PCI Express registers fabcheck reads from a function's config space (`<bdf>/config`). The
/// kernel serves an unprivileged reader only the first 64 bytes (drivers/pci/pci-sysfs.c `pci_read_config`:
/// "Only root can read the rest"), so every register below is nullopt unless the file was read far enough:
/// the Express capability lives in 0x40-0xff, extended capabilities (ACS) in 0x100-0xfff.
struct PcieConfig {
  int config_bytes = 0;  ///< bytes the config file gave (0 = no file, 64 unprivileged, 256/4096 as root)
  std::optional<int> express_port_type;  ///< PCI_EXP_FLAGS_TYPE (0 endpoint, 4 root port, 5/6 switch up/down)
  std::optional<int> devctl;             ///< Device Control, PCI_EXP_DEVCTL (Express capability + 8)
  std::optional<bool> relaxed_ordering;  ///< PCI_EXP_DEVCTL_RELAX_EN (0x0010)
  std::optional<int> max_payload_bytes;  ///< 128 << PCI_EXP_DEVCTL_PAYLOAD (bits 7:5)
  std::optional<int> max_read_request_bytes;       ///< 128 << PCI_EXP_DEVCTL_READRQ (bits 14:12)
  std::optional<int> max_payload_supported_bytes;  ///< 128 << PCI_EXP_DEVCAP_PAYLOAD (bits 2:0)
  bool extended_read = false;  ///< the extended space (>= 4096 bytes) was read: an absent ACS is known absent
  std::optional<int> acs_cap;  ///< ACS Capability register (PCI_ACS_CAP), when the ACS capability exists
  std::optional<int> acs_ctrl;  ///< ACS Control register (PCI_ACS_CTRL), when the ACS capability exists
};
/// Names of the bits set in an ACS Control value, in register order ("SrcValid", "TransBlk", "ReqRedir",
/// "CmpltRedir", "UpstreamFwd", "EgressCtrl", "DirectTrans": lspci's ACSCtl words for PCI_ACS_SV ..
/// PCI_ACS_DT of include/uapi/linux/pci_regs.h).
std::vector<std::string> acs_bit_names(int acs_ctrl);
/// A PCI function's place in the tree: root complex and bridge chain from `realpath(bus/pci/devices/<bdf>)`.
struct PciLocation {
  std::string bdf;                        ///< "0000:1a:00.0"
  std::string root_complex;               ///< "pci0000:15"
  std::vector<std::string> chain;         ///< bridges from the root port down, then the device itself (last)
  std::optional<int> numa_node;           ///< numa_node, nullopt when -1 or missing
  std::string local_cpulist;              ///< "0-47,96-143"
  std::string vendor, device, pci_class;  ///< "0x15b3", "0x1021", "0x020700"
  PcieLink link;                          ///< PCIe link of the function
  PcieConfig config;                      ///< registers from the function's config space
  std::optional<int> iommu_group;         ///< number of the `iommu_group` link's target, nullopt without one
  std::string iommu_group_type;           ///< that group's `type` file: "DMA", "DMA-FQ", "identity", ...
  std::string driver;  ///< basename of the `driver` link ("mlx5_core", "nvidia"), "" unbound
};
/// A PCIe bridge on a GPU's or RDMA device's path (root port, switch upstream/downstream port).
struct PciBridge {
  std::string bdf;             ///< "0000:17:01.0"
  std::string vendor, device;  ///< "0x10b5" (PLX), "0x1000" (Broadcom), "0x1022" (AMD), "0x8086" (Intel)
  PcieConfig config;           ///< ACS control, Device Control
};
/// The host's IOMMU as sysfs shows it (Documentation/ABI/testing/sysfs-kernel-iommu_groups,
/// sysfs-class-iommu).
struct IommuInfo {
  std::vector<std::string> units;  ///< <root>/class/iommu entries ("dmar0", "ivhd0"); empty = no IOMMU unit
  int group_count = 0;             ///< entries of <root>/kernel/iommu_groups (0 = IOMMU off or absent)
};
/// An RDMA device (`class/infiniband/<dev>`, Linux drivers/infiniband/core/sysfs.c).
struct RdmaDevice {
  std::string name;    ///< ibdev name ("mlx5_0", "mlx5_bond_0")
  std::string driver;  ///< kernel driver of its PCI function ("mlx5_core", "irdma", "bnxt_en")
  /// "InfiniBand", "RoCE", "iWARP" (node_type RNIC), "mixed" (ports differ) or "" (no port says)
  std::string protocol;
  std::string node_type;             ///< "CA", "RNIC", ...
  std::string fw_ver;                ///< "28.41.1000"
  std::string hca_type;              ///< "MT4129" (optional, driver-specific)
  std::string board_id;              ///< PSID (optional)
  std::string node_guid;             ///< "58a2:e103:0000:0010"
  std::string sys_image_guid;        ///< equal on the PFs of one card
  std::optional<PciLocation> pci;    ///< nullopt for a device without a PCI parent (soft RoCE)
  std::vector<std::string> netdevs;  ///< device/net/* (PF netdevs, IPoIB)
  std::vector<RdmaPort> ports;       ///< by port number
};
/// An NVIDIA GPU found in PCI sysfs (vendor 0x10de, class 0x0302xx/0x0300xx).
struct Gpu {
  int index = 0;                            ///< order by PCI address (the order nvidia-smi uses)
  PciLocation pci;                          ///< location, NUMA node and link
  std::optional<std::uint64_t> bar1_bytes;  ///< size of BAR1 (line 2 of `resource`), the GPUDirect window
};
/// Distance of a GPU to an RDMA device, as `nvidia-smi topo -m` prints it.
struct GpuNicDistance {
  int gpu = 0;        ///< Gpu::index
  std::string nic;    ///< RdmaDevice::name
  std::string level;  ///< "PIX", "PXB", "PHB", "NODE", "SYS"
  int switches = 0;   ///< PCIe switches on the path (PIX/PXB only)
};
/// Distance level rank: PIX 1, PXB 2, PHB 3, NODE 4, SYS 5, unknown 6. Lower is closer.
int distance_rank(const std::string& level);

/// The netdev of an RDMA port: the first GID entry's netdev, else the device's first netdev, else "" (one
/// rule for the inventory's MTU reading and its console table).
std::string port_netdev(const RdmaDevice& d, const RdmaPort& p);
/// GPUDirect RDMA readiness: the peer-memory modules loaded, and which NCCL releases would see them (NCCL
/// src/transport/net_ib/gdr.cc).
struct GdrInfo {
  bool nvidia_peermem_loaded = false;      ///< <root>/module/nvidia_peermem exists
  bool nv_peer_mem_loaded = false;         ///< <root>/module/nv_peer_mem exists (legacy Mellanox module)
  std::string module_version;              ///< module/<m>/version
  std::vector<std::string> paths_present;  ///< which of the NCCL-checked paths exist (relative to the root)
  /// Which NCCL releases see a peer-memory client here: keys "<=2.9.7", "2.9.8-2.21", "2.22", ">=2.23.4".
  std::map<std::string, bool> seen_by_nccl;
  std::string nccl_version;               ///< the version judged against (empty = unknown)
  std::optional<bool> seen_by_this_nccl;  ///< for nccl_version when known
};
/// An Ethernet / IPoIB interface from <root>/class/net.
struct NetInterface {
  std::string name;                ///< "ens3np0", "docker0"
  std::string operstate;           ///< "up", "down", "unknown"
  std::optional<int> mtu;          ///< bytes
  std::optional<long> speed_mbit;  ///< Mb/s; nullopt when unreadable or negative (link down)
  bool is_virtual = false;         ///< under devices/virtual (bridges, veth, docker0, lo)
  std::string pci_bdf;             ///< PCI function, "" for virtual
  std::string rdma_device;         ///< ibdev on the same PCI function, "" if none
  std::string type;                ///< ARPHRD number as read: "1" Ethernet, "32" InfiniBand, "772" loopback
  std::optional<bool> admin_up;    ///< IFF_UP (0x1) of the `flags` file: Open MPI uses only such interfaces
  std::vector<std::string> ipv4;   ///< local IPv4 addresses with prefix ("172.17.0.1/16"), from proc_root
  /// The main table's routes out of this interface, from proc_root's net/route: "198.18.1.0/24" (connected),
  /// "0.0.0.0/0 via 198.18.0.1" (parse::ipv4_route_text); what a RoCE v2 GID's peer must be reachable by.
  std::vector<std::string> ipv4_routes;
};
/// One Open MPI MCA parameter file.
struct MpiConfigFile {
  std::string path;                                         ///< as opened (under etc_root)
  std::vector<std::pair<std::string, std::string>> params;  ///< in file order
};
/// Open MPI configuration that decides whether MPI can use RDMA.
struct MpiConfig {
  std::vector<MpiConfigFile> files;              ///< files read (missing files are not listed)
  std::map<std::string, std::string> effective;  ///< btl, pml, mtl, osc, btl_tcp_if_include ... (env wins)
  std::map<std::string, std::string> origin;     ///< key → "file <path>" or "env OMPI_MCA_<key>"
  std::vector<std::string> rdma_excluded;        ///< e.g. "pml ^ucx", "btl ^uct,openib,ofi"
};
/// libibverbs' view of one port (ibv_query_port(3)).
struct VerbsPort {
  int port = 1;              ///< port number
  int state = 0;             ///< enum ibv_port_state (4 = ACTIVE)
  int active_mtu_bytes = 0;  ///< 256..4096, 0 unknown
  int link_layer = 0;        ///< 0 unspecified, 1 InfiniBand, 2 Ethernet
  double rate_gbit = 0;      ///< lanes(active_width) × per-lane(active_speed_ex or active_speed)
  int gid_tbl_len = 0;       ///< port attribute
};
/// libibverbs' view of one device.
struct VerbsDevice {
  std::string name;              ///< ibv_get_device_name
  std::string error;             ///< why it could not be opened/queried, "" when fine
  std::vector<VerbsPort> ports;  ///< queried ports
};
/// Result of enumerating devices through libibverbs.
struct VerbsListing {
  /// "ok" (list returned, possibly empty), "unavailable" (ibv_get_device_list returned NULL: ENOSYS = kernel
  /// RDMA stack absent → no RDMA hardware), "not_compiled" (built without libibverbs), "disabled" (not
  /// asked).
  std::string status = "not_compiled";
  int err = 0;                       ///< errno when unavailable
  std::string error_text;            ///< strerror(err), e.g. "Function not implemented"
  std::vector<VerbsDevice> devices;  ///< when ok
};
/// Everything known about one host.
/// The CPUs one MPI rank may run on (sched_getaffinity when the inventory ran under MPI).
struct RankBinding {
  int rank = 0;        ///< world rank
  int local_rank = 0;  ///< index among its host's ranks
  std::string cpus;    ///< its allowed CPUs in the kernel's list form ("0-11,24-35")
  int host_cpus = 0;   ///< CPUs online on its host (sysconf), to tell "unbound" from "bound"
};

struct HostInventory {
  std::string host;                          ///< host name
  std::string sysfs_root;                    ///< root the reads went through
  std::string rdma_status;                   ///< "present" or "none"
  std::string rdma_reason;                   ///< why "none" ("no /sys/class/infiniband"), else ""
  bool uverbs_present = false;               ///< <root>/class/infiniband_verbs exists (ib_uverbs loaded)
  std::vector<RdmaDevice> rdma_devices;      ///< sorted by name
  std::vector<Gpu> gpus;                     ///< sorted by PCI address
  std::vector<PciBridge> pci_bridges;        ///< every bridge on a GPU's or RDMA device's path, by BDF
  IommuInfo iommu;                           ///< IOMMU units and groups
  std::string ipv4_source;                   ///< where the interface addresses came from, or why none
  std::vector<GpuNicDistance> distances;     ///< every GPU × RDMA device
  std::string nvidia_smi_topo;               ///< raw `nvidia-smi topo -m` output when it ran, else ""
  GdrInfo gdr;                               ///< GPUDirect RDMA readiness
  std::vector<NetInterface> net_interfaces;  ///< class/net, sorted by name
  std::map<std::string, std::string> env;    ///< NCCL_*, UCX_*, OMPI_MCA_* only
  MpiConfig mpi_config;                      ///< Open MPI MCA parameter files + env
  VerbsListing verbs;                        ///< libibverbs view
  std::vector<RankBinding> rank_bindings;    ///< every rank on this host; empty without MPI or --sysfs-root
};
/// Inventory of every host (rank 0 holds all; other ranks may hold none).
struct InventoryResult {
  std::vector<HostInventory> hosts;  ///< one per host, in host order of the communicator
};
/// The host's RDMA device of that name, or nullptr.
const RdmaDevice* find_rdma_device(const HostInventory& h, const std::string& name);
/// Serializes a host inventory as the DESIGN §6 `inventory.hosts[]` JSON object (text).
std::string to_json_text(const HostInventory& h);
/// Parses what to_json_text wrote. @throws RuntimeFailure on malformed text.
HostInventory host_inventory_from_json_text(const std::string& text);

}  // namespace fabcheck::model
