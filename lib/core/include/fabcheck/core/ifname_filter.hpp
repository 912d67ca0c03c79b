#pragma once
/// @file Interface-name filters in NCCL_SOCKET_IFNAME syntax, and IPv4 subnets. Pure, no I/O.
#include <cstdint>
#include <string>
#include <string_view>

namespace fabcheck::core {

/// Whether interface `name` passes `spec`, read as NCCL reads NCCL_SOCKET_IFNAME (NCCL environment
/// variables docs: "a comma-separated list of prefixes; `^` in front excludes them; `=` in front makes the
/// names exact"; `^=` excludes exact names): "eth" passes eth0 and eth1, "^lo,docker" passes every name but
/// lo* and docker*, "=eth0" passes eth0 only. An empty spec passes every name. A `:port` suffix on an item
/// (NCCL_IB_HCA style) is not part of the name and is ignored.
bool ifname_matches(std::string_view spec, std::string_view name);

/// "a.b.c.d/len" of the network holding `addr` (host order) with prefix length `len` (0..32).
std::string ipv4_subnet(std::uint32_t addr, int len);

/// Whether dotted `addr` lies in `cidr` ("198.18.0.0/15"); false when either does not parse.
bool ipv4_in_subnet(std::string_view addr, std::string_view cidr);

}  // namespace fabcheck::core
