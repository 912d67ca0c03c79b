#include "peer_util.hpp"

#include <array>

#include "fabcheck/core/ascii.hpp"
#include "nccl_tests_util.hpp"

namespace fabcheck::parse::detail {

namespace {

/// Length of a `HH:MM:SS` timestamp followed by a blank at the start of `s` (Jenkins/GitHub CI logs), or 0.
std::size_t timestamp_prefix(std::string_view s) {
  if (s.size() < 9) return 0;
  for (std::size_t i : {0u, 1u, 3u, 4u, 6u, 7u}) {
    if (s[i] < '0' || s[i] > '9') return 0;
  }
  if (s[2] != ':' || s[5] != ':' || (s[8] != ' ' && s[8] != '\t')) return 0;
  return 9;
}

/// Length of an mpirun `[1,R]<stdout>:` / `[1,R]<stderr>:` tag, or 0.
std::size_t tag_prefix(std::string_view s) {
  if (s.empty() || s[0] != '[') return 0;
  const auto close = s.find("]<");
  if (close == std::string_view::npos || close > 24) return 0;
  for (std::size_t i = 1; i < close; ++i) {
    if (!((s[i] >= '0' && s[i] <= '9') || s[i] == ',')) return 0;
  }
  const auto end = s.find(">:", close);
  if (end == std::string_view::npos || end > close + 10) return 0;
  return end + 2;
}

}  // namespace

std::vector<std::string_view> peer_lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    auto nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    line.remove_prefix(timestamp_prefix(line));
    line.remove_prefix(tag_prefix(line));
    out.push_back(line);
    if (nl == text.size()) break;
    pos = nl + 1;
  }
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

std::optional<PrintedNumber> parse_result(std::string_view tok) {
  auto v = parse_printed(tok);
  if (!v || v->value < 0 || (tok.size() > 0 && tok[0] == '-')) return std::nullopt;
  return v;
}

std::string clip(std::string_view s) {
  return std::string(s.substr(0, 200));
}

bool scan_common_error(std::string_view line, std::size_t line_no, PeerRun& run) {
  // Open MPI / MPICH / Slurm words for a run that died (their own messages, verbatim fragments).
  static constexpr std::array<std::string_view, 9> kCrash = {
      "MPI_ABORT was invoked",
      "Segmentation fault",
      "Bus error",
      "mpirun noticed that process",
      "prterun noticed that process",
      "BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES",
      "srun: error:",
      "Abort(",
      "exited on signal"};
  for (auto k : kCrash) {
    if (line.find(k) != std::string_view::npos) {
      run.errors.push_back({"crash", clip(core::trim_blanks(line)), line_no, std::nullopt});
      return true;
    }
  }
  return false;
}

void reject_row(PeerTable& t, std::string_view line, std::size_t line_no) {
  if (t.rejected_rows++ == 0) {
    t.first_rejected_line = line_no;
    t.first_rejected = clip(core::trim_blanks(line));
  }
}

PeerRun text_run(std::string tool, std::string format, const std::vector<std::string_view>& lines) {
  PeerRun run;
  run.tool = std::move(tool);
  run.format = std::move(format);
  run.lines = lines.size();
  return run;
}

PeerTable* open_table(PeerRun& run, PeerTable* open, PeerTable&& t) {
  if (open) open->closed = true;
  run.tables.push_back(std::move(t));
  return &run.tables.back();
}

void read_row(PeerTable& t, const std::vector<std::string_view>& toks, std::string_view line,
              std::size_t line_no) {
  if (toks.size() != t.columns.size()) {
    reject_row(t, line, line_no);
    return;
  }
  PeerRow r;
  r.line = line_no;
  bool ok = true;
  for (std::size_t c = 0; c < toks.size() && ok; ++c) {
    const auto& name = t.columns[c];
    if (name == "size_bytes") {
      const auto n = parse_uint(toks[c]);
      ok = n.has_value();
      r.size_bytes = n.value_or(0);
    } else if (name == "validation") {
      r.validation = std::string(toks[c]);
      ok = r.validation == "Pass" || r.validation == "Fail";
    } else if (auto v = parse_result(toks[c])) {
      r.values[name] = *v;
    } else {
      ok = false;
    }
  }
  if (ok) {
    t.rows.push_back(std::move(r));
  } else {
    reject_row(t, line, line_no);
  }
}

}  // namespace fabcheck::parse::detail
