#pragma once
/// @file Reader of `ethtool -S <if>` output: the NIC driver's own statistics, as the ethtool
/// utility prints what the kernel's ETHTOOL_GSTRINGS/ETHTOOL_GSTATS return — a title line `NIC statistics:`
/// and one `     <name>: <value>` line per statistic (ethtool's ethtool.c do_gnicstats/dump_stats). A
/// recorded host keeps one such file per interface; the live reader asks the kernel directly.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabcheck::parse {

/// The statistics of one interface, in file order.
struct EthtoolStats {
  std::vector<std::pair<std::string, std::int64_t>> values;  ///< ("tx_pause_storm_error_events", 0), ...
  int skipped_lines = 0;  ///< lines that are neither the title, blank, nor `<name>: <unsigned integer>`
};

/// Parses `ethtool -S` text. Never throws. A name may hold spaces or dots (`tx_priority_0_xoff.nic`); the
/// value is what follows the last ": ".
EthtoolStats parse_ethtool_stats(std::string_view text);

}  // namespace fabcheck::parse
