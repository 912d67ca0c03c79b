#pragma once
/// @file Reads a host's own loss and error counters: the TCP stack of this network namespace,
/// every netdev's statistics, its driver's pause and discard statistics (ethtool), and every RDMA port's
/// counters. The host leader reads them before and after each
/// probe step (suite); report/counters.hpp judges the deltas.
#include <string>

#include "fabcheck/model/counters.hpp"

namespace fabcheck::probes {

/// Where the counters are read from: the live host, or recorded trees (tests, `--sysfs-root`).
struct CounterSources {
  std::string sysfs_root =
      "/sys";  ///< class/net/*/statistics, class/infiniband/*/ports/*/{counters,hw_counters}
  std::string proc_root = "/proc";  ///< net/snmp, net/netstat (per network namespace)
};

/// One reading. Never throws: a source that is missing or not readable (permission) is named in `skipped`
/// with its reason ("/proc/net/netstat: cannot read"); a host without RDMA devices skips nothing (no
/// devices is not an error). `lo` is left out (its traffic never leaves the host).
model::CounterSnapshot read_counters(const CounterSources& src = {});

}  // namespace fabcheck::probes
