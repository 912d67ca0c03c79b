#pragma once
// Private to lib/probes: one interface's driver statistics from the kernel (SIOCETHTOOL), as `ethtool -S`
// prints them. counters.cpp keeps the ones that say something about loss and pause.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fabcheck::probes::detail {

/// Why a reading failed: errno and one line.
struct EthtoolError {
  int number = 0;
  std::string text;
};

/// ETHTOOL_GSSET_INFO (ETH_SS_STATS) → ETHTOOL_GSTRINGS → ETHTOOL_GSTATS on `ifname` in this network
/// namespace (include/uapi/linux/ethtool.h). nullopt with `err` set when the ioctl fails (no such device,
/// EOPNOTSUPP: a driver without statistics); an empty list when the driver has none.
std::optional<std::vector<std::pair<std::string, std::int64_t>>> ethtool_stats_live(const std::string& ifname,
                                                                                    EthtoolError& err);

}  // namespace fabcheck::probes::detail
