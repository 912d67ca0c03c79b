#pragma once
/// @file ASCII case folding for matching tool output (NCCL log lines, variable names): locale-free.
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

}  // namespace fabcheck::core
