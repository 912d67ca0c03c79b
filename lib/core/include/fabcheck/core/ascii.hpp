#pragma once
/// @file ASCII case folding and blank trimming for matching tool output (NCCL log lines, variable names):
/// locale-free.
#include <cctype>
#include <string>
#include <string_view>

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

/// `s` without leading and trailing blanks (space, tab) and carriage returns (CRLF files).
inline std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace fabcheck::core
