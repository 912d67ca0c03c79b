#include "fabcheck/parse/ethtool_stats.hpp"

#include <charconv>

#include "fabcheck/core/ascii.hpp"

namespace fabcheck::parse {

EthtoolStats parse_ethtool_stats(std::string_view text) {
  EthtoolStats out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const auto line = core::trim_blanks(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.empty() || line == "NIC statistics:") continue;
    const auto colon = line.rfind(": ");
    if (colon == std::string_view::npos || colon == 0) {
      ++out.skipped_lines;
      continue;
    }
    const auto value = core::trim_blanks(line.substr(colon + 2));
    std::int64_t v = 0;
    const auto r = std::from_chars(value.data(), value.data() + value.size(), v);
    if (r.ec != std::errc() || r.ptr != value.data() + value.size() || v < 0) {
      ++out.skipped_lines;
      continue;
    }
    out.values.emplace_back(std::string(core::trim_blanks(line.substr(0, colon))), v);
  }
  return out;
}

}  // namespace fabcheck::parse
