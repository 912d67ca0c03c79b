// Local IPv4 addresses from /proc/net/fib_trie and /proc/net/route (proc_net_ipv4.hpp).
#include "fabcheck/parse/proc_net_ipv4.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sstream>

#include "fabcheck/core/ipv4.hpp"

namespace fabcheck::parse {

namespace {

/// "%08X" of a network-order word read on a little-endian host: the first octet is the low byte.
bool route_hex(const std::string& s, std::uint32_t& out) {
  if (s.size() != 8) return false;
  unsigned long v = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "%8lx%c", &v, &tail) != 1) return false;
  out = ((v & 0xff) << 24) | ((v & 0xff00) << 8) | ((v >> 8) & 0xff00) | ((v >> 24) & 0xff);
  return true;
}

struct ConnectedRoute {
  std::string iface;
  std::uint32_t dest = 0, mask = 0;
};

std::vector<ConnectedRoute> connected_routes(std::string_view route) {
  std::vector<ConnectedRoute> out;
  std::istringstream in{std::string(route)};
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string iface, dest, gw, flags, refcnt, use, metric, mask;
    if (!(ls >> iface >> dest >> gw >> flags >> refcnt >> use >> metric >> mask)) continue;
    ConnectedRoute r;
    std::uint32_t g = 0;
    if (!route_hex(dest, r.dest) || !route_hex(mask, r.mask) || !route_hex(gw, g) || g != 0) continue;
    r.iface = iface;
    out.push_back(r);
  }
  return out;
}

int prefix_of(std::uint32_t mask) {
  int n = 0;
  while (n < 32 && (mask & (0x80000000u >> n))) ++n;
  return n;
}

}  // namespace

std::vector<LocalIpv4> parse_local_ipv4(std::string_view fib_trie, std::string_view route) {
  const auto routes = connected_routes(route);
  std::vector<LocalIpv4> out;
  std::istringstream in{std::string(fib_trie)};
  std::string line, leaf;
  while (std::getline(in, line)) {
    auto leaf_at = line.find("|-- ");
    if (leaf_at != std::string::npos) {
      leaf = line.substr(leaf_at + 4);
      while (!leaf.empty() && (leaf.back() == ' ' || leaf.back() == '\r')) leaf.pop_back();
      continue;
    }
    if (leaf.empty() || line.find("/32 host LOCAL") == std::string::npos) continue;
    std::uint32_t addr = 0;
    if (!core::parse_ipv4(leaf, addr) || (addr >> 24) == 127) continue;
    LocalIpv4 a;
    a.address = leaf;
    int best = -1;
    for (const auto& r : routes) {
      int p = prefix_of(r.mask);
      if ((addr & r.mask) == (r.dest & r.mask) && p > best && p > 0) {
        best = p;
        a.iface = r.iface;
        a.prefix_len = p;
      }
    }
    out.push_back(a);
  }
  std::sort(out.begin(), out.end(), [](const LocalIpv4& x, const LocalIpv4& y) {
    return x.iface != y.iface ? x.iface < y.iface : x.address < y.address;
  });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const LocalIpv4& x, const LocalIpv4& y) {
                          return x.iface == y.iface && x.address == y.address;
                        }),
            out.end());
  return out;
}

}  // namespace fabcheck::parse
