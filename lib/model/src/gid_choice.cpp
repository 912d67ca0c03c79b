// NCCL's GID index choice (model/gid_choice.hpp).
#include "fabcheck/model/gid_choice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

namespace fabcheck::model {

namespace {

const GidEntry* gid_slot(const RdmaPort& p, int idx) {
  for (const auto& g : p.gids)
    if (g.index == idx) return &g;
  return nullptr;
}

// One slot as ncclUpdateGidIndex sees it: getGidAddrFamily (IPv4-mapped → AF_INET, else AF_INET6), validGid =
// configuredGid && !linkLocalGid, ncclIbRoceGetVersionNum (gid_attrs/types: "IB/RoCE v1" or "RoCE v1" → 1,
// "RoCE v2" → 2).
struct NcclGidView {
  bool inet = false;
  bool valid = false;
  int roce_version = 0;
};

NcclGidView nccl_view(const RdmaPort& p, int idx) {
  NcclGidView v;
  const GidEntry* g = gid_slot(p, idx);
  if (!g) return v;  // all-zero: AF_INET6, not configured
  v.inet = !g->ipv4.empty();
  v.valid = !g->link_local;  // a listed slot is configured; fe80::/64 is link-local
  if (g->type == "RoCE v1") v.roce_version = 1;
  if (g->type == "RoCE v2") v.roce_version = 2;
  return v;
}

// An environment value as an integer, or nullopt when unset, empty or not a number.
std::optional<long> env_int(const std::map<std::string, std::string>& env, const char* key) {
  auto it = env.find(key);
  if (it == env.end() || it->second.empty()) return std::nullopt;
  char* end = nullptr;
  const long v = std::strtol(it->second.c_str(), &end, 10);
  if (end == it->second.c_str() || *end != '\0') return std::nullopt;
  return v;
}

}  // namespace

GidEntry gid_entry_of(int index, const std::array<std::uint8_t, 16>& raw, std::string type,
                      std::string netdev) {
  GidEntry e;
  e.index = index;
  for (std::size_t i = 0; i < 16; i += 2)
    e.gid += fmt::format("{}{:02x}{:02x}", i == 0 ? "" : ":", raw[i], raw[i + 1]);
  e.type = std::move(type);
  e.netdev = std::move(netdev);
  e.link_local = raw[0] == 0xfe && raw[1] == 0x80 &&
                 std::all_of(raw.begin() + 2, raw.begin() + 8, [](auto b) { return b == 0; });
  const bool mapped = std::all_of(raw.begin(), raw.begin() + 10, [](auto b) { return b == 0; }) &&
                      raw[10] == 0xff && raw[11] == 0xff;
  if (mapped) e.ipv4 = fmt::format("{}.{}.{}.{}", raw[12], raw[13], raw[14], raw[15]);
  return e;
}

int nccl_auto_gid_index(const RdmaPort& p, const std::map<std::string, std::string>& env) {
  bool want_inet = true;
  if (auto it = env.find("NCCL_IB_ADDR_FAMILY"); it != env.end() && it->second == "AF_INET6")
    want_inet = false;
  const int want_version = static_cast<int>(env_int(env, "NCCL_IB_ROCE_VERSION_NUM").value_or(2));
  int len = p.gid_tbl_len;
  for (const auto& g : p.gids) len = std::max(len, g.index + 1);
  int current = 0;
  for (int cand = 1; cand < len; ++cand) {
    const NcclGidView cur = nccl_view(p, current), c = nccl_view(p, cand);
    if (c.inet != cur.inet && c.inet == want_inet) {
      current = cand;
      continue;
    }
    if (c.inet != want_inet || !c.valid) continue;
    if ((cur.roce_version != c.roce_version || !cur.valid) && c.roce_version == want_version) current = cand;
  }
  return current;
}

GidChoice nccl_gid_index(const RdmaPort& p, const std::map<std::string, std::string>& env) {
  if (p.link_layer == "InfiniBand") {
    const int routable = static_cast<int>(env_int(env, "NCCL_IB_ROUTABLE_FLID_GID_INDEX").value_or(1));
    const GidEntry* g = routable >= 0 && routable < p.gid_tbl_len ? gid_slot(p, routable) : nullptr;
    if (g) {
      // ncclIbExtractFlid: ntohs of raw bytes 4-5 = the third group of the printed GID.
      const unsigned long flid =
          g->gid.size() >= 14 ? std::strtoul(g->gid.substr(10, 4).c_str(), nullptr, 16) : 0;
      if (flid != 0) return {routable, "ib_routable_flid"};
    }
    return {0, "ib_gid0"};
  }
  if (auto v = env_int(env, "NCCL_IB_GID_INDEX"); v && *v >= 0)
    return {static_cast<int>(*v), "NCCL_IB_GID_INDEX"};
  return {nccl_auto_gid_index(p, env), "nccl_auto"};
}

}  // namespace fabcheck::model
