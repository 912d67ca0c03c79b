#include "fabcheck/probes/scaling.hpp"

#include <fmt/format.h>

#include <climits>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/comm/phase.hpp"
#include "fabcheck/probes/sweep.hpp"

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

ScalingResult run_scaling(const comm::Communicator& comm, const ScalingOptions& opts) {
  validate(opts);
  ScalingResult res;
  res.options = opts;
  res.world_nranks = comm.size();
  res.world_hosts = static_cast<int>(comm.hosts().size());
  res.intra_node_only = res.world_hosts == 1;
  if (comm.size() < 2) {
    res.skipped_reason = "one rank: nothing to scale";
    return res;
  }
  // The sweep probe's own measurement (table loop, -a 1 mean over ranks), one size, no check, no
  // per-iteration pass: only the table time is needed.
  SweepOptions so;
  so.collectives = {opts.collective};
  so.min_bytes = opts.size_bytes;
  so.max_bytes = opts.size_bytes;
  so.iters = opts.iters;
  so.warmup_iters = opts.warmup_iters;
  so.check = 0;
  so.per_iter_iters = 0;
  so.backend = opts.backend;
  validate(so);
  // The sweep refuses counts above the MPI limit; check here on every rank so that no group member throws
  // alone.
  const auto geo = core::geometry(opts.collective, so.dtypes.front(), opts.size_bytes, comm.size());
  if (opts.backend == "mpi" && geo.count > static_cast<std::uint64_t>(INT_MAX)) {
    throw UsageError(fmt::format("scaling size: {} B gives count {}, above the MPI limit 2^31-1",
                                 opts.size_bytes, geo.count));
  }

  const int units = res.intra_node_only ? comm.size() : res.world_hosts;
  const bool limited = opts.time_limit_s > 0;
  const double start_us = comm::now_us();
  // With a time limit each group is measured once first (one op per placement, no warm-up: on a slow fabric
  // every op counts): its per-op time decides whether the full `iters` fit in what is left, and predicts the
  // next group's first measurement. A group's ring time hardly depends on its size, but a slow host joining
  // multiplies it: the first measurement of each group is what catches that.
  // Ops per run of the sweep at one size: per placement nccl-tests' untimed op, then the timed ones.
  const int probe_ops = 2 * (1 + 1), full_ops = 2 * (1 + opts.iters);
  SweepOptions probe = so;
  probe.iters = 1;
  probe.warmup_iters = 0;
  SweepOptions full = so;
  full.warmup_iters = 0;  // warm from the first measurement
  double op_s = 0;        // per-op seconds of the last group measured, the slowest rank's
  auto left_s = [&] { return opts.time_limit_s - (comm::now_us() - start_us) * 1e-6; };
  // Every rank decides on its own clock; the decision is agreed (any rank) so that all take the same branch.
  auto any_rank = [&](bool b) { return comm.allreduce(std::int64_t{b ? 1 : 0}, comm::ScalarOp::kMax) != 0; };
  for (int g : scaling_group_sizes(units)) {
    comm::enter_phase(fmt::format("scaling {} {} {}", core::name(opts.collective), g,
                                  res.intra_node_only ? "ranks" : "hosts"));
    if (limited && op_s > 0) {
      const double predicted = op_s * probe_ops, left = left_s();
      if (any_rank(predicted > left)) {
        res.cut.from_hosts = g;
        res.cut.predicted_s = predicted;
        res.cut.allowance_s = left;
        break;
      }
    }
    // One host: the first g local ranks. Several hosts: every rank of the first g hosts. World rank 0 is
    // always in (host 0 is rank 0's host, and its local rank is 0) and, with key = rank, is rank 0 of the
    // split.
    const bool member = res.intra_node_only ? comm.local_rank() < g : comm.host_index(comm.rank()) < g;
    const comm::Communicator sub = comm.split(member ? 0 : -1, comm.rank());
    model::SweepResult sr;
    int iters = opts.iters;
    if (limited) {
      const double t0 = comm::now_us();
      if (member) sr = run_sweep(sub, probe);
      op_s = comm.allreduce(member ? (comm::now_us() - t0) * 1e-6 / probe_ops : 0.0, comm::ScalarOp::kMax);
      if (!any_rank(op_s * full_ops > left_s())) {
        if (member) sr = run_sweep(sub, full);
      } else {
        iters = 1;
        ++res.cut.iters_cut_groups;
      }
    } else if (member) {
      sr = run_sweep(sub, so);
    }
    if (member && sub.rank() == 0 && !sr.blocks.empty() && !sr.blocks.front().points.empty()) {
      const model::SweepPoint& p = sr.blocks.front().points.front();
      ScalingGroup grp;
      grp.hosts = res.intra_node_only ? 1 : g;
      grp.nranks = sub.size();
      if (res.intra_node_only) {
        grp.host_names = {comm.hosts().front()};
      } else {
        grp.host_names.assign(comm.hosts().begin(), comm.hosts().begin() + g);
      }
      grp.size_bytes = p.size_bytes;
      grp.time_us = p.out_of_place.time_us;
      grp.algbw_gbps = p.out_of_place.algbw_gbps;
      grp.busbw_gbps = p.out_of_place.busbw_gbps;
      grp.intra_node_only = res.intra_node_only || grp.hosts == 1;
      grp.iters = iters;
      res.groups.push_back(std::move(grp));
    }
    comm.barrier();
  }
  return res;
}

}  // namespace fabcheck::probes
