#pragma once
/// @file The local IPv4 addresses of a host from `/proc/net/fib_trie` and `/proc/net/route`: sysfs
/// holds no addresses, and these two files are what a network namespace shows without netlink (so a recorded
/// host model can carry them). fib_trie (net/ipv4/fib_trie.c `fib_trie_seq_show`) prints each leaf as
/// `|-- A.B.C.D` followed by one line per alias, `/32 host LOCAL` for an address of this host; route
/// (net/ipv4/fib_trie.c `fib_route_seq_show`) prints one line per route, `Iface Destination Gateway Flags
/// RefCnt Use Metric Mask ...`, addresses as `%08X` of the network-order word (so "000011AC" is 172.17.0.0 on
/// the little-endian hosts the recorded files come from).
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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

/// One line of `/proc/net/route`: where the kernel sends packets for `dest/prefix_len`.
struct Ipv4Route {
  std::string iface;    ///< output interface ("ens1f0np0")
  std::string dest;     ///< "198.18.1.0"; "0.0.0.0" for the default route
  int prefix_len = 0;   ///< of Mask
  std::string gateway;  ///< "" for a connected route (Gateway 0), else the next hop
};

/// Every route of `/proc/net/route` (the main table as the kernel prints it: `fib_route_seq_show` lists only
/// RT_TABLE_MAIN), in file order. Never throws; the header and unparseable lines are skipped.
std::vector<Ipv4Route> parse_ipv4_routes(std::string_view route);

/// "198.18.1.0/24" for a connected route, "0.0.0.0/0 via 198.18.0.1" for one through a gateway: the form the
/// inventory records per interface (NetInterface::ipv4_routes) and `ipv4_route_of` reads back.
std::string ipv4_route_text(const Ipv4Route& r);

/// The route of `routes` (as `ipv4_route_text` writes them, each with its interface) that the kernel's
/// longest-prefix match picks for `address`; nullopt when none holds it (the kernel answers ENETUNREACH).
/// Metrics and policy rules are not modelled: among equal prefixes the first wins.
struct RouteChoice {
  std::string iface;  ///< output interface
  std::string route;  ///< the route's text
};
std::optional<RouteChoice> ipv4_route_of(const std::vector<std::pair<std::string, std::string>>& routes,
                                         const std::string& address);

}  // namespace fabcheck::parse
