#pragma once
// Private to lib/probes: reading sysfs/procfs attributes (the inventory and the counters readers share them).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

namespace fabcheck::probes::detail {

/// Reads a sysfs attribute, stripping exactly one trailing newline. nullopt when unreadable (ENOENT,
/// EINVAL, EACCES...).
inline std::optional<std::string> read_attr(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  std::string s = ss.str();
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

/// The names in a directory, sorted; empty when it cannot be listed.
inline std::vector<std::string> list_dir(const std::filesystem::path& p) {
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace fabcheck::probes::detail
