#pragma once
/// @file Result structs of the nics probe, as the report model holds them: lib/probes fills them,
/// lib/analysis and lib/render read them, without MPI.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/core/link_outliers.hpp"
#include "fabcheck/core/pair_schedule.hpp"
#include "fabcheck/model/nics_verbs.hpp"
#include "fabcheck/model/options_nics.hpp"

namespace fabcheck::model {

/// One network interface of a host (IPv4).
struct NicInfo {
  std::string name;                  ///< interface name (eth0)
  std::string addr;                  ///< IPv4 address (dotted)
  int prefix_len = 0;                ///< prefix length of that address
  bool carrier = true;               ///< IFF_RUNNING: the link is up (false: no carrier)
  bool data = false;                 ///< selected as a data NIC by NicsOptions::ifaces (measured)
  std::optional<double> speed_mbps;  ///< /sys/class/net/<if>/speed where the driver reports one
  int rail = -1;                     ///< index into NicsResult::rails (its subnet); -1 when not a data NIC
};

/// One directed NIC pair: the client on (from_host, from_nic) connects to the server on (to_host, to_nic),
/// streams bytes to it (bandwidth from → to) and then times 8 B round trips.
struct NicLink {
  int from_host = 0, from_nic = 0, to_host = 0, to_nic = 0;  ///< host index, index into that host's nics
  bool reachable = false;                                    ///< connected within the timeout
  bool bound_device = true;  ///< the client socket was bound to its interface (SO_BINDTODEVICE permitted)
  std::string error;         ///< why not ("timed out after 1000 ms", …)
  std::optional<double> connect_us;              ///< time to connect
  std::optional<double> bw_gbps;                 ///< from → to, 1e9 B/s
  std::optional<double> lat_p50_us, lat_p99_us;  ///< half round trip of 8 B
};

/// A re-measurement of a slow-NIC suspect's link, or of a good reference link of the same rail.
struct NicRetest {
  std::string role;  ///< "link" or "reference"
  int rail = 0, from_host = 0, to_host = 0;
  double first_gbps = 0;          ///< the value of the all-pairs pass
  std::optional<double> value;    ///< re-measured (nullopt: it failed)
  std::optional<bool> still_bad;  ///< links only: core::still_outlier against the worst reference
};

/// Per rail: the host × host bandwidth matrix of the rail's NICs and its DESIGN §4 analysis.
struct NicRail {
  std::string subnet;           ///< CIDR, e.g. 198.18.7.0/24
  core::LinkMatrix bw_gbps;     ///< [from host][to host] between the two hosts' NICs on this rail
  core::LinkMatrix lat_p50_us;  ///< [a][b] = [b][a]
  core::LinkAnalysis analysis;  ///< outliers and suspects (a suspect host = its NIC on this rail)
  std::vector<std::optional<bool>> confirmed;   ///< per analysis.suspects: retest verdict (nullopt: none)
  std::optional<double> retest_reference_gbps;  ///< worst re-measured reference link
};

/// One interface that NCCL's log says a host's NCCL used for TCP.
struct NcclIfaceUse {
  std::string role;  ///< "bootstrap" (`Bootstrap : Using`, 2.3's `NET : Using interface`) or "socket"
                     ///< (`NET/Socket : Using`: the Socket transport's data interfaces)
  std::string name;  ///< interface name as NCCL printed it (eth0)
  std::string addr;  ///< address as printed, without the `<port>` tail
};

/// A host of the `--nccl-log` log: the interfaces its processes named (the `host` of `host:pid:tid`).
struct NcclLogHost {
  std::string host;                  ///< as the log prints it (first label of the host name)
  int host_index = -1;               ///< index into NicsResult::hosts; -1: not a measured host
  std::string network;               ///< last `Using network X` of its processes ("" none)
  std::vector<NcclIfaceUse> ifaces;  ///< distinct (role, name, addr), log order
};

/// Result on rank 0 (other ranks: hosts and schedule only).
struct NicsResult {
  std::vector<std::string> hosts;           ///< host names, host index order
  std::vector<std::vector<NicInfo>> nics;   ///< per host: every IPv4 interface that is up
  std::vector<NicLink> links;               ///< every directed NIC pair measured
  std::vector<NicRail> rails;               ///< one per distinct data-NIC subnet, sorted
  std::vector<NicRetest> retests;           ///< what was re-measured
  std::vector<core::PairRound> schedule;    ///< rounds of host pairs that ran
  std::map<std::string, std::string> env;   ///< rank 0's NCCL_/OMPI_MCA_/UCX_ interface settings
  NicsVerbs verbs;                          ///< the RDMA verbs part (or why it was skipped)
  std::vector<NcclLogHost> nccl_log_hosts;  ///< hosts of options.nccl_log (empty: no log, or no host line)
  NicsOptions options;                      ///< as run
  double duration_s = 0;                    ///< wall time of the probe
};

/// Numbers every data NIC's subnet (sorted CIDR text) into r.rails[].subnet and sets NicInfo::rail; then
/// fills each rail's bw_gbps / lat_p50_us from r.links whose two NICs are on that rail (a host with several
/// NICs on one rail: its first). Clears the rails' analysis.
void assign_rails(NicsResult& r);

/// The data NIC of `host` on `rail` (index into r.nics[host]), or -1.
int nic_on_rail(const NicsResult& r, int host, int rail);

}  // namespace fabcheck::model
