#include "fabcheck/comm/side_channel_addr.hpp"

#include <fmt/format.h>

#include <charconv>
#include "fabcheck/core/ascii.hpp"

namespace fabcheck::comm {
namespace {

/// Parses "a.b.c.d" into host order; false when it is not four numbers 0..255.
bool parse_ipv4(std::string_view s, std::uint32_t& out) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    unsigned part = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), part);
    if (ec != std::errc() || part > 255 || p == s.data()) return false;
    v = (v << 8) | part;
    s.remove_prefix(static_cast<std::size_t>(p - s.data()));
    if (i < 3) {
      if (s.empty() || s.front() != '.') return false;
      s.remove_prefix(1);
    }
  }
  if (!s.empty()) return false;
  out = v;
  return true;
}

bool token_matches(const InterfaceAddress& a, std::string_view tok) {
  if (tok.empty()) return false;
  const auto slash = tok.find('/');
  std::uint32_t net = 0;
  if (!parse_ipv4(tok.substr(0, slash), net)) return tok == a.ifname;
  unsigned bits = 32;
  if (slash != std::string_view::npos) {
    const auto b = tok.substr(slash + 1);
    auto [p, ec] = std::from_chars(b.data(), b.data() + b.size(), bits);
    if (ec != std::errc() || p != b.data() + b.size() || bits > 32) return false;
  }
  const std::uint32_t mask = bits == 0 ? 0 : ~std::uint32_t{0} << (32 - bits);
  return (a.ipv4 & mask) == (net & mask);
}

bool loopback(const InterfaceAddress& a) {
  return (a.ipv4 >> 24) == 127;
}

}  // namespace

bool interface_matches(const InterfaceAddress& a, std::string_view list) {
  while (!list.empty()) {
    const auto comma = list.find(',');
    if (token_matches(a, core::trim_blanks(list.substr(0, comma)))) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

std::vector<InterfaceAddress> side_channel_candidates(const std::vector<InterfaceAddress>& all,
                                                      std::string_view include, std::string_view exclude) {
  std::vector<InterfaceAddress> out;
  const bool use_include = !core::trim_blanks(include).empty();
  if (core::trim_blanks(exclude).empty()) exclude = kOmpiDefaultIfExclude;
  for (const auto& a : all) {
    if (use_include ? interface_matches(a, include) : !interface_matches(a, exclude)) out.push_back(a);
  }
  if (out.empty()) {
    for (const auto& a : all) {
      if (!loopback(a)) out.push_back(a);
    }
  }
  return out;
}

std::string ipv4_text(std::uint32_t ipv4) {
  return fmt::format("{}.{}.{}.{}", ipv4 >> 24, (ipv4 >> 16) & 255, (ipv4 >> 8) & 255, ipv4 & 255);
}

}  // namespace fabcheck::comm
