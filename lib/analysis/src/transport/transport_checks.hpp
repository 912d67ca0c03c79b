#pragma once
// Checks of the socket paths in NCCL logs (DESIGN §5): one NIC carrying every
// socket connection of a multi-NIC host, and a bootstrap/socket address that cannot route between hosts.
#include <optional>
#include <vector>

#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/report/document.hpp"

namespace fabcheck::report::detail {

/// SOCKET_SINGLE_NIC (warn): a process whose `NET/Socket : Using` lists several interfaces while every
/// NET/Socket connection line goes via one device index. The ceiling is that interface's bandwidth, from
/// NCCL's own topology dump (`+ NET[..] - NET/<n> (asic/port/bw)`) when the log has it.
std::optional<Finding> socket_single_nic(const std::vector<const parse::NcclProcessLog*>& procs);

/// BOOTSTRAP_ADDR_NOT_ROUTABLE (warn): on a job of several hosts, the same bootstrap/socket address on two
/// or more hosts, or an address that routes nowhere between hosts — 172.17.0.0/16 (Docker's default
/// bridge), 192.168.122.0/24 (libvirt's default network), 169.254.0.0/16 (IPv4 link-local, RFC 3927),
/// 127.0.0.0/8.
std::optional<Finding> bootstrap_addr_not_routable(const std::vector<const parse::NcclProcessLog*>& procs,
                                                   std::optional<bool> inter_node);

}  // namespace fabcheck::report::detail
