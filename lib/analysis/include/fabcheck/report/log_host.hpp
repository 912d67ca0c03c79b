#pragma once
/// @file NCCL's log judged against the hosts it ran on: each log line's host (the
/// `host:pid:tid` prefix) is matched to the inventory of that host, and what NCCL used there — the GID index
/// in effect, `NCCL_IB_HCA`, `NCCL_SOCKET_IFNAME` — is checked against that host's GID tables, RDMA devices
/// and interfaces. Pure functions of parsed logs and inventories (no MPI, no file reads); the transport
/// accumulator runs them whenever it holds both (`inspect --nccl-log ... --sysfs-root host=DIR`, `run
/// --backend nccl`).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fabcheck/model/inventory.hpp"
#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/report/document.hpp"

namespace fabcheck::report {

/// NCCL 2.21.5 is the first release that selects the GID automatically: `NCCL_PARAM(IbGidIndex,
/// "IB_GID_INDEX", -1)` in v2.21.5-1 src/transport/net_ib.cc:80; v2.20.5-1 (and every release before, e.g.
/// v2.18.3-1 src/transport/net_ib.cc:75) has the default 0 and uses it as `sgid_index` as it is.
inline constexpr parse::NcclVersionCode kNcclAutoGidVersion = 22100;

/// The GID index NCCL uses on RoCE ports, with its source.
struct GidIndexInEffect {
  std::optional<int> index;  ///< a fixed index (NCCL_IB_GID_INDEX, or index 0 up to 2.20); nullopt: automatic
                             ///< or unknown
  bool automatic = false;    ///< NCCL >= 2.21 with NCCL_IB_GID_INDEX unset or negative (ncclIbGetGidIndex)
  bool from_env = false;     ///< NCCL_IB_GID_INDEX was set
  std::string source;        ///< "NCCL_IB_GID_INDEX set by environment to 3", "NCCL 2.18.3 default", ...
};

/// What decides the index: `env` holds NCCL's own `NCCL_IB_GID_INDEX set by environment to N` echo (or a
/// command line's assignment); `version` the log's NCCL (0 unknown). `version_min`/`version_max` are the
/// bounds the parser inferred from message formats when no version line is there (0 none). NCCL reads the
/// value with strtoll (src/misc/param.cc): "3" → 3, a negative value on >= 2.21 means automatic.
GidIndexInEffect gid_index_in_effect(const std::map<std::string, std::string>& env,
                                     parse::NcclVersionCode version, parse::NcclVersionCode version_min = 0,
                                     parse::NcclVersionCode version_max = 0);

/// The index NCCL >= 2.21 selects on a RoCE port with NCCL_IB_GID_INDEX unset, honouring NCCL_IB_ADDR_FAMILY
/// and NCCL_IB_ROCE_VERSION_NUM in `env` (a replay of ncclIbGetGidIndex; the rule and its source:
/// gid_rules.hpp).
int nccl_auto_gid_index(const model::RdmaPort& port, const std::map<std::string, std::string>& env);

/// A parsed NCCL_IB_HCA / NCCL_SOCKET_IFNAME value (NCCL's `parseStringList` and `matchIfList`,
/// v2.23.4-1 src/misc/utils.cc:135-190; the `^` and `=` prefixes in src/transport/net_ib.cc:526-530 and
/// src/misc/socket.cc:106-109; docs/env.rst "NCCL_IB_HCA"): a comma list of `name[:port]` entries; without
/// `=` each name matches as a prefix (`mlx5_1` also matches `mlx5_10`), with `=` exactly; a leading `^`
/// selects what matches no entry; an entry without a port matches every port.
struct IfaceFilter {
  struct Entry {
    std::string prefix;  ///< name or name prefix
    int port = -1;       ///< -1: any port
  };
  bool exclude = false;        ///< leading `^`
  bool exact = false;          ///< `=` (after `^` when both)
  std::vector<Entry> entries;  ///< in order
};

/// Parses a value as NCCL does (an entry `:port` takes atoi of the text after the colon).
IfaceFilter parse_iface_filter(std::string_view value);

/// Whether NCCL selects `name` (port `port`, -1 for an interface) under `f` (an empty list selects all).
bool iface_filter_selects(const IfaceFilter& f, const std::string& name, int port);

/// Whether two host names name one machine: equal, or equal up to the first '.' (NCCL prints the name cut
/// there: `node01` ↔ `node01.cluster`). "" matches nothing.
bool same_host_name(std::string_view a, std::string_view b);

/// Host names that the logs' lines carry (the `host` of `host:pid:tid`), sorted, without "".
std::vector<std::string> log_host_names(const std::vector<parse::NcclLog>& logs);

/// The cross-checks (DESIGN §5 "Log x host"). A log host is matched to the inventory host of the same name
/// (the first label of either name suffices: `node01` ↔ `node01.cluster`); an inventory host with no name is
/// every log host's when it is the only inventory. Findings:
/// - GID index in effect (gid_index_in_effect) judged on each RoCE port NCCL listed (`NET/IB : Using`), else
///   on each ACTIVE RoCE port NCCL_IB_HCA selects: an empty slot `GID_INDEX_NOT_ROCEV2` fail; RoCE v1
///   `GID_INDEX_NOT_ROCEV2`, link-local `GID_LINK_LOCAL`, an IPv6 RoCE v2 GID where an IPv4 one exists
///   `GID_INDEX_NOT_IPV4`, each warn, fail when that host's log shows an IB connection error
///   (ibv_modify_qp failed, completion error 12); one job-wide index right on some hosts and wrong on others
///   is one `GID_TABLES_DIFFER` instead. Remedies by version: the index right on every host, else per-host
///   configuration, and "leave it unset" only for NCCL >= 2.21.
/// - `NCCL_IB_HCA_NO_MATCH`: NCCL_IB_HCA selects no RDMA device/port of a host that has some (fail when the
///   log shows NCCL found no device or used sockets there, else warn), the remedy listing the devices.
/// - `SOCKET_IFNAME_NO_MATCH` (fail): NCCL_SOCKET_IFNAME selects no interface of the host (NCCL then finds
///   no socket interface: bootstrap fails).
/// A check already made by the inventory (its launcher environment holds the same NCCL_IB_GID_INDEX) is not
/// repeated unless this one is a fail.
std::vector<Finding> log_host_findings(const std::vector<parse::NcclLog>& logs,
                                       const model::InventoryResult& inventory);

}  // namespace fabcheck::report
