// This host's interfaces for the nics probe (probes/nics.hpp: local_nics).
#include <fmt/format.h>

#include <algorithm>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include "fabcheck/core/ifname_filter.hpp"
#include "fabcheck/probes/nics.hpp"
#include "sysfs_read.hpp"

namespace fabcheck::probes {

std::vector<model::NicInfo> local_nics(const std::string& ifaces, const std::string& sysfs_root) {
  std::vector<model::NicInfo> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || !a->ifa_name) continue;
    if (!(a->ifa_flags & IFF_UP) || (a->ifa_flags & IFF_LOOPBACK)) continue;
    model::NicInfo n;
    n.name = a->ifa_name;
    char buf[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr, buf, sizeof buf);
    n.addr = buf;
    if (a->ifa_netmask) {
      const std::uint32_t m = ntohl(reinterpret_cast<const sockaddr_in*>(a->ifa_netmask)->sin_addr.s_addr);
      n.prefix_len = __builtin_popcount(m);
    }
    n.carrier = (a->ifa_flags & IFF_RUNNING) != 0;
    n.data = core::ifname_matches(ifaces, n.name);
    // /sys/class/net/<if>/speed: Mbit/s; -1 or unreadable where the driver has none (or no carrier).
    if (const auto mbps = detail::read_long(fmt::format("{}/class/net/{}/speed", sysfs_root, n.name));
        mbps && *mbps > 0)
      n.speed_mbps = static_cast<double>(*mbps);
    out.push_back(std::move(n));
  }
  ::freeifaddrs(list);
  std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.name < y.name; });
  return out;
}

}  // namespace fabcheck::probes
