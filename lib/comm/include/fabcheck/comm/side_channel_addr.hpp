#pragma once
/// @file Which of rank 0's addresses the watchdog's side channel uses (the watchdog talks TCP, not
/// MPI, from its thread). The heartbeats should travel the path MPI's data travels, so that a rank whose data
/// link is cut falls silent: Open MPI's TCP BTL picks interfaces by `btl_tcp_if_include` (a list of interface
/// names or CIDR blocks) or else by `btl_tcp_if_exclude` (default `127.0.0.1/8,sppp`; Open MPI
/// opal/mca/btl/tcp/btl_tcp_component.c, "btl_tcp_if_include" / "btl_tcp_if_exclude" parameters; mpirun
/// passes command-line `--mca` values to the ranks as `OMPI_MCA_<name>` variables). Pure functions, no
/// sockets.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::comm {

/// One IPv4 address of a local interface.
struct InterfaceAddress {
  std::string ifname;      ///< e.g. "eth0"
  std::uint32_t ipv4 = 0;  ///< host byte order
};

/// Open MPI's default `btl_tcp_if_exclude`.
inline constexpr std::string_view kOmpiDefaultIfExclude = "127.0.0.1/8,sppp";

/// True when `a` matches one token of an Open MPI interface list: an interface name (exact) or an IPv4 CIDR
/// block `a.b.c.d/n` (a bare address counts as /32). Tokens are separated by commas; blanks around them
/// ignored.
bool interface_matches(const InterfaceAddress& a, std::string_view list);

/// Rank 0's addresses the other ranks try, in this order: with `include` non-empty those it matches, else
/// those `exclude` (empty = kOmpiDefaultIfExclude) does not; when that leaves none, every address that is not
/// loopback. Order of `all` is kept (getifaddrs order).
std::vector<InterfaceAddress> side_channel_candidates(const std::vector<InterfaceAddress>& all,
                                                      std::string_view include, std::string_view exclude);

/// Dotted quad of a host-order IPv4 address.
std::string ipv4_text(std::uint32_t ipv4);

}  // namespace fabcheck::comm
