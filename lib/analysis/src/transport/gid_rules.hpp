#pragma once
// The GID-table rules shared by the inventory's findings (inventory.cpp, the launcher's NCCL_IB_GID_INDEX)
// and the log x host cross-checks (log_host_gid.cpp, the index NCCL's own log shows in effect): one reading
// of a slot, one judgement, one simulation of NCCL's automatic selection.
#include <map>
#include <optional>
#include <string>

#include "fabcheck/model/inventory.hpp"

namespace fabcheck::report::detail {

/// The non-empty slot `idx` of `p`, or nullptr (empty slots are not listed).
const model::GidEntry* gid_at(const model::RdmaPort& p, int idx);

/// A configured index on a RoCE port: "ok" (RoCE v2, not link-local), "empty", "not_rocev2" (RoCE v1 or
/// typeless), "link_local" (fe80::/64).
std::string judge_gid(const model::RdmaPort& p, int idx);

/// The first IPv4-mapped, non-link-local RoCE v2 slot of `p` (what NCCL's automatic selection takes with its
/// defaults, and the index to recommend), or nullopt.
std::optional<int> ipv4_rocev2_index(const model::RdmaPort& p);

/// The index NCCL >= 2.21 selects on a RoCE port when NCCL_IB_GID_INDEX is unset (or negative): a replay of
/// `ncclIbGetGidIndex` / `ncclUpdateGidIndex` (NVIDIA/nccl v2.21.5-1 src/transport/net_ib.cc:260-305,
/// unchanged for RoCE in v2.23.4-1:src/transport/net_ib.cc:385-420): start at 0; a candidate of the wanted
/// address family replaces a current slot of the other family; else a valid (configured, not link-local)
/// candidate of the wanted family replaces the current one when the current is invalid or of another RoCE
/// version, and the candidate has the wanted version. Family from `NCCL_IB_ADDR_FAMILY` (AF_INET default,
/// AF_INET6), version from `NCCL_IB_ROCE_VERSION_NUM` (default 2); `NCCL_IB_ADDR_RANGE` is not replayed
/// (every candidate counts as inside the range). An empty slot reads as the all-zero GID (IPv6 family,
/// invalid). Forwards to model::nccl_auto_gid_index (model/gid_choice.hpp), which the nics probe's verbs part
/// shares.
int nccl_auto_gid_index(const model::RdmaPort& p, const std::map<std::string, std::string>& env);

}  // namespace fabcheck::report::detail
