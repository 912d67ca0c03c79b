// The counters reader (counters.hpp): procfs protocol counters, netdev statistics, RDMA port counters.
#include "fabcheck/probes/counters.hpp"

#include <charconv>
#include <chrono>
#include <filesystem>

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
  read_rdma_ports(src.sysfs_root, out);
  out.read_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace fabcheck::probes
