#include "fabcheck/core/ifname_filter.hpp"

#include <fmt/format.h>

#include <charconv>

#include "fabcheck/core/ipv4.hpp"

namespace fabcheck::core {

bool ifname_matches(std::string_view spec, std::string_view name) {
  bool exclude = false, exact = false;
  if (!spec.empty() && spec.front() == '^') {
    exclude = true;
    spec.remove_prefix(1);
  }
  if (!spec.empty() && spec.front() == '=') {
    exact = true;
    spec.remove_prefix(1);
  }
  bool any_item = false, hit = false;
  while (true) {
    const auto comma = spec.find(',');
    std::string_view item = spec.substr(0, comma);
    if (const auto colon = item.find(':'); colon != std::string_view::npos) item = item.substr(0, colon);
    if (!item.empty()) {
      any_item = true;
      if (exact ? name == item : name.substr(0, item.size()) == item) hit = true;
    }
    if (comma == std::string_view::npos) break;
    spec.remove_prefix(comma + 1);
  }
  if (!any_item) return true;
  return exclude ? !hit : hit;
}

std::string ipv4_subnet(std::uint32_t addr, int len) {
  if (len < 0) len = 0;
  if (len > 32) len = 32;
  const std::uint32_t mask = len == 0 ? 0u : ~0u << (32 - len);
  const std::uint32_t net = addr & mask;
  return fmt::format("{}.{}.{}.{}/{}", net >> 24, (net >> 16) & 255, (net >> 8) & 255, net & 255, len);
}

bool ipv4_in_subnet(std::string_view addr, std::string_view cidr) {
  const auto slash = cidr.find('/');
  if (slash == std::string_view::npos) return false;
  std::uint32_t a = 0, net = 0;
  if (!parse_ipv4(addr, a) || !parse_ipv4(cidr.substr(0, slash), net)) return false;
  int len = -1;
  const auto tail = cidr.substr(slash + 1);
  auto [p, ec] = std::from_chars(tail.data(), tail.data() + tail.size(), len);
  if (ec != std::errc() || p != tail.data() + tail.size() || len < 0 || len > 32) return false;
  const std::uint32_t mask = len == 0 ? 0u : ~0u << (32 - len);
  return (a & mask) == (net & mask);
}

}  // namespace fabcheck::core
