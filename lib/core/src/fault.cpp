#include "fabcheck/core/fault.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>

#include "fabcheck/core/error.hpp"

namespace fabcheck::core {
namespace {

std::uint64_t to_u64(std::string_view v, std::string_view spec) {
  std::uint64_t out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size()) {
    throw UsageError(fmt::format("FABCHECK_TEST_FAULT: \"{}\" has a bad number \"{}\"", spec, v));
  }
  return out;
}

}  // namespace

Fault parse_fault(std::string_view spec) {
  Fault f;
  std::size_t pos = 0;
  bool first = true;
  bool have_rank = false;
  while (pos <= spec.size()) {
    std::size_t colon = spec.find(':', pos);
    std::string_view part =
        spec.substr(pos, colon == std::string_view::npos ? std::string_view::npos : colon - pos);
    if (first) {
      if (part == "corrupt")
        f.kind = Fault::Kind::kCorrupt;
      else if (part == "delay")
        f.kind = Fault::Kind::kDelay;
      else if (part == "hang")
        f.kind = Fault::Kind::kHang;
      else if (part == "freeze")
        f.kind = Fault::Kind::kFreeze;
      else if (part == "crash")
        f.kind = Fault::Kind::kCrash;
      else
        throw UsageError(fmt::format(
            "FABCHECK_TEST_FAULT: unknown fault \"{}\" (use corrupt, delay, hang, freeze or crash)", part));
      first = false;
    } else {
      std::size_t eq = part.find('=');
      if (eq == std::string_view::npos) {
        throw UsageError(fmt::format("FABCHECK_TEST_FAULT: \"{}\" is not key=value", part));
      }
      std::string_view key = part.substr(0, eq), val = part.substr(eq + 1);
      if (key == "rank") {
        f.rank = static_cast<int>(to_u64(val, spec));
        have_rank = true;
      } else if (key == "elems")
        f.elems = to_u64(val, spec);
      else if (key == "us")
        f.us = to_u64(val, spec);
      else if (key == "every")
        f.every = std::max<std::uint64_t>(1, to_u64(val, spec));
      else if (key == "after")
        f.after = to_u64(val, spec);
      else
        throw UsageError(fmt::format("FABCHECK_TEST_FAULT: unknown key \"{}\"", key));
    }
    if (colon == std::string_view::npos) break;
    pos = colon + 1;
  }
  if (!have_rank) throw UsageError("FABCHECK_TEST_FAULT: missing rank=R");
  return f;
}

std::optional<Fault> fault_from_env() {
  const char* v = std::getenv("FABCHECK_TEST_FAULT");
  if (v == nullptr || *v == '\0') return std::nullopt;
  return parse_fault(v);
}

}  // namespace fabcheck::core
