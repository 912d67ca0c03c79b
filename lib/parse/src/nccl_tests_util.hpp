#pragma once
// Small text helpers shared by the nccl-tests readers (not a public header).
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "fabcheck/core/ascii.hpp"
#include "fabcheck/parse/nccl_tests.hpp"

namespace fabcheck::parse::detail {

/// `s` without leading/trailing blanks (space, tab, CR).
/// Whitespace-separated tokens of `s`, at most `max` (the rest is dropped).
/// The blank-separated fields of a line, at most `max` (core::split_blanks).
inline std::vector<std::string_view> split_ws(std::string_view s, std::size_t max) {
  return core::split_blanks(s, max);
}
/// A whole token as a signed decimal integer; nullopt otherwise (or out of range).
std::optional<long long> parse_int(std::string_view tok);
/// A whole token as an unsigned decimal integer; nullopt otherwise.
std::optional<std::uint64_t> parse_uint(std::string_view tok);
/// A whole token as a finite number (%f, %g or %e form), with half a unit in its last printed place.
std::optional<PrintedNumber> parse_printed(std::string_view tok);

}  // namespace fabcheck::parse::detail
