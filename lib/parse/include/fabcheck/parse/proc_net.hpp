#pragma once
/// @file Reader of the kernel's per-namespace protocol counters, `/proc/net/snmp` and `/proc/net/netstat`.
/// Both files are pairs of lines: a header `Tcp: RtoAlgorithm RtoMin ... RetransSegs ...` and a
/// value line `Tcp: 1 200 ... 160 ...` with the same prefix (Linux net/ipv4/proc.c: snmp_seq_show_tcp_udp,
/// netstat_seq_show). A counter is named `<Prefix>.<Field>`, e.g. `Tcp.RetransSegs`, `TcpExt.TCPTimeouts`.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabcheck::parse {

/// The counters of one or more such files, in file order. Never throws: a header without its value line, a
/// value line whose field count differs from its header, or a value that is not an integer (kept out) is
/// counted in skipped_fields.
struct ProcNetCounters {
  std::vector<std::pair<std::string, std::int64_t>> values;  ///< ("Tcp.RetransSegs", 160), ...
  int skipped_fields = 0;
};

/// Parses the text of /proc/net/snmp or /proc/net/netstat (or both, concatenated). A value line without its
/// header names nothing and is passed over.
ProcNetCounters parse_proc_net_counters(std::string_view text);

}  // namespace fabcheck::parse
