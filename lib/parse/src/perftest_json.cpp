// perftest `--out_json` file (linux-rdma/perftest src/perftest_parameters.c print_full_bw_report/..., the
// REPORT_FMT_*_JSON formats): {"test_info": {...}, "results": {MsgSize, n_iterations, BW_peak, BW_average,
// MsgRate | t_min, t_max, t_typical, t_avg, t_stdev, percentile_99, percentile_99.9 | t_avg, tps_average}}.
// From 45e574b (2021-05) to f9e82f7 (2024-01) keys and most strings were written without quotes and every
// member ends with a comma (linux-rdma/perftest#216): not JSON, so this reader accepts bare words and
// trailing commas as well as the standard form.
#include <fmt/format.h>

#include <cctype>
#include <map>
#include <string>

#include "fabcheck/core/ascii.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/parse/peer_bench.hpp"
#include "nccl_tests_util.hpp"
#include "peer_util.hpp"

namespace fabcheck::parse {

namespace {

/// A value of the tolerant reader: a string (as written, quotes removed) or an object.
struct Node {
  std::string text;
  std::map<std::string, Node> members;
  bool object = false;
};

class Reader {
 public:
  Reader(std::string_view s, std::string_view origin) : s_(s), origin_(origin) {}
  Node document() {
    skip();
    Node n = value(0);
    skip();
    if (!n.object) fail("the file is not an object");
    if (p_ != s_.size()) fail("text after the closing brace");
    return n;
  }

 private:
  [[noreturn]] void fail(std::string_view why) const {
    throw UsageError(fmt::format("{}: not a perftest --out_json file ({} at byte {})", origin_, why, p_));
  }
  void skip() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }
  std::string quoted() {
    ++p_;  // opening quote
    std::string out;
    while (p_ < s_.size() && s_[p_] != '"') {
      if (s_[p_] == '\\' && p_ + 1 < s_.size()) ++p_;
      if (s_[p_] == '\n') fail("a line break inside a quoted string");
      out += s_[p_++];
      if (out.size() > 4096) fail("a string over 4096 characters");
    }
    if (p_ >= s_.size()) fail("an unterminated string");
    ++p_;
    return out;
  }
  /// A bare word: up to ':' (key) or to ',', '}' or a line end (value).
  std::string bare(bool key) {
    const std::size_t b = p_;
    while (p_ < s_.size()) {
      const char c = s_[p_];
      if (c == '\n' || c == '}' || c == '{' || c == '"' || (key ? c == ':' : c == ',')) break;
      ++p_;
    }
    return std::string(core::trim_blanks(s_.substr(b, p_ - b)));
  }
  Node value(int depth) {
    if (depth > 8) fail("objects nested deeper than 8");
    Node n;
    if (p_ >= s_.size()) fail("the file ends early");
    if (s_[p_] == '{') {
      n.object = true;
      ++p_;
      while (true) {
        skip();
        if (p_ >= s_.size()) fail("the file ends inside an object");
        if (s_[p_] == '}') {
          ++p_;
          break;
        }
        const std::string key = s_[p_] == '"' ? quoted() : bare(true);
        skip();
        if (key.empty() || p_ >= s_.size() || s_[p_] != ':') fail("a member without 'key:'");
        ++p_;
        skip();
        Node v = value(depth + 1);
        if (n.members.size() > 256) fail("an object with over 256 members");
        n.members[key] = std::move(v);
        skip();
        if (p_ < s_.size() && s_[p_] == ',') ++p_;
      }
      return n;
    }
    n.text = s_[p_] == '"' ? quoted() : bare(false);
    return n;
  }

  std::string_view s_;
  std::string_view origin_;
  std::size_t p_ = 0;
};

/// "RDMA_Write_Latency_Test" → "ib_write_lat"; "RDMA_Read_BW_Test" → "ib_read_bw"; "" when unknown.
std::string test_of(std::string_view t) {
  std::string verb = t.starts_with("RDMA_Write")  ? "write"
                     : t.starts_with("RDMA_Read") ? "read"
                     : t.starts_with("Send")      ? "send"
                     : t.starts_with("Atomic")    ? "atomic"
                                                  : "";
  if (verb.empty()) return {};
  if (t.find("_Latency_") != std::string_view::npos) return "ib_" + verb + "_lat";
  if (t.find("_BW_") != std::string_view::npos) return "ib_" + verb + "_bw";
  return {};
}

}  // namespace

PeerRun parse_perftest_json(std::string_view text, std::string_view origin) {
  const Node doc = Reader(text, origin).document();
  const auto ti = doc.members.find("test_info");
  const auto res = doc.members.find("results");
  if (ti == doc.members.end() || res == doc.members.end() || !ti->second.object || !res->second.object) {
    throw UsageError(
        fmt::format("{}: not a perftest --out_json file (no test_info and results objects)", origin));
  }
  PeerRun run;
  run.tool = "perftest";
  run.format = "perftest-json";
  run.finished = true;
  for (const auto& [k, v] : ti->second.members) {
    if (!v.object) run.info[k] = v.text;
  }
  PeerTable t;
  t.title = run.info.contains("test") ? run.info["test"] : "";
  t.test = test_of(t.title);
  if (t.test.empty()) {
    throw UsageError(
        fmt::format("{}: perftest --out_json file of an unknown test '{}'", origin, detail::clip(t.title)));
  }
  t.bidirectional = t.title.find("Bidirectional") != std::string::npos;
  t.kind = t.test.ends_with("_bw") ? "bandwidth" : "latency";
  // The JSON file does not name its bandwidth unit: MiB/s unless the run had --report_gbits (the caller
  // says so; parse notes it).
  if (t.kind == "bandwidth") t.bw_unit = "MiB/s";
  static const std::map<std::string, std::string> kCols = {
      {"n_iterations", "iterations"}, {"BW_peak", "bw_peak"},         {"BW_average", "bw_avg"},
      {"MsgRate", "msg_rate_mpps"},   {"t_min", "t_min_us"},          {"t_max", "t_max_us"},
      {"t_typical", "t_typical_us"},  {"t_avg", "t_avg_us"},          {"t_stdev", "t_stdev_us"},
      {"percentile_99", "p99_us"},    {"percentile_99.9", "p999_us"}, {"tps_average", "tps_avg"}};
  const auto& r = res->second.members;
  const auto size = r.find("MsgSize");
  if (size == r.end() || !detail::parse_uint(size->second.text)) {
    throw UsageError(fmt::format("{}: perftest --out_json results without MsgSize", origin));
  }
  PeerRow row;
  row.size_bytes = *detail::parse_uint(size->second.text);
  t.columns = {"size_bytes"};
  bool ok = true;
  for (const auto& [k, canon] : kCols) {
    const auto it = r.find(k);
    if (it == r.end()) continue;
    const auto v = detail::parse_result(it->second.text);
    if (!v) {
      ok = false;
      continue;
    }
    row.values[canon] = *v;
    t.columns.push_back(canon);
  }
  if (ok) {
    t.rows.push_back(std::move(row));
  } else {
    detail::reject_row(t, "results", 0);
  }
  t.closed = true;
  run.tables.push_back(std::move(t));
  return run;
}

}  // namespace fabcheck::parse
