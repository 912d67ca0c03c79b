// IMB-MPI1 console output, 2019 – 2021 (intel/mpi-benchmarks src_c/IMB_output.c IMB_print_header and
// IMB_output, src_c/IMB_g_info.c): `#    Intel(R) MPI Benchmarks 2021.3, MPI-1 part` banner, `# Benchmarking
// X` and `# #processes = N` before each table (several blocks per benchmark with -npmin), the column line
// (`#bytes #repetitions t[usec] Mbytes/sec` for PingPong/PingPing, `... Mbytes/sec Msg/sec` for
// Uniband/Biband, `t_min[usec] t_max[usec] t_avg[usec] [Mbytes/sec]` for the rest, no `#bytes` for
// Barrier, a trailing `defects` column in a -DCHECK build), rows, and `# All processes entering
// MPI_Finalize` at the end. Mbytes/sec is 1e6 B/s (IMB_output.c: `MEGA = 1.0 / 1e6`, throughput =
// MEGA · size / t).
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

std::string canonical(std::string_view c) {
  static const std::map<std::string, std::string, std::less<>> kNames = {
      {"#repetitions", "iterations"}, {"t[usec]", "t_avg_us"},     {"t_min[usec]", "t_min_us"},
      {"t_max[usec]", "t_max_us"},    {"t_avg[usec]", "t_avg_us"}, {"Mbytes/sec", "bw_avg"},
      {"Msg/sec", "msg_rate_per_s"},  {"defects", "defects"},      {"t_ovrl[usec]", "t_ovrl_us"},
      {"t_pure[usec]", "t_pure_us"},  {"t_CPU[usec]", "t_cpu_us"}, {"overlap[%]", "overlap_pct"}};
  const auto it = kNames.find(c);
  return it == kNames.end() ? std::string(c) : it->second;
}

std::string kind_of(std::string_view bench) {
  static const std::string_view kP2p[] = {
      "PingPong",          "PingPing",         "PingPongSpecificSource", "PingPingSpecificSource",
      "PingPongAnySource", "PingPingAnySource"};
  for (auto p : kP2p) {
    if (bench == p) return "latency";
  }
  if (bench == "Uniband" || bench == "Biband" || bench == "Sendrecv" || bench == "Exchange")
    return "bandwidth";
  return "collective";
}

}  // namespace

PeerRun parse_imb_text(std::string_view text) {
  const auto lines = detail::peer_lines(text);
  PeerRun run = detail::text_run("imb", "imb-text", lines);
  std::string bench, datatype, red_datatype;
  int processes = 0;
  bool calling = false;
  PeerTable* open = nullptr;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t no = i + 1;
    std::string_view line = core::trim_blanks(lines[i]);
    if (line.empty()) continue;
    // `#- Benchmarking X`: IMB's `# Benchmarking` header as pasted into a Markdown issue (a `#` line would be
    // a heading there; intel/mpi-benchmarks#22 shows it so).
    std::string unescaped;
    if (line.starts_with("#- Benchmarking ") || line.starts_with("#- #processes")) {
      unescaped = "# " + std::string(line.substr(3));
      line = unescaped;
    }
    // A -DCHECK build's data check (IMB_chk_diff.c): `Error <bench>,size = N,sample #k` and `Process R: Got
    // invalid buffer:` before the row whose `defects` column counts it.
    if (line.find("Got invalid buffer") != std::string_view::npos ||
        (line.find("Error ") != std::string_view::npos && line.find(",size = ") != std::string_view::npos &&
         line.find(",sample #") != std::string_view::npos)) {
      // The `Got invalid buffer` line right after the `Error` line is the same defect.
      const bool same = !run.errors.empty() && run.errors.back().kind == "validation_error" &&
                        run.errors.back().line + 1 == no;
      if (!same) run.errors.push_back({"validation_error", detail::clip(line), no, std::nullopt});
      continue;
    }
    if (detail::scan_common_error(line, no, run)) continue;
    if (line.find("Intel(R) MPI Benchmarks") != std::string_view::npos ||
        line.find("Intel (R) MPI Benchmarks") != std::string_view::npos) {
      const auto p = line.find("Benchmarks");
      auto v = core::trim_blanks(line.substr(p + 10));
      if (const auto comma = v.find(','); comma != std::string_view::npos) v = v.substr(0, comma);
      run.version = std::string(v);
      continue;
    }
    if (line.starts_with("# Calling sequence was:")) {
      calling = true;
      continue;
    }
    if (calling && line.starts_with("#") && line.size() > 2) {
      run.notes.push_back("calling sequence: " + detail::clip(core::trim_blanks(line.substr(1))));
      calling = false;
      continue;
    }
    if (line.starts_with("# MPI_Datatype for reductions")) {
      const auto c = line.find(':');
      if (c != std::string_view::npos) red_datatype = std::string(core::trim_blanks(line.substr(c + 1)));
      continue;
    }
    if (line.starts_with("# MPI_Datatype")) {
      const auto c = line.find(':');
      if (c != std::string_view::npos) datatype = std::string(core::trim_blanks(line.substr(c + 1)));
      continue;
    }
    if (line.starts_with("# Benchmarking ")) {
      bench = std::string(core::trim_blanks(line.substr(15)));
      processes = 0;
      if (open) open->closed = true;
      open = nullptr;
      continue;
    }
    if (line.starts_with("# #processes = ")) {
      const auto toks = split_ws(line.substr(15), 1);
      if (!toks.empty()) {
        auto t = toks[0];
        if (!t.empty() && t.back() == ';') t.remove_suffix(1);
        if (auto n = parse_uint(t)) processes = static_cast<int>(std::min<std::uint64_t>(*n, 1u << 30));
      }
      continue;
    }
    if (line.find("All processes entering MPI_Finalize") != std::string_view::npos) {
      run.finished = true;
      if (open) open->closed = true;
      open = nullptr;
      continue;
    }
    if ((line.starts_with("#bytes") || line.starts_with("#repetitions")) && !bench.empty()) {
      PeerTable t;
      t.test = bench;
      t.title = "Benchmarking " + bench;
      t.kind = kind_of(bench);
      t.processes = processes;
      t.datatype = datatype;
      t.reduction_datatype = red_datatype;
      t.bidirectional =
          bench == "PingPing" || bench == "Biband" || bench == "Sendrecv" || bench == "Exchange";
      t.columns.push_back(line.starts_with("#bytes") ? "size_bytes" : "");
      for (auto tok : split_ws(line, 64)) {
        if (tok == "#bytes") continue;
        t.columns.push_back(canonical(tok));
      }
      if (t.columns.front().empty()) t.columns.erase(t.columns.begin());
      for (const auto& c : t.columns) {
        if (c == "bw_avg") t.bw_unit = "MB/s";
      }
      t.line = no;
      open = detail::open_table(run, open, std::move(t));
      continue;
    }
    if (line[0] == '#' || !open) continue;
    const auto toks = split_ws(line, 64);
    if (toks.empty() || !parse_uint(toks[0])) continue;
    detail::read_row(*open, toks, line, no);
  }
  return run;
}

}  // namespace fabcheck::parse
