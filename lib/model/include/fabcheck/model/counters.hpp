#pragma once
/// @file The hosts' own loss and error counters around a probe step: what lib/probes reads on each
/// host leader before and after a step, and the per-host deltas the report keeps in
/// `run.sections.<section>.counters` (report/counters.hpp judges them).
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::model {

/// One reading of a host's counters. Names:
///   `Tcp.RetransSegs`, `TcpExt.TCPTimeouts`, ...      /proc/net/snmp and /proc/net/netstat (this namespace)
///   `net.<if>.<file>`                                 /sys/class/net/<if>/statistics/<file> (not `lo`)
///   `ethtool.<if>/<stat>`                             the driver's pause/discard statistics (`ethtool -S`)
///   `rdma.<dev>.<port>.<file>` /sys/class/infiniband/<dev>/ports/<port>/counters/<file>
///   `rdma.<dev>.<port>.hw.<file>`                     .../ports/<port>/hw_counters/<file>
/// The port counters in 4-byte words (`port_xmit_data`, `port_rcv_data`) are kept as read.
struct CounterSnapshot {
  std::map<std::string, std::int64_t> values;
  std::vector<std::string> skipped;  ///< "<source>: <reason>" for each source that could not be read
  double read_us = 0;                ///< what the reading cost on this host
};

/// One host's change over a step.
struct HostCounterDelta {
  std::string host;
  std::map<std::string, std::int64_t> deltas;  ///< after - before, only counters that moved
  std::vector<std::string> skipped;  ///< from either reading; non-empty and no deltas: nothing known
  std::vector<std::string> reset;    ///< counters that went backwards (reset or wrapped): left out
  double read_us = 0;                ///< both readings' cost
};

/// The counters of one step on every host.
struct StepCounters {
  double duration_s = 0;  ///< the step's time between the two readings
  std::vector<HostCounterDelta> hosts;
};

/// `after - before` per counter; counters only in one of them are left out, those that went backwards are
/// listed in `reset`.
HostCounterDelta counter_delta(const std::string& host, const CounterSnapshot& before,
                               const CounterSnapshot& after);

/// A snapshot as one line of JSON (for gathering to rank 0) and back; an unreadable line gives a snapshot
/// whose `skipped` says so.
std::string to_line(const CounterSnapshot& s);
CounterSnapshot counter_snapshot_from_line(const std::string& line);

/// The loss and error counters the console and the HTML show when they moved, by where they sit: the RDMA
/// port counters (`rdma.<dev>.<port>.<name>`: link errors, discards, RoCE sequence errors and CNPs) and the
/// netdev statistics (`net.<if>.<file>`: drops and errors).
inline constexpr std::array<std::string_view, 10> kShownRdmaCounters = {
    "symbol_error",       "link_error_recovery", "link_downed",       "port_rcv_errors",
    "port_xmit_discards", "hw.out_of_sequence",  "hw.packet_seq_err", "hw.local_ack_timeout_err",
    "hw.np_cnp_sent",     "hw.rp_cnp_handled"};
inline constexpr std::array<std::string_view, 6> kShownNetdevStats = {
    "rx_dropped", "rx_missed_errors", "rx_crc_errors", "tx_dropped", "rx_errors", "tx_errors"};

/// Whether a driver statistic (`ethtool.<if>/<stat>`'s stat) is one shown when it moved: the pause
/// durations, pause-storm events and buffer discards.
bool is_shown_ethtool_stat(std::string_view stat);

/// Whether a counter name (above) is one of the loss or error counters the console and the HTML show when it
/// moved: kShownRdmaCounters, kShownNetdevStats, is_shown_ethtool_stat. A classification of names: the report
/// judges the counters (report/counters.hpp), the HTML lists those that moved.
bool is_shown_counter(std::string_view name);

}  // namespace fabcheck::model
