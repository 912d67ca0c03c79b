// The GID-table rules of gid_rules.hpp.
#include "gid_rules.hpp"

#include <cstdlib>

namespace fabcheck::report::detail {

namespace {

// One slot as ncclUpdateGidIndex sees it (v2.21.5-1 src/transport/net_ib.cc): getGidAddrFamily (IPv4-mapped
// → AF_INET, else AF_INET6), validGid = configuredGid && !linkLocalGid, ncclIbRoceGetVersionNum (the
// gid_attrs/types file: "IB/RoCE v1" or "RoCE v1" → 1, "RoCE v2" → 2).
struct GidSlotView {
  bool inet = false;
  bool valid = false;
  int roce_version = 0;
};

GidSlotView slot_view(const model::RdmaPort& p, int idx) {
  GidSlotView v;
  const model::GidEntry* g = gid_at(p, idx);
  if (!g) return v;  // all-zero: AF_INET6, not configured
  v.inet = !g->ipv4.empty();
  v.valid = !g->link_local;  // a listed slot is configured; fe80::/64 is link-local
  if (g->type == "RoCE v1") v.roce_version = 1;
  if (g->type == "RoCE v2") v.roce_version = 2;
  return v;
}

}  // namespace

const model::GidEntry* gid_at(const model::RdmaPort& p, int idx) {
  for (const auto& g : p.gids)
    if (g.index == idx) return &g;
  return nullptr;
}

std::string judge_gid(const model::RdmaPort& p, int idx) {
  const auto* g = gid_at(p, idx);
  if (!g) return "empty";
  if (g->type != "RoCE v2") return "not_rocev2";
  if (g->link_local) return "link_local";
  return "ok";
}

std::optional<int> ipv4_rocev2_index(const model::RdmaPort& p) {
  for (const auto& g : p.gids)
    if (g.type == "RoCE v2" && !g.link_local && !g.ipv4.empty()) return g.index;
  return std::nullopt;
}

int nccl_auto_gid_index(const model::RdmaPort& p, const std::map<std::string, std::string>& env) {
  bool want_inet = true;
  if (auto it = env.find("NCCL_IB_ADDR_FAMILY"); it != env.end() && it->second == "AF_INET6")
    want_inet = false;
  int want_version = 2;
  if (auto it = env.find("NCCL_IB_ROCE_VERSION_NUM"); it != env.end() && !it->second.empty())
    want_version = static_cast<int>(std::strtol(it->second.c_str(), nullptr, 10));
  int len = p.gid_tbl_len;
  for (const auto& g : p.gids) len = std::max(len, g.index + 1);
  int current = 0;
  for (int cand = 1; cand < len; ++cand) {
    const GidSlotView cur = slot_view(p, current), c = slot_view(p, cand);
    if (c.inet != cur.inet && c.inet == want_inet) {
      current = cand;
      continue;
    }
    if (c.inet != want_inet || !c.valid) continue;
    if ((cur.roce_version != c.roce_version || !cur.valid) && c.roce_version == want_version) current = cand;
  }
  return current;
}

}  // namespace fabcheck::report::detail
