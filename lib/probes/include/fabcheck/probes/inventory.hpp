#pragma once
/// @file Host inventory (DESIGN §2 `inventory`): RDMA devices and ports, GID tables, PCIe links,
/// NVIDIA GPUs and their distance to each NIC, GPUDirect RDMA readiness, Ethernet interfaces, the
/// transport-steering environment and Open MPI's MCA parameter files. Every sysfs read goes through
/// `InventoryOptions::sysfs_root` (file formats: Linux drivers/infiniband/core/sysfs.c,
/// drivers/pci/pci-sysfs.c). libibverbs is reached only through the `VerbsBackend` interface, so tests use a
/// fake and builds without libibverbs use a stub.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include "fabcheck/model/inventory.hpp"
#include "fabcheck/model/options_inventory.hpp"

namespace fabcheck::comm {
class Communicator;
}

namespace fabcheck::probes {
using InventoryResult = model::InventoryResult;
using model::distance_rank;
using model::host_inventory_from_json_text;
using model::to_json_text;

using InventoryOptions = model::InventoryOptions;

/// Checks the options. @throws UsageError "--sysfs-root: <path> is not a directory (...)" and the like.
void validate(const InventoryOptions& opts);

/// Usable PCIe bandwidth in Gb/s of `width` lanes at `gts` GT/s, as the kernel prints it (drivers/pci/pci.c
/// `pcie_bandwidth_available`, PCIE_SPEED2MBS_ENC: 2.5→2000, 5→4000, 8→7876, 16→15753, 32→31507, 64→64000
/// Mb/s per lane). Example: 16 GT/s x16 → 252.048. Returns nullopt for an unknown speed.
std::optional<double> pcie_gbit(double gts, int width);

/// Computes the distance between two PCI locations (lowest common ancestor).
model::GpuNicDistance pci_distance(const model::PciLocation& gpu, const model::PciLocation& nic);

/// Which `seen_by_nccl` key a NCCL version falls into ("2.18.5" → "2.9.8-2.21"); "" when unparseable.
std::string nccl_gdr_range(const std::string& nccl_version);

/// Seam over libibverbs enumeration (enumeration asks the running kernel and cannot be pointed at a tree).
class VerbsBackend {
 public:
  virtual ~VerbsBackend() = default;
  /// Enumerates devices and queries their ports. Never throws.
  virtual model::VerbsListing list() const = 0;
};

/// The backend compiled into this build: libibverbs when FABCHECK_HAVE_IBVERBS, else a stub answering
/// "not_compiled".
std::unique_ptr<VerbsBackend> make_system_verbs();

/// Keeps only the transport-steering variables of `environ`-style entries ("KEY=VALUE"): NCCL_*, UCX_*,
/// OMPI_MCA_*.
std::map<std::string, std::string> filter_transport_env(const std::vector<std::string>& entries);

/// This process's environment as "KEY=VALUE" entries.
std::vector<std::string> process_environment();

/// Reads one host's inventory (no MPI). Unreadable files are tolerated one by one.
/// @param env transport environment (already filtered, see filter_transport_env).
/// @throws UsageError when the options are invalid (see validate).
model::HostInventory collect_host_inventory(const InventoryOptions& opts, const VerbsBackend& verbs,
                                            const std::map<std::string, std::string>& env,
                                            const std::string& host);

/// Collective over comm: each host's leader (local rank 0) collects its host's inventory, the JSON texts are
/// gathered to rank 0. Returns every host on rank 0, nothing elsewhere.
InventoryResult run_inventory(const comm::Communicator& comm, const InventoryOptions& opts);

}  // namespace fabcheck::probes
