// nccl-tests console text (the format strings of nccl-tests' src/common.cu): preamble, `# Using devices`,
// header, rows, footer, in every layout since the legacy ≤ 2.11 one, under launcher prefixes and with NCCL
// log lines interleaved.
#include <algorithm>
#include <cctype>
#include <map>

#include "fabcheck/core/ascii.hpp"
#include "fabcheck/parse/nccl_tests.hpp"
#include "nccl_tests_util.hpp"

namespace fabcheck::parse {

namespace {

using detail::parse_int;
using detail::parse_printed;
using detail::parse_uint;
using detail::split_ws;

/// Column layout of one header.
struct Layout {
  std::vector<std::string> pre;    ///< columns before the first block ("size", "count", "type", ...)
  std::vector<std::string> block;  ///< columns of one placement block ("time", "algbw", "busbw", "#wrong"...)
  bool timestamp = false;          ///< a `timestamp` column follows the blocks (two tokens per row)
};

/// Per output stream (launcher tag) state: rows of different ranks' tables must not mix.
struct Stream {
  std::string program;           ///< pending `# Collective test starting` name
  int table = -1;                ///< index into run.tables of the open table, −1 none
  std::optional<Layout> layout;  ///< header of the open table
};

/// Removes one launcher prefix: `[1,R]<stdout>:` / `[1,R]<stderr>:` (mpirun --tag-output) or `  R: `
/// (srun --label). Returns the prefix (the stream key) and shortens `line`.
std::string_view strip_prefix(std::string_view& line) {
  if (!line.empty() && line[0] == '[') {
    const auto close = line.find("]<");
    if (close != std::string_view::npos && close < 32) {
      const auto end = line.find(">:", close);
      if (end != std::string_view::npos && end < close + 10) {
        const std::string_view inside = line.substr(1, close - 1);
        bool ok = !inside.empty();
        for (char c : inside) ok = ok && ((c >= '0' && c <= '9') || c == ',');
        if (ok) {
          const auto key = line.substr(0, end + 2);
          line.remove_prefix(end + 2);
          return key;
        }
      }
    }
    return {};
  }
  // srun --label: optional spaces, digits, ": " — only when something follows (a row never has ':' there).
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  const std::size_t d0 = i;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
  if (i > d0 && i - d0 <= 6 && i + 1 < line.size() && line[i] == ':' && line[i + 1] == ' ') {
    const auto key = line.substr(0, i + 1);
    line.remove_prefix(i + 2);
    return key;
  }
  return {};
}

bool is_nccl_log_line(std::string_view s) {
  return s.find("NCCL INFO") != std::string_view::npos || s.find("NCCL WARN") != std::string_view::npos ||
         s.find("NCCL TRACE") != std::string_view::npos || s.find("NCCL CALL") != std::string_view::npos;
}

/// Integer after `key` in `body` (first occurrence whose preceding word is not one of `not_after`).
std::optional<std::int64_t> value_after(std::string_view body, std::string_view key) {
  std::size_t from = 0;
  while (true) {
    const auto p = body.find(key, from);
    if (p == std::string_view::npos) return std::nullopt;
    from = p + 1;
    // "iters:" must not match inside "warmup iters:" / "agg iters:".
    if (key == "iters:" && p >= 1) {
      const auto before = core::trim_blanks(body.substr(0, p));
      if (before.ends_with("warmup") || before.ends_with("agg")) continue;
    }
    auto rest = body.substr(p + key.size());
    const auto toks = split_ws(rest, 1);
    if (toks.empty()) return std::nullopt;
    auto tok = toks[0];
    if (const auto paren = tok.find('('); paren != std::string_view::npos) tok = tok.substr(0, paren);
    return parse_int(tok);
  }
}

void parse_preamble(std::string_view body, NcclTestsRun& run) {
  run.nthreads = value_after(body, "nThread");
  run.ngpus = value_after(body, "nGpus");
  run.min_bytes = value_after(body, "minBytes");
  run.max_bytes = value_after(body, "maxBytes");
  if (const auto step = value_after(body, "step:")) {
    if (body.find("(bytes)") != std::string_view::npos) {
      run.step_bytes = step;
    } else {
      run.step_factor = step;
    }
  }
  run.warmup_iters = value_after(body, "warmup iters:");
  run.iters = value_after(body, "iters:");
  run.agg_iters = value_after(body, "agg iters:");
  run.validation = value_after(body, "validation:");
  run.graph = value_after(body, "graph:");
}

/// `Rank N [Group G] Pid P on HOST device D [BUS] NAME` (body starts at "Rank").
std::optional<NcclTestsDevice> parse_device(std::string_view body) {
  auto toks = split_ws(body, 12);
  NcclTestsDevice d;
  std::size_t i = 1;
  auto next_int = [&](std::string_view key) -> std::optional<long long> {
    if (i + 1 >= toks.size() || toks[i] != key) return std::nullopt;
    auto v = parse_int(toks[i + 1]);
    i += 2;
    return v;
  };
  if (toks.size() < 2) return std::nullopt;
  const auto rank = parse_int(toks[1]);
  if (!rank || *rank < 0 || *rank > 100000000) return std::nullopt;
  d.rank = static_cast<int>(*rank);
  i = 2;
  if (i < toks.size() && toks[i] == "Group") {
    const auto g = next_int("Group");
    if (!g) return std::nullopt;
    d.group = static_cast<int>(*g);
  }
  const auto pid = next_int("Pid");
  if (!pid) return std::nullopt;
  d.pid = static_cast<int>(*pid);
  if (i + 1 >= toks.size() || toks[i] != "on") return std::nullopt;
  d.host = std::string(toks[i + 1]);
  i += 2;
  const auto dev = next_int("device");
  if (!dev) return std::nullopt;
  d.device = static_cast<int>(*dev);
  // The rest of the line after the device number: "[bus] name".
  const auto dev_pos = body.find(" device ");
  if (dev_pos != std::string_view::npos) {
    auto rest = core::trim_blanks(body.substr(dev_pos + 8));
    const auto sp = rest.find_first_of(" \t");
    rest = sp == std::string_view::npos ? std::string_view{} : core::trim_blanks(rest.substr(sp));
    if (!rest.empty() && rest[0] == '[') {
      const auto close = rest.find(']');
      if (close != std::string_view::npos) {
        d.bus = std::string(rest.substr(1, close - 1));
        rest = core::trim_blanks(rest.substr(close + 1));
      }
    }
    d.name = std::string(rest);
  }
  return d;
}

bool is_time_col(std::string_view c) {
  return c == "time" || c == "cputime";
}

/// A header line's columns, or nullopt when `toks` is not a result header.
std::optional<Layout> parse_header(const std::vector<std::string_view>& toks) {
  bool size = false, count = false, type = false;
  for (auto t : toks) {
    size = size || t == "size";
    count = count || t == "count";
    type = type || t == "type";
  }
  if (!size || !count || !type) return std::nullopt;
  Layout l;
  std::size_t i = 0;
  for (; i < toks.size() && !is_time_col(toks[i]); ++i) l.pre.emplace_back(toks[i]);
  if (i == toks.size() || l.pre.size() < 3 || l.pre[0] != "size" || l.pre[1] != "count") return std::nullopt;
  l.block.emplace_back(toks[i++]);
  for (; i < toks.size() && !is_time_col(toks[i]); ++i) l.block.emplace_back(toks[i]);
  if (i == toks.size()) return std::nullopt;  // one block only: not a layout we know
  std::size_t second = 0;
  for (; i < toks.size() && second < l.block.size(); ++i, ++second) {
    if (toks[i] != l.block[second]) return std::nullopt;
  }
  if (second != l.block.size()) return std::nullopt;
  for (; i < toks.size(); ++i) {
    if (toks[i] == "timestamp") l.timestamp = true;
  }
  bool has_bw = false;
  for (const auto& c : l.block) has_bw = has_bw || c == "busbw";
  if (!has_bw) return std::nullopt;
  return l;
}

std::optional<NcclTestsBlock> parse_block(const Layout& l, const std::vector<std::string_view>& toks,
                                          std::size_t at) {
  NcclTestsBlock b;
  bool time = false, alg = false, bus = false;
  for (std::size_t c = 0; c < l.block.size(); ++c) {
    const auto& col = l.block[c];
    const auto tok = toks[at + c];
    if (is_time_col(col) || col == "algbw" || col == "busbw") {
      const auto v = parse_printed(tok);
      if (!v) return std::nullopt;
      if (is_time_col(col)) {
        b.time_us = *v;
        time = true;
      } else if (col == "algbw") {
        b.algbw_gbps = *v;
        alg = true;
      } else {
        b.busbw_gbps = *v;
        bus = true;
      }
    } else if (col == "#wrong" || col == "error") {
      if (tok == "N/A") continue;
      const auto v = parse_printed(tok);
      if (!v) return std::nullopt;
      (col == "error" ? b.legacy_error : b.wrong) = v->value;
    }
  }
  if (!time || !alg || !bus) return std::nullopt;
  return b;
}

/// A table row per `l`; nullopt when the line is not a (complete) row. `partial` is set for a row preamble
/// without its blocks (a crashed or hung run).
std::optional<NcclTestsRow> parse_row(const Layout& l, std::vector<std::string_view> toks, bool& partial) {
  partial = false;
  const std::size_t npre = l.pre.size(), nb = l.block.size();
  const std::size_t full = npre + 2 * nb + (l.timestamp ? 2 : 0);
  std::size_t redop_at = npre;
  for (std::size_t c = 0; c < npre; ++c) {
    if (l.pre[c] == "redop") redop_at = c;
  }
  if (redop_at < npre && (toks.size() + 1 == full || toks.size() + 1 == npre + 2 * nb)) {
    toks.insert(toks.begin() + static_cast<std::ptrdiff_t>(redop_at), std::string_view{});  // hypercube
  }
  if (toks.size() < npre + 2 * nb) {
    partial = toks.size() >= npre && toks.size() < npre + 2 * nb;
    if (partial && (!parse_uint(toks[0]) || !parse_uint(toks[1]))) partial = false;
    return std::nullopt;
  }
  NcclTestsRow r;
  for (std::size_t c = 0; c < npre; ++c) {
    const auto& col = l.pre[c];
    const auto tok = toks[c];
    if (col == "size" || col == "count") {
      const auto v = parse_uint(tok);
      if (!v) return std::nullopt;
      (col == "size" ? r.size_bytes : r.count) = *v;
    } else if (col == "type") {
      r.dtype = std::string(tok);
    } else if (col == "redop") {
      r.redop = std::string(tok);
    } else if (col == "root") {
      const auto v = parse_int(tok);
      if (!v || *v < -1 || *v > 100000000) return std::nullopt;
      r.root = static_cast<int>(*v);
    }
  }
  auto oop = parse_block(l, toks, npre);
  auto ip = parse_block(l, toks, npre + nb);
  if (!oop || !ip) return std::nullopt;
  r.out_of_place = *oop;
  r.in_place = *ip;
  return r;
}

std::string layout_name(const Layout& l, std::string_view raw) {
  std::string name;
  bool legacy = false, per_iter = false, cputime = false;
  for (const auto& c : l.block) {
    legacy = legacy || c == "error";
    per_iter = per_iter || c == "i_p99";
    cputime = cputime || c == "cputime";
  }
  if (legacy) {
    name = "legacy";
  } else {
    name = raw.find("busbw  #wrong") != std::string_view::npos ? "2.17.3" : "2.13";
  }
  if (per_iter) name += "+per_iter";
  if (l.timestamp) name += "+timestamp";
  if (cputime) name += "+cputime";
  return name;
}

}  // namespace

NcclTestsRun parse_nccl_tests_text(std::string_view text) {
  NcclTestsRun run;
  run.format = "nccl-tests-text";
  std::map<std::string, Stream, std::less<>> streams;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++run.lines;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string_view key = strip_prefix(line);
    if (!key.empty()) run.tagged = true;
    auto it = streams.find(key);
    if (it == streams.end()) it = streams.emplace(std::string(key), Stream{}).first;
    Stream& st = it->second;
    const std::string_view s = core::trim_blanks(line);
    if (s.empty()) continue;
    if (is_nccl_log_line(s)) {
      ++run.nccl_lines;
      continue;
    }
    if (s.starts_with("NCCL version ")) {
      ++run.nccl_lines;
      const auto toks = split_ws(s, 3);
      if (toks.size() >= 3 && run.nccl_version.empty()) run.nccl_version = std::string(toks[2]);
      continue;
    }
    if (s[0] == '#') {
      const std::string_view body = core::trim_blanks(s.substr(1));
      if (body.starts_with("nccl-tests version ")) {
        const auto toks = split_ws(body, 3);
        if (toks.size() >= 3) run.nccl_tests_version = std::string(toks[2]);
      } else if (body.starts_with("Collective test starting:")) {
        st.program = std::string(core::trim_blanks(body.substr(25)));
      } else if (body.starts_with("nThread ")) {
        parse_preamble(body, run);
      } else if (body.starts_with("Rank ")) {
        if (auto d = parse_device(body)) {
          if (d->name.find("MPI host buffers") != std::string::npos) run.format = "fabcheck-sweep-text";
          run.devices.push_back(std::move(*d));
        }
      } else if (body.starts_with("Reducing maxBytes") || body.starts_with("Blocking Enabled") ||
                 body.starts_with("Per-Iteration Report")) {
        run.notes.emplace_back(body);
      } else if (body.starts_with("fabcheck note")) {
        run.format = "fabcheck-sweep-text";
        run.notes.emplace_back(body);
      } else if (body.starts_with("Out of bounds values")) {
        if (st.table >= 0) {
          const auto colon = body.find(':');
          const auto toks = split_ws(colon == std::string_view::npos ? "" : body.substr(colon + 1), 2);
          if (!toks.empty()) {
            if (auto v = parse_int(toks[0]))
              run.tables[static_cast<std::size_t>(st.table)].out_of_bounds = *v;
          }
        }
      } else if (body.starts_with("Avg bus bandwidth")) {
        if (st.table >= 0) {
          const auto colon = body.find(':');
          const auto toks = split_ws(colon == std::string_view::npos ? "" : body.substr(colon + 1), 2);
          if (!toks.empty()) {
            if (auto v = parse_printed(toks[0])) {
              run.tables[static_cast<std::size_t>(st.table)].avg_busbw_gbps = *v;
            }
          }
        }
        st.table = -1;
        st.layout.reset();
      } else if (body.starts_with("error:")) {
        run.errors.emplace_back(core::trim_blanks(body.substr(6)));
      } else {
        const auto toks = split_ws(body, 64);
        if (auto l = parse_header(toks)) {
          NcclTestsTable t;
          t.program = std::move(st.program);
          st.program.clear();
          t.layout = layout_name(*l, body);
          t.has_redop_column = std::find(l->pre.begin(), l->pre.end(), "redop") != l->pre.end();
          t.has_root_column = std::find(l->pre.begin(), l->pre.end(), "root") != l->pre.end();
          run.tables.push_back(std::move(t));
          st.table = static_cast<int>(run.tables.size() - 1);
          st.layout = std::move(*l);
        }
      }
      continue;
    }
    if (st.layout && st.table >= 0) {
      const auto toks = split_ws(s, 64);
      const bool numeric_start =
          !toks.empty() && !toks[0].empty() &&
          (std::isdigit(static_cast<unsigned char>(toks[0][0])) ||
           (toks[0][0] == '-' && toks[0].size() > 1 && std::isdigit(static_cast<unsigned char>(toks[0][1]))));
      auto& table = run.tables[static_cast<std::size_t>(st.table)];
      if (!toks.empty() && parse_uint(toks[0])) {
        bool partial = false;
        if (auto r = parse_row(*st.layout, toks, partial)) {
          r->line = run.lines;
          table.rows.push_back(std::move(*r));
          continue;
        }
        if (partial) {
          ++table.partial_rows;
          continue;
        }
      }
      // A line shaped like a row (a number first, as many fields as a row) that could not be read is dropped,
      // and counted: nan/inf, a negative or out-of-range size, garbled numbers.
      if (numeric_start && toks.size() >= st.layout->pre.size() + 2 * st.layout->block.size()) {
        if (table.rejected_rows++ == 0) {
          table.first_rejected_line = run.lines;
          table.first_rejected = std::string(s.substr(0, 200));
        }
        continue;
      }
    }
    if (s.find("Test NCCL failure") != std::string_view::npos ||
        s.find("Test CUDA failure") != std::string_view::npos ||
        s.find("Test failure") != std::string_view::npos ||
        s.find("Test timeout") != std::string_view::npos) {
      run.errors.emplace_back(s.substr(0, 512));
    }
    ++run.other_lines;
  }
  return run;
}

}  // namespace fabcheck::parse
