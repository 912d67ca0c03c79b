#include "fabcheck/probes/scaling.hpp"

#include <fmt/format.h>

#include "fabcheck/core/error.hpp"

namespace fabcheck::probes {

void validate(const ScalingOptions& opts) {
  using core::Collective;
  if (opts.collective != Collective::kAllReduce && opts.collective != Collective::kAllGather &&
      opts.collective != Collective::kReduceScatter) {
    throw UsageError(
        fmt::format("scaling collective: {} has no ring model (use allreduce, allgather or reducescatter)",
                    core::name(opts.collective)));
  }
  if (opts.size_bytes == 0)
    throw UsageError("scaling size: must be > 0 (the sweep's largest size, e.g. 64M)");
  if (opts.iters < 1) throw UsageError(fmt::format("scaling iters: {} must be >= 1", opts.iters));
  if (opts.warmup_iters < 0)
    throw UsageError(fmt::format("scaling warmup: {} must be >= 0", opts.warmup_iters));
}

std::vector<int> scaling_group_sizes(int units) {
  std::vector<int> g;
  if (units < 2) return g;
  for (int s = 2; s < units; s *= 2) g.push_back(s);
  g.push_back(units);
  return g;
}

}  // namespace fabcheck::probes
