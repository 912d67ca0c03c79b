#include "fabcheck/core/size.hpp"

#include <fmt/format.h>

#include <cctype>
#include <limits>

#include "fabcheck/core/error.hpp"

namespace fabcheck::core {

std::uint64_t parse_size(std::string_view text, std::string_view field) {
  auto fail = [&](std::string_view why) {
    return UsageError(
        fmt::format("{}: \"{}\" is not a size: {} (use an integer with an optional K/M/G suffix, e.g. 64M)",
                    field, text, why));
  };
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::size_t digits_begin = i;
  std::uint64_t value = 0;
  constexpr std::uint64_t kMax = std::uint64_t{1} << 62;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    const auto digit = static_cast<std::uint64_t>(text[i] - '0');
    // Checked before the multiplication: 18446744073709551624 would wrap past 2^64 to 8.
    if (value > (kMax - digit) / 10) throw fail("too large");
    value = value * 10 + digit;
    ++i;
  }
  if (i == digits_begin) throw fail(text.empty() ? "empty" : "no digits");
  std::string suffix;
  for (; i < text.size(); ++i) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) continue;
    suffix.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(text[i]))));
  }
  unsigned shift = 0;
  if (suffix.empty() || suffix == "B") {
    shift = 0;
  } else {
    switch (suffix[0]) {
      case 'K':
        shift = 10;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      case 'T':
        shift = 40;
        break;
      default:
        throw fail(fmt::format("unknown suffix '{}'", suffix));
    }
    std::string rest = suffix.substr(1);
    if (!(rest.empty() || rest == "B" || rest == "IB"))
      throw fail(fmt::format("unknown suffix '{}'", suffix));
  }
  if (shift > 0 && value > (kMax >> shift)) throw fail("too large");
  return value << shift;
}

std::vector<std::uint64_t> parse_size_list(std::string_view text, std::string_view field) {
  std::vector<std::uint64_t> out;
  if (text.empty()) throw UsageError(fmt::format("{}: empty list (give sizes such as 8,4K,64K)", field));
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string_view item =
        text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    out.push_back(parse_size(item, field));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string format_size(std::uint64_t bytes) {
  static constexpr const char* kSuffix[] = {"", "K", "M", "G", "T"};
  int idx = 0;
  while (idx < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++idx;
  }
  return fmt::format("{}{}", bytes, kSuffix[idx]);
}

}  // namespace fabcheck::core
