#include "fabcheck/core/cpulist.hpp"

#include <algorithm>
#include <charconv>

#include "fabcheck/core/ascii.hpp"

namespace fabcheck::core {
namespace {

std::optional<int> cpu_number(std::string_view s) {
  int v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

}  // namespace

std::optional<std::vector<int>> parse_cpulist(std::string_view text) {
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);  // sysfs ends the list with one
  text = trim_blanks(text);
  std::vector<int> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const auto dash = item.find('-');
    const auto lo = cpu_number(item.substr(0, dash));
    const auto hi = dash == std::string_view::npos ? lo : cpu_number(item.substr(dash + 1));
    if (!lo || !hi || *hi < *lo || *hi - *lo > 1 << 20) return std::nullopt;
    for (int c = *lo; c <= *hi; ++c) out.push_back(c);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string format_cpulist(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace fabcheck::core
