#pragma once
// Small string helpers for the NCCL log reader (private to lib/parse). No regex: hand-written scanners keep
// the time linear and the stack flat on hostile input (fuzzed).
#include <cctype>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include "fabcheck/core/ascii.hpp"

namespace fabcheck::parse::detail {

inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
inline bool is_space(char c) {
  return c == ' ' || c == '\t';
}
inline bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

inline bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
inline bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}
inline bool contains(std::string_view s, std::string_view p) {
  return s.find(p) != std::string_view::npos;
}

/// Non-negative decimal at s[pos...]; advances pos. Values are capped at 1e15 to stay in range.
inline std::optional<long long> read_uint(std::string_view s, std::size_t& pos) {
  std::size_t p = pos;
  long long v = 0;
  while (p < s.size() && is_digit(s[p])) {
    if (v < 1000000000000000LL) v = v * 10 + (s[p] - '0');
    ++p;
  }
  if (p == pos) return std::nullopt;
  pos = p;
  return v;
}

/// Signed decimal (optional leading '-').
inline std::optional<long long> read_int(std::string_view s, std::size_t& pos) {
  std::size_t p = pos;
  bool neg = false;
  if (p < s.size() && s[p] == '-') {
    neg = true;
    ++p;
  }
  auto v = read_uint(s, p);
  if (!v) return std::nullopt;
  pos = p;
  return neg ? -*v : *v;
}

inline int clamp_int(long long v) {
  if (v > 2000000000LL) return 2000000000;
  if (v < -2000000000LL) return -2000000000;
  return static_cast<int>(v);
}

/// The integer that follows `key` (e.g. "nranks ") anywhere in s.
inline std::optional<long long> int_after(std::string_view s, std::string_view key) {
  std::size_t at = s.find(key);
  while (at != std::string_view::npos) {
    // Key must start a word.
    if (at == 0 || is_space(s[at - 1]) || s[at - 1] == ',' || s[at - 1] == '(') {
      std::size_t p = at + key.size();
      while (p < s.size() && is_space(s[p])) ++p;
      if (auto v = read_int(s, p)) return v;
    }
    at = s.find(key, at + 1);
  }
  return std::nullopt;
}

/// First whitespace-delimited token of s.
inline std::string_view first_token(std::string_view s) {
  s = core::trim_blanks(s);
  std::size_t e = 0;
  while (e < s.size() && !is_space(s[e])) ++e;
  return s.substr(0, e);
}

}  // namespace fabcheck::parse::detail
