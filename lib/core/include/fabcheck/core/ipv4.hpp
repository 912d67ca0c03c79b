#pragma once
/// @file Dotted-quad IPv4 text (interface filters, /proc/net/fib_trie): one parser for every module.
#include <charconv>
#include <cstdint>
#include <string_view>

namespace fabcheck::core {

/// Parses "a.b.c.d" into host order; false when it is not four numbers 0..255.
inline bool parse_ipv4(std::string_view s, std::uint32_t& out) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    unsigned part = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), part);
    if (ec != std::errc() || part > 255 || p == s.data()) return false;
    v = (v << 8) | part;
    s.remove_prefix(static_cast<std::size_t>(p - s.data()));
    if (i < 3) {
      if (s.empty() || s.front() != '.') return false;
      s.remove_prefix(1);
    }
  }
  if (!s.empty()) return false;
  out = v;
  return true;
}

}  // namespace fabcheck::core
