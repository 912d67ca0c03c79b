#pragma once
// NCCL_NET_GDR_LEVEL as NCCL reads it: the farthest GPU↔NIC distance at which NCCL still uses
// GPUDirect RDMA, on fabcheck's distance scale (model::distance_rank). inventory.cpp judges each GPU's rail
// with it; gdr_level.cpp cites NCCL's source.
#include <map>
#include <string>
#include <vector>

#include "fabcheck/model/inventory.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/inventory.hpp"

namespace fabcheck::report::detail {

/// The GDR distance limit in effect on one host.
struct GdrLevelLimit {
  int max_rank = 2;     ///< farthest model::distance_rank that keeps GDR (0: none; PIX 1 … SYS 5)
  std::string level;    ///< NCCL's name of the limit ("PXB", "SYS", "LOC" …)
  std::string source;   ///< "NCCL default (…)" or "NCCL_NET_GDR_LEVEL=<value>"
  std::string ignored;  ///< a value NCCL does not parse (NCCL then keeps its default), else ""
  bool from_env() const { return source.rfind("NCCL_NET_GDR_LEVEL", 0) == 0; }
};

/// The limit for a host's environment (its NCCL_* variables).
GdrLevelLimit gdr_level_limit(const std::map<std::string, std::string>& env);

/// GDR_LEVEL_IGNORED (a value NCCL does not read) and GDR_OFF_BY_LEVEL (the variable turns GPUDirect RDMA off
/// for GPUs that NCCL's default would give it) for one host; rails from gpu_rails(h).
void gdr_level_findings(const model::HostInventory& h, const std::vector<GpuRail>& rails,
                        std::vector<Finding>& out);

}  // namespace fabcheck::report::detail
