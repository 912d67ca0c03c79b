// libFuzzer target: the `ethtool -S` reader on arbitrary bytes. Invariants besides "no crash / no
// sanitizer report": it never throws; every statistic has a non-empty name without a line break and a value
// >= 0; statistics plus skipped lines never exceed the input's lines.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fabcheck/parse/ethtool_stats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto stats = fabcheck::parse::parse_ethtool_stats(text);
  std::size_t lines = 1;
  for (char c : text) lines += c == '\n';
  if (stats.values.size() + static_cast<std::size_t>(stats.skipped_lines) > lines) __builtin_trap();
  for (const auto& [name, value] : stats.values) {
    if (name.empty() || name.find('\n') != std::string_view::npos || value < 0) __builtin_trap();
  }
  return 0;
}
