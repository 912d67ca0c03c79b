#pragma once
// What the log x host checks share (log_host.cpp gathers it, log_host_gid.cpp and log_host_select.cpp judge).
#include <map>
#include <string>
#include <vector>

#include "fabcheck/model/inventory.hpp"
#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/report/document.hpp"

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
};

/// The log hosts matched to an inventory host, in log order.
std::vector<LogHost> match_log_hosts(const std::vector<parse::NcclLog>& logs,
                                     const model::InventoryResult& inventory);

/// "2.18.3" for a version code.
std::string nccl_version_text(parse::NcclVersionCode v);

/// The GID findings over all matched hosts (log_host_gid.cpp).
void gid_in_effect_findings(const std::vector<LogHost>& hosts, std::vector<Finding>& out);

/// NCCL_IB_HCA and NCCL_SOCKET_IFNAME against each host's devices and interfaces (log_host_select.cpp).
void selection_findings(const std::vector<LogHost>& hosts, std::vector<Finding>& out);

}  // namespace fabcheck::report::detail
