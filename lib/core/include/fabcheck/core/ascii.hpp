#pragma once
/// @file ASCII case folding and blank trimming for matching tool output (NCCL log lines, variable names):
/// locale-free.
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::core {

/// `s` with A-Z folded to a-z (other bytes unchanged).
inline std::string ascii_lower(std::string_view s) {
  std::string o(s);
  for (auto& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return o;
}

/// `s` with a-z folded to A-Z (other bytes unchanged).
inline std::string ascii_upper(std::string_view s) {
  std::string o(s);
  for (auto& c : o) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return o;
}

/// Whether `s` may be written as one line of an MPI or Slurm hostfile: 1 to 253 bytes of letters, digits,
/// `-`, `.` and `_` (RFC 1123 host names, with the underscore some clusters' names carry), not starting with
/// `-`. A name holding a blank, a newline or `=` would add words or lines (`slots=64`) to the next job's
/// hostfile.
inline bool is_host_name(std::string_view s) {
  if (s.empty() || s.size() > 253 || s.front() == '-') return false;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) && c != '-' && c != '.' && c != '_') return false;
  }
  return true;
}

/// `s` for a terminal: control bytes other than newline and tab dropped (ESC, BEL, CR, DEL...), so text
/// quoted from a foreign file (an NCCL log line, an imported table) cannot move the cursor, retitle the
/// window or hide what was printed before it. Other bytes, UTF-8 included, pass unchanged.
inline std::string terminal_safe(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) continue;
    o.push_back(c);
  }
  return o;
}

/// `s` without leading and trailing blanks (space, tab) and carriage returns (CRLF files).
inline std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

/// The items of a comma-separated list ("eth0, 10.0.0.0/24" as Open MPI's MCA list values and NCCL's
/// `NCCL_SOCKET_IFNAME` carry them): blanks (space, tab, CR) around an item dropped, empty items dropped.
inline std::vector<std::string> split_list(std::string_view s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const auto comma = s.find(',', start);
    const auto item = trim_blanks(
        s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

/// The blank-separated fields of `s` (space, tab, CR, LF), at most `max` of them (the rest of the text is not
/// looked at).
inline std::vector<std::string_view> split_blanks(std::string_view s, std::size_t max = SIZE_MAX) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size() && out.size() < max) {
    while (i < s.size() && blank(s[i])) ++i;
    const std::size_t b = i;
    while (i < s.size() && !blank(s[i])) ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

}  // namespace fabcheck::core
