// The plan of an emulated training step from a workload profile.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "fabcheck/core/error.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/core/step_math.hpp"
#include "fabcheck/report/train_step.hpp"

namespace fabcheck::report {

using model::StepOp;
using model::StepPlan;

namespace {

StepOp compute_op(double us) {
  StepOp o;
  o.kind = StepOp::Kind::kCompute;
  o.compute_us = us;
  return o;
}

StepOp post_op(core::Collective c, std::uint64_t size) {
  StepOp o;
  o.kind = StepOp::Kind::kPost;
  o.coll = c;
  o.size_bytes = size;
  return o;
}

StepOp wait_op() {
  StepOp o;
  o.kind = StepOp::Kind::kWaitAll;
  return o;
}

double chosen_scale(std::uint64_t real, double scale, int max_buckets) {
  return scale > 0 ? scale
                   : core::auto_step_scale(real, static_cast<std::uint64_t>(std::max(1, max_buckets)));
}

void plan_ddp(const WorkloadProfile& p, double scale, int max_buckets, StepPlan& s) {
  const auto grad = static_cast<std::uint64_t>(std::llround(p.parameters * p.bytes_per_grad));
  if (grad == 0) {
    throw UsageError(
        fmt::format("--workload: {} has under one byte of gradients (parameters x bytes_per_grad); give it "
                    "parameters >= 1",
                    p.name));
  }
  const std::uint64_t b = std::min<std::uint64_t>(p.bucket_bytes, std::max<std::uint64_t>(grad, 1));
  const std::uint64_t full = grad / b, rem = grad % b;
  s.real_buckets = full + (rem > 0 ? 1 : 0);
  s.buckets = core::scaled_count(s.real_buckets, chosen_scale(s.real_buckets, scale, max_buckets));
  s.bucket_bytes = b;
  std::vector<std::uint64_t> sizes;
  if (s.buckets == s.real_buckets && rem > 0) sizes.push_back(rem);  // the whole step: remainder first
  while (sizes.size() < s.buckets) sizes.push_back(b);
  double bytes = 0;
  for (auto x : sizes) bytes += static_cast<double>(x);
  s.compute_s = p.compute_s * bytes / static_cast<double>(grad);
  const double chunk_us = s.compute_s * 1e6 / static_cast<double>(sizes.size());
  for (auto x : sizes) {
    s.ops.push_back(compute_op(chunk_us));
    s.ops.push_back(post_op(core::Collective::kAllReduce, x));
  }
  s.ops.push_back(wait_op());
  s.description = fmt::format(
      "DDP backward: {} compute chunks of {:.1f} ms, each followed by its bucket's nonblocking allreduce "
      "({}); "
      "one wait at the end",
      sizes.size(), chunk_us / 1e3, core::format_size(b));
}

void plan_fsdp(const WorkloadProfile& p, double scale, int max_buckets, StepPlan& s) {
  const auto units = static_cast<std::uint64_t>(p.fsdp_units);
  s.real_buckets = units;
  s.buckets = core::scaled_count(units, chosen_scale(units, scale, max_buckets));
  const double unit_params = p.parameters / static_cast<double>(units);
  s.allgather_bytes = static_cast<std::uint64_t>(std::llround(unit_params * p.bytes_per_param));
  s.reducescatter_bytes = static_cast<std::uint64_t>(std::llround(unit_params * p.bytes_per_grad));
  s.compute_s = p.compute_s * static_cast<double>(s.buckets) / static_cast<double>(units);
  const double unit_us = s.compute_s * 1e6 / static_cast<double>(s.buckets);
  const double fwd_us = unit_us * (1 - kBackwardShare), bwd_us = unit_us * kBackwardShare;
  const auto n = s.buckets;
  const auto ag = core::Collective::kAllGather, rs = core::Collective::kReduceScatter;
  // Forward: unit 0's parameters first, then each unit's compute with the next unit's allgather in flight.
  s.ops.push_back(post_op(ag, s.allgather_bytes));
  for (std::uint64_t i = 0; i < n; ++i) {
    s.ops.push_back(wait_op());
    if (i + 1 < n) s.ops.push_back(post_op(ag, s.allgather_bytes));
    s.ops.push_back(compute_op(fwd_us));
  }
  // Backward, units in reverse: gather again (parameters were freed after forward), prefetch the next.
  s.ops.push_back(post_op(ag, s.allgather_bytes));
  for (std::uint64_t i = n; i-- > 0;) {
    s.ops.push_back(wait_op());
    if (i > 0) s.ops.push_back(post_op(ag, s.allgather_bytes));
    s.ops.push_back(compute_op(bwd_us));
    s.ops.push_back(post_op(rs, s.reducescatter_bytes));
  }
  s.ops.push_back(wait_op());
  s.description = fmt::format(
      "FSDP: {} units; forward {:.1f} ms per unit with the next unit's allgather ({}) prefetched, backward "
      "{:.1f} ms per unit with the previous unit's allgather prefetched and its reducescatter ({}) after it",
      n, fwd_us / 1e3, core::format_size(s.allgather_bytes), bwd_us / 1e3,
      core::format_size(s.reducescatter_bytes));
}

}  // namespace

StepPlan plan_train_step(const WorkloadProfile& p, double scale, int max_buckets) {
  if (p.parallelism == Parallelism::kPp) {
    throw UsageError(fmt::format(
        "--workload: {} is a pipeline-parallel profile; step emulates ddp and fsdp steps (pick one of those; "
        "fabcheck project --workload {} gives its bubble)",
        p.name, p.name));
  }
  StepPlan s;
  s.workload = p.name;
  s.parallelism = parallelism_name(p.parallelism);
  s.real_compute_s = p.compute_s;
  if (p.parallelism == Parallelism::kDdp) {
    plan_ddp(p, scale, max_buckets, s);
  } else {
    plan_fsdp(p, scale, max_buckets, s);
  }
  s.scale = s.real_buckets > 0 ? static_cast<double>(s.buckets) / static_cast<double>(s.real_buckets) : 1.0;
  return s;
}

WorkloadProfile scaled_profile(const WorkloadProfile& p, const StepPlan& plan) {
  WorkloadProfile q = p;
  q.compute_s = plan.compute_s;
  if (p.parallelism == Parallelism::kDdp) {
    double bytes = 0;
    for (const auto& op : plan.ops)
      if (op.kind == StepOp::Kind::kPost) bytes += static_cast<double>(op.size_bytes);
    q.parameters = bytes / p.bytes_per_grad;
  } else {
    q.fsdp_units = static_cast<int>(plan.buckets);
    q.parameters = p.parameters * static_cast<double>(plan.buckets) / static_cast<double>(p.fsdp_units);
  }
  return q;
}

}  // namespace fabcheck::report
