// The QpInfo wire format (probes/nics_verbs_wire.hpp). No verbs headers.
#include "fabcheck/probes/nics_verbs_wire.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>

namespace fabcheck::probes::rdma {

namespace {

constexpr std::string_view kMagic = "fabcheck-qp1";

template <class T>
bool parse_num(std::string_view s, int base, T& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

bool parse_gid(std::string_view s, Gid& g) {
  if (s.size() != 32) return false;
  for (std::size_t i = 0; i < 16; ++i)
    if (!parse_num(s.substr(2 * i, 2), 16, g[i])) return false;
  return true;
}

}  // namespace

std::array<char, kQpWireBytes> serialize_qp_info(const QpInfo& info) {
  std::string text;
  if (!info.error.empty()) {
    text = fmt::format("{} err={}", kMagic, info.error);
  } else {
    std::string gid;
    for (auto b : info.gid) gid += fmt::format("{:02x}", b);
    text = fmt::format(
        "{} qpn={:x} psn={:x} lid={:x} gid={} gid_index={} mtu={} ll={} rkey={:x} addr={:x} len={}", kMagic,
        info.qpn, info.psn, info.lid, gid, info.gid_index, info.mtu_bytes, info.ethernet ? "eth" : "ib",
        info.rkey, info.addr, info.buffer_bytes);
  }
  std::array<char, kQpWireBytes> out{};
  std::memcpy(out.data(), text.data(), std::min(text.size(), kQpWireBytes - 1));  // last byte stays NUL
  return out;
}

std::optional<QpInfo> parse_qp_info(std::string_view wire, std::string& why) {
  wire = wire.substr(0, std::min(wire.find('\0'), wire.size()));
  if (wire.substr(0, kMagic.size()) != kMagic ||
      (wire.size() > kMagic.size() && wire[kMagic.size()] != ' ')) {
    why = "not a fabcheck-qp1 message";
    return std::nullopt;
  }
  std::string_view rest = wire.substr(std::min(wire.size(), kMagic.size() + 1));
  QpInfo q;
  if (rest.substr(0, 4) == "err=") {
    q.error = std::string(rest.substr(4));
    if (q.error.empty()) q.error = "unspecified error";
    return q;
  }
  std::map<std::string_view, std::string_view> kv;
  while (!rest.empty()) {
    const auto sp = rest.find(' ');
    const auto tok = rest.substr(0, sp);
    const auto eq = tok.find('=');
    if (eq == std::string_view::npos) {
      why = fmt::format("field '{}' has no '='", tok);
      return std::nullopt;
    }
    kv[tok.substr(0, eq)] = tok.substr(eq + 1);
    rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
  }
  auto need = [&](std::string_view key) -> std::optional<std::string_view> {
    auto it = kv.find(key);
    if (it == kv.end()) {
      why = fmt::format("field {} missing", key);
      return std::nullopt;
    }
    return it->second;
  };
  auto bad = [&](std::string_view key, std::string_view v) {
    why = fmt::format("field {}={} malformed", key, v);
    return std::nullopt;
  };
  const char* hex_keys[] = {"qpn", "psn", "lid", "rkey"};
  std::uint32_t hex[4] = {};
  for (int i = 0; i < 4; ++i) {
    auto v = need(hex_keys[i]);
    if (!v) return std::nullopt;
    if (!parse_num(*v, 16, hex[i])) return bad(hex_keys[i], *v);
  }
  if (hex[0] > 0xffffff) return bad("qpn", kv["qpn"]);
  if (hex[1] > 0xffffff) return bad("psn", kv["psn"]);
  if (hex[2] > 0xffff) return bad("lid", kv["lid"]);
  q.qpn = hex[0];
  q.psn = hex[1];
  q.lid = static_cast<std::uint16_t>(hex[2]);
  q.rkey = hex[3];
  auto gid = need("gid");
  if (!gid) return std::nullopt;
  if (!parse_gid(*gid, q.gid)) return bad("gid", *gid);
  auto gi = need("gid_index");
  if (!gi) return std::nullopt;
  if (!parse_num(*gi, 10, q.gid_index) || q.gid_index < 0) return bad("gid_index", *gi);
  auto mtu = need("mtu");
  if (!mtu) return std::nullopt;
  if (!parse_num(*mtu, 10, q.mtu_bytes) || !valid_ib_mtu(q.mtu_bytes)) return bad("mtu", *mtu);
  auto ll = need("ll");
  if (!ll) return std::nullopt;
  if (*ll != "eth" && *ll != "ib") return bad("ll", *ll);
  q.ethernet = *ll == "eth";
  auto addr = need("addr");
  if (!addr) return std::nullopt;
  if (!parse_num(*addr, 16, q.addr)) return bad("addr", *addr);
  auto len = need("len");
  if (!len) return std::nullopt;
  if (!parse_num(*len, 10, q.buffer_bytes)) return bad("len", *len);
  return q;
}

}  // namespace fabcheck::probes::rdma
