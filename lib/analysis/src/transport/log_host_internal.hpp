#pragma once
// What the log x host checks share (log_host.cpp gathers it, log_host_gid.cpp and log_host_select.cpp judge).
#include <map>
#include <string>
#include <vector>

#include "fabcheck/model/inventory.hpp"
#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/log_host.hpp"

namespace fabcheck::report::detail {

/// One host as NCCL's log shows it, beside the inventory of that host.
struct LogHost {
  std::string host;                           ///< as the log prints it
  const model::HostInventory* inv = nullptr;  ///< the matched inventory (never null once matched)
  std::string version;                        ///< "2.18.3+cuda12.2", "" unknown
  parse::NcclVersionCode version_code = 0;    ///< of `version`, 0 unknown
  parse::NcclVersionCode version_min = 0;     ///< inferred bounds when no version line (0 none)
  parse::NcclVersionCode version_max = 0;
  std::map<std::string, std::string> env;        ///< command lines, then NCCL's own echoes (they win)
  std::vector<parse::NcclNetDevice> ib_devices;  ///< the `NET/IB : Using` list (first process with one)
  bool ib_no_device = false;                     ///< `NET/IB : No device found.` (or an empty Using list)
  bool used_sockets = false;                     ///< a process chose the Socket network
  std::string connect_error;                     ///< first IB connection error (modify_qp, completion 12)
  std::string unreachable_error;                 ///< first verbs call that failed "Network is unreachable"
  std::string loc_prot_error;                    ///< first completion with status 4 (LOC_PROT_ERR)
};

/// One RoCE port NCCL uses on one host, and the GID index it uses there.
struct RocePort {
  const LogHost* host = nullptr;
  const model::RdmaDevice* dev = nullptr;
  const model::RdmaPort* port = nullptr;
  GidIndexInEffect effect;
  int index = 0;  ///< the fixed index, or the one NCCL's automatic selection takes here
};

/// The RoCE ports NCCL uses on the host: its `NET/IB : Using` list, else every ACTIVE Ethernet port that
/// NCCL_IB_HCA selects (NCCL skips ports that are not ACTIVE: src/transport/net_ib.cc ncclIbInit). None
/// when the index in effect is unknown (version unknown and nothing set): no claim.
std::vector<RocePort> roce_ports(const LogHost& h);

/// The log hosts matched to an inventory host, in log order.
std::vector<LogHost> match_log_hosts(const std::vector<parse::NcclLog>& logs,
                                     const model::InventoryResult& inventory);

/// "2.18.3" for a version code.
std::string nccl_version_text(parse::NcclVersionCode v);

/// The GID findings over all matched hosts (log_host_gid.cpp).
void gid_in_effect_findings(const std::vector<LogHost>& hosts, std::vector<Finding>& out);

/// NCCL_IB_HCA and NCCL_SOCKET_IFNAME against each host's devices and interfaces (log_host_select.cpp).
void selection_findings(const std::vector<LogHost>& hosts, std::vector<Finding>& out);

/// GID_NETDEV_DOWN and GID_PEER_NO_ROUTE: the netdev of the GID in effect judged on its state and routes,
/// towards the other hosts' GID addresses (log_host_route.cpp).
void route_findings(const std::vector<LogHost>& hosts, std::vector<Finding>& out);

/// LOC_PROT_ERR_HOST_FACTS: a completion with LOC_PROT_ERR (4) tied to the PCIe/IOMMU facts of its host that
/// explain it (log_host_route.cpp).
void loc_prot_findings(const std::vector<LogHost>& hosts, std::vector<Finding>& out);

}  // namespace fabcheck::report::detail
