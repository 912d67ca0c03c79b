// perftest console output (linux-rdma/perftest src/perftest_parameters.h RESULT_FMT*, REPORT_FMT*): the
// title line ("RDMA_Write BW Test"), the `key : value` preamble, `#bytes ...` header, rows, closing dashes,
// and the completion errors of src/perftest_resources.h ("Completion with error at client", "Failed status N:
// wr_id ..." before 2024, "Failed status-<name> (N): ..." after).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "fabcheck/core/ascii.hpp"
#include "fabcheck/parse/peer_bench.hpp"
#include "nccl_tests_util.hpp"
#include "peer_util.hpp"

namespace fabcheck::parse {

namespace {

using detail::parse_result;
using detail::parse_uint;
using detail::split_ws;

/// Test name of a title line: "RDMA_Write BW Test" → "ib_write_bw", "Send Latency Test" → "ib_send_lat",
/// "Atomic FETCH_AND_ADD BW Test" → "ib_atomic_bw"; "" when the line is not a title.
std::string test_of_title(std::string_view t) {
  const bool bw = t.ends_with(" BW Test");
  const bool lat = t.ends_with(" Latency Test");
  if (!bw && !lat) return {};
  std::string verb;
  if (t.starts_with("RDMA_Write")) {
    verb = "write";
  } else if (t.starts_with("RDMA_Read")) {
    verb = "read";
  } else if (t.starts_with("Send")) {
    verb = "send";
  } else if (t.starts_with("Atomic")) {
    verb = "atomic";
  } else {
    return {};
  }
  return "ib_" + verb + (bw ? "_bw" : "_lat");
}

/// Canonical columns of a `#bytes ...` header; empty when the line is not one. Sets the bw unit.
std::vector<std::string> header_columns(std::string_view line, std::string& unit) {
  const auto toks = split_ws(line, 64);
  if (toks.empty() || toks[0] != "#bytes") return {};
  std::vector<std::string> cols = {"size_bytes"};
  std::string_view prev;
  for (std::size_t i = 1; i < toks.size(); ++i) {
    const auto t = toks[i];
    auto unit_of = [&](std::string_view tok) {
      if (tok.find("[Gb/sec]") != std::string_view::npos) unit = "Gb/s";
      if (tok.find("[MB/sec]") != std::string_view::npos || tok.find("[MiB/sec]") != std::string_view::npos)
        unit = "MiB/s";
    };
    if (t == "#iterations" || t == "iterations") {
      cols.push_back("iterations");
    } else if (t == "#sl") {
      cols.push_back("sl");
    } else if (prev == "BW" && t.starts_with("peak[")) {
      cols.push_back("bw_peak");
      unit_of(t);
    } else if (prev == "BW" && t.starts_with("average[")) {
      cols.push_back("bw_avg");
      unit_of(t);
    } else if (t.starts_with("MsgRate[")) {
      cols.push_back("msg_rate_mpps");
    } else if (t == "t_min[usec]") {
      cols.push_back("t_min_us");
    } else if (t == "t_max[usec]") {
      cols.push_back("t_max_us");
    } else if (t == "t_typical[usec]") {
      cols.push_back("t_typical_us");
    } else if (t == "t_avg[usec]") {
      cols.push_back("t_avg_us");
    } else if (t == "t_stdev[usec]") {
      cols.push_back("t_stdev_us");
    } else if (t == "percentile[usec]" && prev == "99%") {
      cols.push_back("p99_us");
    } else if (t == "percentile[usec]" && prev == "99.9%") {
      cols.push_back("p999_us");
    } else if (t == "tps" || t == "CPU_Util[%]") {
      cols.push_back(t == "tps" ? "tps_avg" : "cpu_util_pct");
    } else if (t == "BW" || t == "99%" || t == "99.9%" || t == "average" || t == "MsgRate" ||
               t.starts_with("Port")) {
      // qualifiers of the next token, or the per-port columns' words
      if (t.starts_with("Port")) cols.push_back(std::string("port_") + std::string(t));
    } else {
      cols.push_back(std::string(t));  // a column this reader does not name: kept by position
    }
    prev = t;
  }
  return cols;
}

/// `Failed status N:` / `Failed status-<name> (N):` → N.
std::optional<int> failed_status(std::string_view s) {
  auto p = s.find("Failed status");
  if (p == std::string_view::npos) return std::nullopt;
  s = s.substr(p + 13);
  std::size_t i = 0;
  if (i < s.size() && s[i] == '-') {
    const auto open = s.find('(');
    if (open == std::string_view::npos) return std::nullopt;
    i = open + 1;
  }
  while (i < s.size() && s[i] == ' ') ++i;
  std::size_t j = i;
  while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
  if (j == i || j - i > 4) return std::nullopt;
  return std::stoi(std::string(s.substr(i, j - i)));
}

/// Where the value of a preamble pair ends: at a tab, or at a run of two or more blanks before another
/// `key :` ("OFF          Device         : mlx5_1"); npos when the value runs to the end of the line.
std::size_t value_end(std::string_view rest) {
  const auto tab = rest.find('\t');
  const auto lead = rest.find_first_not_of(' ');
  if (lead == std::string_view::npos) return tab;
  const auto gap = rest.find("  ", lead);
  if (gap != std::string_view::npos && (tab == std::string_view::npos || gap < tab) &&
      rest.find(':', gap) != std::string_view::npos) {
    return gap;
  }
  return tab;
}

/// The most recent table that has a header but was not closed by dashes; nullptr when none.
PeerTable* latest_unclosed(std::vector<PeerTable>& tables) {
  for (auto it = tables.rbegin(); it != tables.rend(); ++it) {
    if (!it->closed) return &*it;
  }
  return nullptr;
}

}  // namespace

PeerRun parse_perftest_text(std::string_view text) {
  const auto lines = detail::peer_lines(text);
  PeerRun run = detail::text_run("perftest", "perftest-text", lines);
  std::string pending_title, pending_test;
  PeerTable* open = nullptr;
  bool server = false;  // "Waiting for client to connect": the server side's banner
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t no = i + 1;
    const std::string_view line = core::trim_blanks(lines[i]);
    if (line.empty()) continue;
    if (line.find("Waiting for client to connect") != std::string_view::npos) server = true;
    if (auto t = test_of_title(line); !t.empty()) {
      pending_title = std::string(line);
      pending_test = t;
      open = nullptr;
      continue;
    }
    if (line.starts_with("Version:")) {
      run.version = std::string(core::trim_blanks(line.substr(8)));
      continue;
    }
    if (line.find("Completion with error") != std::string_view::npos ||
        line.find("Failed status") != std::string_view::npos) {
      run.errors.push_back({"completion_error", detail::clip(line), no, failed_status(line)});
      continue;
    }
    if (line.starts_with("Couldn't") || line.starts_with("Unable to") || line.starts_with("Failed to") ||
        line.find("Couldn't connect") != std::string_view::npos) {
      run.errors.push_back({"connect_error", detail::clip(line), no, std::nullopt});
      continue;
    }
    if (detail::scan_common_error(line, no, run)) continue;
    if (line.find_first_not_of('-') == std::string_view::npos) {
      if (open && !open->rows.empty()) {
        open->closed = true;
        open = nullptr;
      }
      continue;
    }
    std::string unit;
    if (auto cols = header_columns(line, unit); !cols.empty()) {
      PeerTable t;
      t.test = pending_test;
      t.title = pending_title;
      t.columns = std::move(cols);
      t.bw_unit = unit;
      t.kind = std::find(t.columns.begin(), t.columns.end(), "bw_avg") != t.columns.end() ? "bandwidth"
                                                                                          : "latency";
      if (t.test.empty()) t.test = t.kind == "bandwidth" ? "ib_bw" : "ib_lat";
      t.bidirectional = pending_title.find("Bidirectional") != std::string::npos;
      t.line = no;
      run.tables.push_back(std::move(t));
      open = &run.tables.back();
      continue;
    }
    const auto colon = line.find(':');
    if (!open && colon != std::string_view::npos && colon > 0) {
      // preamble "Key : value" pairs, two per line, tab- or blank-separated ("Dual-port : OFF\t\tDevice :
      // mlx5_0", "Dual-port       : OFF          Device         : mlx5_1")
      std::string_view rest = line;
      while (!rest.empty()) {
        const auto c = rest.find(':');
        if (c == std::string_view::npos) break;
        const auto key = core::trim_blanks(rest.substr(0, c));
        rest = rest.substr(c + 1);
        const auto end = value_end(rest);
        const auto val = core::trim_blanks(rest.substr(0, end));
        if (!key.empty() && key.size() < 40 && !run.info.contains(std::string(key)))
          run.info[std::string(key)] = std::string(val);
        if (end == std::string_view::npos) break;
        rest = rest.substr(end);
      }
      continue;
    }
    const auto toks = split_ws(line, 64);
    if (toks.empty() || !parse_uint(toks[0])) continue;  // not a row ("Conflicting CPU frequency ...")
    if (!open) {
      // A row after the closing dashes belongs to a header still waiting for its rows: a loopback run's
      // server and client print into one log, both headers first, the server's row last
      // (microsoft/superbenchmark tests/data/ib_loopback_all_sizes.log).
      open = latest_unclosed(run.tables);
      if (!open) continue;
    }
    detail::read_row(*open, toks, line, no);
  }
  run.finished = !run.tables.empty() && run.tables.back().closed;
  // A test that printed its header and stopped before its result table (a server whose client never came or
  // failed, a client killed): the run failed, and the import says so instead of refusing the file.
  if (run.tables.empty() && run.errors.empty() && !pending_test.empty())
    run.errors.push_back({"no_results",
                          fmt::format("{}: the {} side ended before its result rows ({} lines read)",
                                      pending_test, server ? "server" : "client", lines.size()),
                          lines.size(), std::nullopt});
  return run;
}

std::string_view wc_status_name(int s) {
  // libibverbs src/verbs.c ibv_wc_status_str, in enum ibv_wc_status order.
  static constexpr std::string_view kNames[] = {"success",
                                                "local length error",
                                                "local QP operation error",
                                                "local EE context operation error",
                                                "local protection error",
                                                "Work Request Flushed Error",
                                                "memory management operation error",
                                                "bad response error",
                                                "local access error",
                                                "remote invalid request error",
                                                "remote access error",
                                                "remote operation error",
                                                "transport retry counter exceeded",
                                                "RNR retry counter exceeded",
                                                "local RDD violation error",
                                                "remote invalid RD request",
                                                "aborted error",
                                                "invalid EE context number",
                                                "invalid EE context state",
                                                "fatal error",
                                                "response timeout error",
                                                "general error",
                                                "TM error",
                                                "TM rendezvous not supported"};
  if (s < 0 || static_cast<std::size_t>(s) >= std::size(kNames)) return {};
  return kNames[s];
}

}  // namespace fabcheck::parse
