// The counters reader (counters.hpp): procfs protocol counters, netdev statistics, the NIC drivers' pause and
// discard statistics (ethtool), RDMA port counters.
#include "fabcheck/probes/counters.hpp"

#include <cerrno>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <regex>

#include "ethtool_live.hpp"
#include "fabcheck/parse/ethtool_stats.hpp"
#include "fabcheck/parse/proc_net.hpp"
#include "sysfs_read.hpp"

namespace fabcheck::probes {
namespace {

namespace fs = std::filesystem;

/// A counter file's value: one unsigned decimal integer (sysfs counters); nullopt for "N/A" and the like.
std::optional<std::int64_t> counter_value(const fs::path& p) {
  const auto s = detail::read_attr(p);
  if (!s || s->empty()) return std::nullopt;
  std::int64_t v = 0;
  const char* e = s->data() + s->size();
  const auto r = std::from_chars(s->data(), e, v);
  if (r.ec != std::errc() || r.ptr != e || v < 0) return std::nullopt;
  return v;
}

/// Every readable counter file of `dir` as `<prefix><file>`.
void read_counter_dir(const fs::path& dir, const std::string& prefix, model::CounterSnapshot& out) {
  for (const auto& f : detail::list_dir(dir)) {
    if (const auto v = counter_value(dir / f)) out.values[prefix + f] = *v;
  }
}

/// The protocol counters kept (the rest of /proc/net/snmp and netstat say nothing about loss): every `Tcp.`
/// counter, the TcpExt retransmission, timeout and drop counters, and the ECN marks IpExt counts (CE = a
/// switch marked congestion).
bool kept_proc_counter(const std::string& name) {
  static const char* const kKept[] = {
      "TcpExt.TCPTimeouts",     "TcpExt.TCPLostRetransmit",   "TcpExt.TCPSynRetrans",
      "TcpExt.TCPFastRetrans",  "TcpExt.TCPSlowStartRetrans", "TcpExt.TCPLossProbes",
      "TcpExt.TCPSpuriousRTOs", "TcpExt.TCPRetransFail",      "TcpExt.TCPBacklogDrop",
      "TcpExt.TCPRcvQDrop",     "TcpExt.ListenDrops",         "TcpExt.ListenOverflows",
      "TcpExt.TCPOFOQueue",     "TcpExt.TCPDSACKRecv",        "TcpExt.TCPDSACKRecvSegs",
      "IpExt.InCEPkts",         "IpExt.InECT0Pkts",           "IpExt.InECT1Pkts"};
  if (name.rfind("Tcp.", 0) == 0) return true;
  return std::find(std::begin(kKept), std::end(kKept), name) != std::end(kKept);
}

void read_proc_net(const std::string& proc_root, model::CounterSnapshot& out) {
  for (const char* name : {"net/snmp", "net/netstat"}) {
    const fs::path p = fs::path(proc_root) / name;
    const auto text = detail::read_attr(p);
    if (!text) {
      out.skipped.push_back(p.string() + ": cannot read");
      continue;
    }
    for (const auto& [k, v] : parse::parse_proc_net_counters(*text).values)
      if (kept_proc_counter(k)) out.values[k] = v;
  }
}

void read_netdevs(const std::string& sysfs_root, model::CounterSnapshot& out) {
  const fs::path net = fs::path(sysfs_root) / "class/net";
  std::error_code ec;
  if (!fs::is_directory(net, ec)) {
    out.skipped.push_back(net.string() + ": not a directory");
    return;
  }
  for (const auto& ifname : detail::list_dir(net)) {
    if (ifname == "lo") continue;
    read_counter_dir(net / ifname / "statistics", "net." + ifname + ".", out);
  }
}

/// The driver statistics kept: pause frames and their durations (PFC per priority and global pause), the
/// NIC's pause-storm prevention events, and discards for lack of buffers — named as mlx5 names them (Linux
/// Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst: `rx_prio[p]_pause`,
/// `rx_prio[p]_pause_duration` in µs, `tx_pause_storm_warning_events`, `tx_pause_storm_error_events`,
/// `rx_discards_phy`, `rx_out_of_buffer`, `rx_prio[p]_buf_discard`, `rx_prio[p]_cong_discard`) and as Intel's
/// ixgbe/ice name their flow-control counts (`rx_flow_control_xoff`, `tx_priority_<p>_xoff.nic`). Per-ring
/// and per-channel statistics (`rx3_packets`, `ch0_events`, `rx_queue_0_…`) are left out: a 64-queue NIC has
/// thousands and they say nothing about the fabric.
bool kept_ethtool_stat(const std::string& name) {
  static const std::regex per_ring(R"(^(rx|tx|ch|xdp)[0-9]+_|(^|_)queue_[0-9]+_|^(rx|tx)q[0-9]+)");
  static const std::regex wanted(R"(pause|storm|discard|out_of_buffer|xoff)");
  return std::regex_search(name, wanted) && !std::regex_search(name, per_ring);
}

/// `ethtool.<if>/<stat>` (`/` never occurs in an interface name; both may hold dots) for every interface but
/// `lo`: from the kernel on the live host (sysfs_root "/sys"), else from the recorded `ethtool -S <if>`
/// outputs `<sysfs_root>/ethtool/<if>` (not a kernel path: a capture saved beside the tree, as the RoCE QoS
/// reader keeps `mlnx_qos/<if>`). A driver without statistics (EOPNOTSUPP) or an interface gone since it was
/// listed (ENODEV) skips nothing.
void read_ethtool(const std::string& sysfs_root, model::CounterSnapshot& out) {
  const fs::path root(sysfs_root);
  const bool live = sysfs_root == "/sys";
  for (const auto& ifname : detail::list_dir(root / "class/net")) {
    if (ifname == "lo") continue;
    std::vector<std::pair<std::string, std::int64_t>> stats;
    if (live) {
      detail::EthtoolError err;
      auto got = detail::ethtool_stats_live(ifname, err);
      if (!got) {
        if (err.number != EOPNOTSUPP && err.number != ENODEV) out.skipped.push_back(err.text);
        continue;
      }
      stats = std::move(*got);
    } else if (const auto text = detail::read_attr(root / "ethtool" / ifname)) {
      stats = parse::parse_ethtool_stats(*text).values;
    }
    for (const auto& [name, v] : stats)
      if (kept_ethtool_stat(name)) out.values["ethtool." + ifname + "/" + name] = v;
  }
}

void read_rdma_ports(const std::string& sysfs_root, model::CounterSnapshot& out) {
  const fs::path ib = fs::path(sysfs_root) / "class/infiniband";
  for (const auto& dev : detail::list_dir(ib)) {
    for (const auto& port : detail::list_dir(ib / dev / "ports")) {
      const fs::path pp = ib / dev / "ports" / port;
      const std::string prefix = "rdma." + dev + "." + port + ".";
      read_counter_dir(pp / "counters", prefix, out);
      read_counter_dir(pp / "hw_counters", prefix + "hw.", out);
    }
  }
}

}  // namespace

model::CounterSnapshot read_counters(const CounterSources& src) {
  const auto t0 = std::chrono::steady_clock::now();
  model::CounterSnapshot out;
  read_proc_net(src.proc_root, out);
  read_netdevs(src.sysfs_root, out);
  read_ethtool(src.sysfs_root, out);
  read_rdma_ports(src.sysfs_root, out);
  out.read_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace fabcheck::probes
