#include "fabcheck/parse/proc_net.hpp"

#include <algorithm>
#include <charconv>

#include "fabcheck/core/ascii.hpp"

namespace fabcheck::parse {
namespace {

bool is_integer(std::string_view s) {
  std::int64_t v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

/// A value line without its header (all fields numbers): nothing can be named from it.
bool is_value_line(const std::vector<std::string_view>& f) {
  return f.size() > 1 && std::all_of(f.begin() + 1, f.end(), is_integer);
}

}  // namespace

ProcNetCounters parse_proc_net_counters(std::string_view text) {
  ProcNetCounters out;
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto head = core::split_blanks(lines[i]);
    if (head.empty() || head.front().back() != ':' || is_value_line(head)) continue;
    const auto prefix = head.front().substr(0, head.front().size() - 1);
    const auto vals =
        i + 1 < lines.size() ? core::split_blanks(lines[i + 1]) : std::vector<std::string_view>{};
    if (vals.empty() || vals.front() != head.front() || vals.size() != head.size()) {
      out.skipped_fields += static_cast<int>(head.size()) - 1;
      continue;
    }
    for (std::size_t k = 1; k < head.size(); ++k) {
      std::int64_t v = 0;
      const auto* e = vals[k].data() + vals[k].size();
      const auto r = std::from_chars(vals[k].data(), e, v);
      if (r.ec != std::errc() || r.ptr != e) {
        ++out.skipped_fields;
        continue;
      }
      out.values.emplace_back(std::string(prefix) + "." + std::string(head[k]), v);
    }
    ++i;  // the value line is consumed
  }
  return out;
}

}  // namespace fabcheck::parse
