#include "nccl_tests_util.hpp"

#include <charconv>
#include <cmath>
#include <string>

namespace fabcheck::parse::detail {

std::optional<long long> parse_int(std::string_view tok) {
  if (tok.empty() || tok.size() > 20) return std::nullopt;
  long long v = 0;
  const auto* first = tok.data();
  if (*first == '+') ++first;
  const auto [p, ec] = std::from_chars(first, tok.data() + tok.size(), v);
  if (ec != std::errc() || p != tok.data() + tok.size()) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> parse_uint(std::string_view tok) {
  if (tok.empty() || tok.size() > 20 || tok[0] < '0' || tok[0] > '9') return std::nullopt;
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ec != std::errc() || p != tok.data() + tok.size()) return std::nullopt;
  return v;
}

std::optional<PrintedNumber> parse_printed(std::string_view tok) {
  if (tok.empty() || tok.size() > 40) return std::nullopt;
  for (char c : tok) {
    const bool ok = (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E';
    if (!ok) return std::nullopt;  // no "nan", "inf", hex
  }
  const std::string t(tok);
  double v = 0;
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || !std::isfinite(v)) return std::nullopt;
  const auto e = t.find_first_of("eE");
  const std::string mant = e == std::string::npos ? t : t.substr(0, e);
  int exp10 = 0;
  if (e != std::string::npos) {
    const auto x = parse_int(std::string_view(t).substr(e + 1));
    if (!x || *x < -400 || *x > 400) return std::nullopt;
    exp10 = static_cast<int>(*x);
  }
  const auto dot = mant.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(mant.size() - dot - 1);
  return PrintedNumber{v, 0.5 * std::pow(10.0, exp10 - decimals)};
}

}  // namespace fabcheck::parse::detail
