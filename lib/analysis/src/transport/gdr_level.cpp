// NCCL_NET_GDR_LEVEL → the farthest GPU↔NIC distance that keeps GPUDirect RDMA.
#include "gdr_level.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cstdlib>

#include "host/pcie_findings.hpp"

namespace fabcheck::report::detail {

namespace {

/// NCCL's path types in order (src/graph/topo.cc topoPathTypeStr: LOC NVL NVB C2C PIX PXB P2C PXN PHB SYS),
/// mapped onto fabcheck's PCIe distance scale (model::distance_rank: PIX 1, PXB 2, PHB 3, NODE 4, SYS 5).
/// A GPU↔NIC path over PCIe is PIX, PXB, PHB or SYS in NCCL's terms; nvidia-smi's NODE (across host bridges
/// of one CPU) is NCCL's PHB. The NVLink/C2C types sit below PIX, so a limit there blocks every PCIe path;
/// P2C and PXN sit between PXB and PHB, so they keep PXB paths and block PHB ones.
struct LevelName {
  const char* name;
  int max_rank;
};
constexpr LevelName kLevels[] = {{"LOC", 0}, {"NVL", 0}, {"NVB", 0}, {"C2C", 0}, {"PIX", 1},
                                 {"PXB", 2}, {"P2C", 2}, {"PXN", 2}, {"PHB", 4}, {"SYS", 5}};

/// NCCL's old numbering (src/graph/paths.cc levelsOldToNew): 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 SYS, 5 and
/// above SYS.
constexpr LevelName kOldLevels[] = {{"LOC", 0}, {"PIX", 1}, {"PXB", 2}, {"PHB", 4}, {"SYS", 5}};

}  // namespace

/// NCCL's own reading, src/graph/paths.cc (NVIDIA/nccl master, June 2026): ncclTopoCheckGdr starts from
/// `netGdrLevel = ncclParamNetGdrC2c() ? PATH_P2C : PATH_PXB` (NET_GDR_C2C defaults to 1; for a PCIe path
/// both mean "PXB and nearer"), then ncclGetLevel(…, "NCCL_NET_GDR_LEVEL") matches the value against
/// topoPathTypeStr with strcmp (exact, upper case), else — when it starts with a digit — reads it with strtol
/// as an old-style number clamped to 5; anything else leaves the default. GDR is off when the path's type is
/// greater than the level.
GdrLevelLimit gdr_level_limit(const std::map<std::string, std::string>& env) {
  GdrLevelLimit out;
  out.max_rank = 2;
  out.level = "PXB";
  out.source = "NCCL default (src/graph/paths.cc ncclTopoCheckGdr: PXB)";
  auto it = env.find("NCCL_NET_GDR_LEVEL");
  if (it == env.end()) return out;
  const std::string& v = it->second;
  for (const auto& l : kLevels)
    if (v == l.name) {
      out.max_rank = l.max_rank;
      out.level = l.name;
      out.source = "NCCL_NET_GDR_LEVEL=" + v;
      return out;
    }
  if (!v.empty() && std::isdigit(static_cast<unsigned char>(v[0]))) {
    long old = std::strtol(v.c_str(), nullptr, 0);
    if (old > 4) old = 4;
    out.max_rank = kOldLevels[old].max_rank;
    out.level = kOldLevels[old].name;
    out.source = "NCCL_NET_GDR_LEVEL=" + v + " (old numbering: " + out.level + ")";
    return out;
  }
  out.ignored = v;
  return out;
}

void gdr_level_findings(const model::HostInventory& h, const std::vector<GpuRail>& rails,
                        std::vector<Finding>& out) {
  const auto limit = gdr_level_limit(h.env);
  if (!limit.ignored.empty() && !h.gpus.empty())
    out.push_back(host_fact_finding(
        Severity::kWarn, "GDR_LEVEL_IGNORED",
        fmt::format("{}: NCCL_NET_GDR_LEVEL={} is not a level NCCL reads (names are exact and upper case: "
                    "LOC, PIX, PXB, PHB, SYS; or a number 0-5): NCCL ignores it and keeps {}",
                    h.host, limit.ignored, limit.level),
        {{"host", h.host}, {"value", limit.ignored}, {"gdr_level", limit.level}},
        "write the level as NCCL spells it (e.g. NCCL_NET_GDR_LEVEL=PHB), or unset it"));
  if (!limit.from_env()) return;
  const int default_rank = gdr_level_limit({}).max_rank;
  std::vector<std::string> off;
  nlohmann::json ev = nlohmann::json::array();
  for (const auto& r : rails) {
    const int rank = model::distance_rank(r.level);
    if (r.nic.empty() || rank > default_rank || rank <= limit.max_rank) continue;
    off.push_back(fmt::format("GPU{} {} {}", r.gpu, r.level, r.nic));
    ev.push_back({{"gpu", r.gpu}, {"nic", r.nic}, {"level", r.level}});
  }
  if (off.empty()) return;
  out.push_back(host_fact_finding(
      Severity::kWarn, "GDR_OFF_BY_LEVEL",
      fmt::format("{}: {} turns GPUDirect RDMA off for {} GPU(s) that NCCL's default would give it ({}): "
                  "inter-node data is staged through host memory",
                  h.host, limit.source, off.size(), fmt::join(off, "; ")),
      {{"host", h.host}, {"gpus", ev}, {"gdr_level", limit.level}, {"gdr_level_source", limit.source}},
      "unset NCCL_NET_GDR_LEVEL (NCCL's default PXB keeps GPUDirect RDMA for a GPU under its NIC's PCIe "
      "switch)"));
}

}  // namespace fabcheck::report::detail
