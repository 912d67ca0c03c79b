#pragma once
/// @file The local IPv4 addresses of a host from `/proc/net/fib_trie` and `/proc/net/route` (issue 24): sysfs
/// holds no addresses, and these two files are what a network namespace shows without netlink (so a recorded
/// host model can carry them). fib_trie (net/ipv4/fib_trie.c `fib_trie_seq_show`) prints each leaf as
/// `|-- A.B.C.D` followed by one line per alias, `/32 host LOCAL` for an address of this host; route
/// (net/ipv4/fib_trie.c `fib_route_seq_show`) prints one line per route, `Iface Destination Gateway Flags
/// RefCnt Use Metric Mask ...`, addresses as `%08X` of the network-order word (so "000011AC" is 172.17.0.0 on
/// the little-endian hosts the recorded files come from).
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::parse {

/// One local IPv4 address and the interface whose connected route holds it.
struct LocalIpv4 {
  std::string iface;    ///< "docker0"; "" when no route of the route file contains the address
  std::string address;  ///< "172.17.0.1"
  int prefix_len = 32;  ///< of the narrowest connected (gateway 0) route holding it, 32 without one
};

/// Pairs every `/32 host LOCAL` leaf of `fib_trie` with the narrowest gateway-less route of `route` that
/// contains it; 127.0.0.0/8 is left out. Sorted by interface, then address; duplicates (the trie repeats a
/// leaf per table) once. Never throws; unparseable lines are skipped.
std::vector<LocalIpv4> parse_local_ipv4(std::string_view fib_trie, std::string_view route);

}  // namespace fabcheck::parse
