#include "fabcheck/parse/mca_params.hpp"

#include <algorithm>
#include "fabcheck/core/ascii.hpp"

namespace fabcheck::parse {

McaParams parse_mca_params(std::string_view text) {
  McaParams out;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = core::trim_blanks(line);
    if (line.empty()) continue;
    auto eq = line.find('=');
    if (eq == std::string_view::npos) {
      ++out.skipped_lines;
      continue;
    }
    auto name = core::trim_blanks(line.substr(0, eq));
    auto value = core::trim_blanks(line.substr(eq + 1));
    if (name.empty()) {
      ++out.skipped_lines;
      continue;
    }
    out.params.emplace_back(std::string(name), std::string(value));
  }
  return out;
}

std::vector<std::string> mca_excluded(std::string_view value, const std::vector<std::string>& candidates) {
  value = core::trim_blanks(value);
  std::vector<std::string> out;
  if (value.empty()) return out;
  bool negate = value.front() == '^';
  if (negate) value.remove_prefix(1);
  auto listed = core::split_list(value);
  for (const auto& c : candidates) {
    bool in = std::find(listed.begin(), listed.end(), c) != listed.end();
    if (in == negate) out.push_back(c);
  }
  return out;
}

}  // namespace fabcheck::parse
