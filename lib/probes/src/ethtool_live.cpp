// SIOCETHTOOL statistics of one interface (ethtool_live.hpp).
#include "ethtool_live.hpp"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace fabcheck::probes::detail {
namespace {

/// A socket closed on every path.
struct EthtoolSocket {
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ~EthtoolSocket() {
    if (fd >= 0) ::close(fd);
  }
};

bool ethtool_ioctl(int fd, const std::string& ifname, void* cmd, EthtoolError& err) {
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
  ifr.ifr_data = static_cast<char*>(cmd);
  if (::ioctl(fd, SIOCETHTOOL, &ifr) == 0) return true;
  err.number = errno;
  err.text = std::string("SIOCETHTOOL ") + ifname + ": " + std::strerror(err.number);
  return false;
}

}  // namespace

std::optional<std::vector<std::pair<std::string, std::int64_t>>> ethtool_stats_live(const std::string& ifname,
                                                                                    EthtoolError& err) {
  EthtoolSocket s;
  if (s.fd < 0) {
    err.number = errno;
    err.text = std::string("socket: ") + std::strerror(err.number);
    return std::nullopt;
  }
  // ethtool_sset_info ends in a flexible array: one __u32 per set asked for (one here).
  std::vector<std::uint64_t> sset_buf((sizeof(ethtool_sset_info) + sizeof(std::uint32_t) + 7) / 8);
  auto* sset = reinterpret_cast<ethtool_sset_info*>(sset_buf.data());
  sset->cmd = ETHTOOL_GSSET_INFO;
  sset->sset_mask = 1ULL << ETH_SS_STATS;
  if (!ethtool_ioctl(s.fd, ifname, sset, err)) return std::nullopt;
  const std::uint32_t n = (sset->sset_mask & (1ULL << ETH_SS_STATS)) ? sset->data[0] : 0;
  std::vector<std::pair<std::string, std::int64_t>> out;
  if (n == 0) return out;
  std::vector<std::uint64_t> str_buf((sizeof(ethtool_gstrings) + std::size_t{n} * ETH_GSTRING_LEN + 7) / 8);
  auto* strings = reinterpret_cast<ethtool_gstrings*>(str_buf.data());
  strings->cmd = ETHTOOL_GSTRINGS;
  strings->string_set = ETH_SS_STATS;
  strings->len = n;
  if (!ethtool_ioctl(s.fd, ifname, strings, err)) return std::nullopt;
  std::vector<std::uint64_t> stat_buf((sizeof(ethtool_stats) + std::size_t{n} * sizeof(std::uint64_t) + 7) /
                                      8);
  auto* stats = reinterpret_cast<ethtool_stats*>(stat_buf.data());
  stats->cmd = ETHTOOL_GSTATS;
  stats->n_stats = n;
  if (!ethtool_ioctl(s.fd, ifname, stats, err)) return std::nullopt;
  const std::uint32_t got = std::min(n, std::min(strings->len, stats->n_stats));
  out.reserve(got);
  for (std::uint32_t i = 0; i < got; ++i) {
    const char* name = reinterpret_cast<const char*>(strings->data) + std::size_t{i} * ETH_GSTRING_LEN;
    const std::uint64_t v = stats->data[i];
    if (v > static_cast<std::uint64_t>(INT64_MAX)) continue;
    out.emplace_back(std::string(name, strnlen(name, ETH_GSTRING_LEN)), static_cast<std::int64_t>(v));
  }
  return out;
}

}  // namespace fabcheck::probes::detail
