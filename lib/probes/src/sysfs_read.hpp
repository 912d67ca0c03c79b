#pragma once
// Private to lib/probes: reading sysfs/procfs attributes (the inventory and the counters readers share them).
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "fabcheck/core/read_bounded.hpp"

namespace fabcheck::probes::detail {

/// Reads a sysfs/procfs/etc attribute (core::read_attribute: bounded, never blocking, regular files only),
/// stripping exactly one trailing newline; bytes that are not UTF-8 read as U+FFFD. nullopt when unreadable
/// (ENOENT, EINVAL, EACCES, a FIFO or device node, larger than core::kAttributeCapBytes).
inline std::optional<std::string> read_attr(const std::filesystem::path& p) {
  auto s = core::read_attribute(p.string());
  if (!s) return std::nullopt;
  if (!s->empty() && s->back() == '\n') s->pop_back();
  return core::valid_utf8(*s);
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

/// read_attr or `def`.
inline std::string read_or(const std::filesystem::path& p, std::string def = {}) {
  return read_attr(p).value_or(std::move(def));
}

/// The attribute as a number (strtol base 0: "0x1003" and "16" both read); nullopt when unreadable.
inline std::optional<long> read_long(const std::filesystem::path& p) {
  auto s = read_attr(p);
  if (!s || s->empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(s->c_str(), &end, 0);
  if (errno != 0 || end == s->c_str()) return std::nullopt;
  return v;
}

/// exists(), without throwing.
inline bool path_exists(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::exists(p, ec);
}

}  // namespace fabcheck::probes::detail
