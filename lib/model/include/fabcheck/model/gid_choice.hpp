#pragma once
/// @file Which GID index NCCL uses on an RDMA port (the nics probe's verbs part uses the same one;
/// the inventory's and the log × host findings judge it). Pure: works on the GID table as model::RdmaPort
/// holds it, whether read from sysfs or from ibv_query_gid_ex.
#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "fabcheck/model/inventory.hpp"

namespace fabcheck::model {

/// A GID slot from its 16 raw bytes (network order, `union ibv_gid.raw`): `gid` as sysfs prints it (8 groups
/// of 4 hex digits), `link_local` for fe80::/64, `ipv4` (dotted) when IPv4-mapped (::ffff:a.b.c.d: NCCL's
/// getGidAddrFamily → AF_INET), `type` as given ("IB", "RoCE v1", "RoCE v2").
GidEntry gid_entry_of(int index, const std::array<std::uint8_t, 16>& raw, std::string type,
                      std::string netdev);

/// The index NCCL >= 2.21 selects on a RoCE port when NCCL_IB_GID_INDEX is unset (or negative): a replay of
/// `ncclIbGetGidIndex` / `ncclUpdateGidIndex` (NVIDIA/nccl v2.30.7-1 src/transport/net_ib/connect.cc:268-337,
/// the same rule as v2.21.5-1 src/transport/net_ib.cc:260-305): start at 0; for each later slot, a candidate
/// of the wanted address family replaces a current slot of the other family; else a valid (configured, not
/// link-local) candidate of the wanted family replaces the current one when the current is invalid or of
/// another RoCE version, and the candidate has the wanted version. Family from `NCCL_IB_ADDR_FAMILY` (AF_INET
/// default, AF_INET6), version from `NCCL_IB_ROCE_VERSION_NUM` (default 2); `NCCL_IB_ADDR_RANGE` is not
/// replayed (every candidate counts as inside the range). An empty slot reads as the all-zero GID (IPv6
/// family, invalid). With the defaults: the first IPv4-mapped RoCE v2 GID.
int nccl_auto_gid_index(const RdmaPort& p, const std::map<std::string, std::string>& env);

/// A GID index and where it came from.
struct GidChoice {
  int index = 0;
  std::string source;  ///< "NCCL_IB_GID_INDEX", "nccl_auto", "ib_gid0", "ib_routable_flid"
};

/// The GID index NCCL uses on `p` (ncclIbGetGidIndex, v2.30.7-1 connect.cc:298-337):
/// - InfiniBand: the slot NCCL_IB_ROUTABLE_FLID_GID_INDEX (default 1) when its GID carries a non-zero FLID
///   (bytes 4-5 of the GID, ncclIbExtractFlid), else 0; addressing is by LID within a subnet (qp_rtr_attr).
/// - RoCE (link_layer "Ethernet"): NCCL_IB_GID_INDEX when set to a number >= 0, else nccl_auto_gid_index().
GidChoice nccl_gid_index(const RdmaPort& p, const std::map<std::string, std::string>& env);

}  // namespace fabcheck::model
