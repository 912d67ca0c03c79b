#pragma once
/// @file Result structs of the nics probe's RDMA verbs part: every active RDMA port of every host
/// against every active port of every other host, over RC queue pairs. No verbs headers: lib/probes fills
/// them (src/nics_verbs.cpp, compiled only with libibverbs), lib/analysis reads them.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fabcheck::model {

/// One active RDMA port of a host as the verbs part uses it.
struct VerbsNicPort {
  std::string device;            ///< ibv_get_device_name ("mlx5_0")
  int port = 1;                  ///< port number (from 1)
  std::string link_layer;        ///< "InfiniBand" or "Ethernet" (RoCE)
  std::string netdev;            ///< RoCE: the chosen GID's netdev; IB: "" (no netdev in the GID table)
  int gid_index = 0;             ///< the source GID index (nccl_gid_index)
  std::string gid_index_source;  ///< "NCCL_IB_GID_INDEX", "nccl_auto" (RoCE), "ib_gid0" (IB)
  std::string gid;               ///< that GID, 8 groups of 4 hex digits
  int lid = 0;                   ///< port LID (IB addressing; 0 on RoCE)
  int active_mtu_bytes = 0;      ///< ibv_port_attr.active_mtu in bytes
};

/// A port as JSON: the report's `nics.verbs.hosts[].ports[]` and what the host leaders exchange over MPI.
nlohmann::json verbs_port_json(const VerbsNicPort& p);
/// Back from verbs_port_json. @throws nlohmann::json::exception on a missing or mistyped key.
VerbsNicPort verbs_port_from_json(const nlohmann::json& j);

/// One host's verbs state: its active ports, or why it has none.
struct VerbsHost {
  std::vector<VerbsNicPort> ports;  ///< active ports, device then port order
  std::string skipped;              ///< why this host takes no part ("" = it does)
};

/// One directed port pair: `from` writes into `to`'s memory (RDMA WRITE bandwidth from → to) and runs the
/// latency ping-pong as its initiator.
struct VerbsLink {
  int from_host = 0, from_port = 0, to_host = 0, to_port = 0;  ///< host index, index into VerbsHost::ports
  bool reachable = false;            ///< the first RDMA WRITE completed successfully
  std::string error;                 ///< why not (a work completion status, a failed ibv_modify_qp, ...)
  int path_mtu_bytes = 0;            ///< min of the two ports' active MTUs
  std::optional<double> bw_gbps;     ///< RDMA WRITE bandwidth from → to, 1e9 B/s (ib_write_bw BW average)
  std::optional<double> lat_p50_us;  ///< half round trip of an 8 B RDMA WRITE ping-pong (ib_write_lat)
  std::optional<double> lat_p99_us;  ///< same, p99
};

/// The verbs part of a nics result.
struct NicsVerbs {
  std::string skipped;               ///< why nothing was measured ("" = measured); `skipped: <reason>`
  std::vector<VerbsHost> hosts;      ///< per host index (empty when skipped before the exchange)
  std::vector<VerbsLink> links;      ///< every directed port pair tried
  std::uint64_t msg_size_bytes = 0;  ///< RDMA WRITE size of the bandwidth test
  int iters = 0, tx_depth = 0;       ///< WRITEs per direction, WRITEs in flight
  int lat_iters = 0;                 ///< timed round trips per direction
};

}  // namespace fabcheck::model
