// Local IPv4 addresses from /proc/net/fib_trie and /proc/net/route (proc_net_ipv4.hpp).
#include "fabcheck/parse/proc_net_ipv4.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

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

struct RawRoute {
  std::string iface;
  std::uint32_t dest = 0, mask = 0, gateway = 0;
};

std::vector<RawRoute> raw_routes(std::string_view route) {
  std::vector<RawRoute> out;
  std::istringstream in{std::string(route)};
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string iface, dest, gw, flags, refcnt, use, metric, mask;
    if (!(ls >> iface >> dest >> gw >> flags >> refcnt >> use >> metric >> mask)) continue;
    RawRoute r;
    if (!route_hex(dest, r.dest) || !route_hex(mask, r.mask) || !route_hex(gw, r.gateway)) continue;
    r.iface = iface;
    out.push_back(r);
  }
  return out;
}

std::vector<RawRoute> connected_routes(std::string_view route) {
  auto all = raw_routes(route);
  all.erase(std::remove_if(all.begin(), all.end(), [](const RawRoute& r) { return r.gateway != 0; }),
            all.end());
  return all;
}

int prefix_of(std::uint32_t mask) {
  int n = 0;
  while (n < 32 && (mask & (0x80000000u >> n))) ++n;
  return n;
}

std::string dotted(std::uint32_t a) {
  return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 0xff) + "." +
         std::to_string((a >> 8) & 0xff) + "." + std::to_string(a & 0xff);
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

std::vector<Ipv4Route> parse_ipv4_routes(std::string_view route) {
  std::vector<Ipv4Route> out;
  for (const auto& r : raw_routes(route))
    out.push_back(
        {r.iface, dotted(r.dest), prefix_of(r.mask), r.gateway ? dotted(r.gateway) : std::string()});
  return out;
}

std::string ipv4_route_text(const Ipv4Route& r) {
  std::string t = r.dest + "/" + std::to_string(r.prefix_len);
  if (!r.gateway.empty()) t += " via " + r.gateway;
  return t;
}

std::optional<RouteChoice> ipv4_route_of(const std::vector<std::pair<std::string, std::string>>& routes,
                                         const std::string& address) {
  std::uint32_t addr = 0;
  if (!core::parse_ipv4(address, addr)) return std::nullopt;
  std::optional<RouteChoice> best;
  int best_len = -1;
  for (const auto& [iface, text] : routes) {
    const auto slash = text.find('/');
    std::uint32_t dest = 0;
    if (slash == std::string::npos || !core::parse_ipv4(std::string_view(text).substr(0, slash), dest))
      continue;
    const int len = std::atoi(text.c_str() + slash + 1);
    if (len < 0 || len > 32) continue;
    const std::uint32_t mask = len == 0 ? 0u : 0xffffffffu << (32 - len);
    if ((addr & mask) != (dest & mask) || len <= best_len) continue;
    best_len = len;
    best = RouteChoice{iface, text};
  }
  return best;
}

}  // namespace fabcheck::parse
