// The GID-table rules of gid_rules.hpp.
#include "gid_rules.hpp"

#include "fabcheck/model/gid_choice.hpp"

namespace fabcheck::report::detail {

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
  return model::nccl_auto_gid_index(p, env);  // one replay of NCCL's rule, shared with the nics probe
}

}  // namespace fabcheck::report::detail
