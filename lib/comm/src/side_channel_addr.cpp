#include "fabcheck/comm/side_channel_addr.hpp"

#include <fmt/format.h>

#include "fabcheck/core/ascii.hpp"
#include "fabcheck/core/ipv4.hpp"

namespace fabcheck::comm {
namespace {

bool token_matches(const InterfaceAddress& a, std::string_view tok) {
  if (tok.empty()) return false;
  const auto slash = tok.find('/');
  std::uint32_t net = 0;
  if (!core::parse_ipv4(tok.substr(0, slash), net)) return tok == a.ifname;
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
