// OSU Micro-Benchmarks console output, 5.x – 7.x (c/util/osu_util_mpi.c print_header / print_preamble /
// print_stats): `# OSU MPI[-CUDA] <Name> Test v<X>` title, optional `# Datatype: MPI_CHAR.` and `# [ pairs:
// N ] [ window size: W ]` lines, the `# Size` column line (columns padded to FIELD_WIDTH, so two or more
// blanks apart: "Latency (us)" (≤ 5.x) / "Avg Latency(us)", `-f` "Min Latency(us)" "Max Latency(us)"
// "Iterations", "Bandwidth (MB/s)", "MB/s" "Messages/s", `-c` "Validation", `-z` "P50 Tail Lat(us)" /
// "P50 Tail BW(MB/s)"), then one row per size. MB/s is 1e6 B/s (size / 1e6 / seconds in osu_bw.c). A
// failed check prints "Fail" in the Validation column or "DATA VALIDATION ERROR: ..." (persistent tests).
#include <cctype>
#include <map>
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

/// Test name of a title: "OSU MPI Latency Test" → osu_latency, "OSU MPI-CUDA Allreduce Latency Test" →
/// osu_allreduce, "... Non-blocking Allreduce ..." → osu_iallreduce.
std::string test_of_title(std::string_view t, std::string& kind, bool& bidir) {
  static const std::pair<std::string_view, std::string_view> kColl[] = {
      {"Reduce_scatter_block", "reduce_scatter_block"},
      {"Reduce_scatter", "reduce_scatter"},
      {"All-to-Allv", "alltoallv"},
      {"All-to-Allw", "alltoallw"},
      {"All-to-All", "alltoall"},
      {"Alltoall", "alltoall"},
      {"Allgatherv", "allgatherv"},
      {"Allgather", "allgather"},
      {"Allreduce", "allreduce"},
      {"Broadcast", "bcast"},
      {"Barrier", "barrier"},
      {"Gatherv", "gatherv"},
      {"Gather", "gather"},
      {"Scatterv", "scatterv"},
      {"Scatter", "scatter"},
      {"Reduce", "reduce"}};
  const bool nonblocking =
      t.find("Non-blocking") != std::string_view::npos || t.find("Non-Blocking") != std::string_view::npos;
  if (t.find("Neighborhood") == std::string_view::npos) {
    for (auto [word, name] : kColl) {
      if (t.find(word) != std::string_view::npos) {
        kind = "collective";
        return std::string("osu_") + (nonblocking ? "i" : "") + std::string(name);
      }
    }
  }
  if (t.find("Multiple Bandwidth / Message Rate") != std::string_view::npos) {
    kind = "bandwidth";
    return "osu_mbw_mr";
  }
  // OSU 7.5's congestion tests (c/mpi/congestion/osu_bw_fan_in.c, osu_bw_fan_out.c): the title defines name
  // them "Bandwidth Congestion In/Out Test"; a copy of osu_bw_fan_in.c that kept osu_bw's "Bandwidth Test"
  // title prints a file no reader can tell from osu_bw's, and it is read as osu_bw.
  if (t.find("Bandwidth Congestion In") != std::string_view::npos) {
    kind = "bandwidth";
    return "osu_bw_fan_in";
  }
  if (t.find("Bandwidth Congestion Out") != std::string_view::npos) {
    kind = "bandwidth";
    return "osu_bw_fan_out";
  }
  if (t.find("Bi-Directional Bandwidth") != std::string_view::npos ||
      t.find("Bi-directional Bandwidth") != std::string_view::npos) {
    kind = "bandwidth";
    bidir = true;
    return t.find("MPI_Put") != std::string_view::npos ? "osu_put_bibw" : "osu_bibw";
  }
  if (t.find("Bandwidth") != std::string_view::npos) {
    kind = "bandwidth";
    if (t.find("MPI_Get") != std::string_view::npos) return "osu_get_bw";
    if (t.find("MPI_Put") != std::string_view::npos) return "osu_put_bw";
    return "osu_bw";
  }
  if (t.find("Multi Latency") != std::string_view::npos ||
      t.find("Multi-process Latency") != std::string_view::npos) {
    kind = "latency";
    return "osu_multi_lat";
  }
  if (t.find("atency") != std::string_view::npos) {
    kind = "latency";
    if (t.find("MPI_Get") != std::string_view::npos) return "osu_get_latency";
    if (t.find("MPI_Put") != std::string_view::npos) return "osu_put_latency";
    if (t.find("Multi-threaded") != std::string_view::npos) return "osu_latency_mt";
    return "osu_latency";
  }
  kind.clear();
  return {};
}

/// Splits a column line on runs of two or more blanks.
std::vector<std::string> wide_split(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    if (i >= s.size()) break;
    std::size_t j = i;
    while (j < s.size()) {
      if (s[j] == '\t' || (s[j] == ' ' && (j + 1 >= s.size() || s[j + 1] == ' ' || s[j + 1] == '\t'))) break;
      ++j;
    }
    out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string canonical(const std::string& c, bool latency_unit) {
  static const std::map<std::string, std::string, std::less<>> kNames = {
      {"Latency (us)", "t_avg_us"},
      {"Avg Latency(us)", "t_avg_us"},
      {"Min Latency(us)", "t_min_us"},
      {"Max Latency(us)", "t_max_us"},
      {"Iterations", "iterations"},
      {"Bandwidth (MB/s)", "bw_avg"},
      {"MB/s", "bw_avg"},
      {"Messages/s", "msg_rate_per_s"},
      {"Validation", "validation"},
      {"P50 Tail Lat(us)", "p50_us"},
      {"P90 Tail Lat(us)", "p90_us"},
      {"P99 Tail Lat(us)", "p99_us"},
      {"P50 Tail BW(MB/s)", "bw_p50"},
      {"P90 Tail BW(MB/s)", "bw_p90"},
      {"P99 Tail BW(MB/s)", "bw_p99"},
      {"Transmit Size", "transmit_size_bytes"},
      {"Bandwidth", "bw_avg"},
      {"Latency", "t_avg_us"}};
  (void)latency_unit;
  const auto it = kNames.find(c);
  return it == kNames.end() ? c : it->second;
}

}  // namespace

PeerRun parse_osu_text(std::string_view text) {
  const auto lines = detail::peer_lines(text);
  PeerRun run = detail::text_run("osu", "osu-text", lines);
  PeerTable pending;  // title seen, columns not yet
  bool have_title = false;
  PeerTable* open = nullptr;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t no = i + 1;
    const std::string_view line = core::trim_blanks(lines[i]);
    if (line.empty()) continue;
    if (line.find("DATA VALIDATION ERROR") != std::string_view::npos) {
      run.errors.push_back({"validation_error", detail::clip(line), no, std::nullopt});
      continue;
    }
    if (detail::scan_common_error(line, no, run)) continue;
    if (line.starts_with("# OSU ") && line.find("Test") != std::string_view::npos) {
      if (open) open->closed = true;
      open = nullptr;
      pending = PeerTable{};
      pending.title = std::string(line);
      pending.test = test_of_title(line, pending.kind, pending.bidirectional);
      const auto v = line.rfind(" v");
      if (v != std::string_view::npos && v + 2 < line.size() &&
          std::isdigit(static_cast<unsigned char>(line[v + 2]))) {
        run.version = std::string(line.substr(v + 1));
      }
      have_title = true;
      continue;
    }
    if (line.starts_with("# Datatype:")) {
      std::string d(core::trim_blanks(line.substr(11)));
      if (!d.empty() && d.back() == '.') d.pop_back();
      (open ? open->datatype : pending.datatype) = d;
      continue;
    }
    if (line.starts_with("# [ pairs:")) {
      if (auto n = parse_uint(split_ws(line.substr(10), 1).empty() ? "" : split_ws(line.substr(10), 1)[0]))
        pending.pairs = static_cast<int>(*n);
      continue;
    }
    if (have_title && (line.starts_with("# Size") || line.starts_with("# Avg Latency") ||
                       line.starts_with("# Bandwidth") || line.starts_with("# MB/s"))) {
      PeerTable t = pending;
      const bool sized = line.starts_with("# Size");
      const auto cols = wide_split(line.substr(sized ? 6 : 1));
      t.columns = {"size_bytes"};
      for (const auto& c : cols) t.columns.push_back(canonical(c, true));
      if (!sized) t.columns.erase(t.columns.begin());
      for (const auto& c : t.columns) {
        if (c.starts_with("bw_")) t.bw_unit = "MB/s";
      }
      if (t.kind.empty()) t.kind = t.bw_unit.empty() ? "latency" : "bandwidth";
      if (t.test.empty()) t.test = t.kind == "bandwidth" ? "osu_bw" : "osu_latency";
      if (t.pairs > 0) t.processes = 2 * t.pairs;
      t.line = no;
      open = detail::open_table(run, open, std::move(t));
      continue;
    }
    if (line[0] == '#') continue;  // other comments ("# Send Buffer on DEVICE (D) ...")
    if (!open) continue;
    const auto toks = split_ws(line, 64);
    const bool sized = open->columns.front() == "size_bytes";
    if (toks.empty() || (sized && !parse_uint(toks[0]))) continue;
    if (!sized && !parse_result(toks[0])) continue;
    detail::read_row(*open, toks, line, no);
  }
  run.finished = !run.tables.empty() && !run.tables.back().rows.empty();
  return run;
}

}  // namespace fabcheck::parse
