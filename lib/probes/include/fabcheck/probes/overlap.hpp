#pragma once
/// @file Compute/communication overlap probe (issue 23): per (collective, size) the nonblocking collective
/// alone (t_comm), a calibrated CPU compute kernel alone (t_compute), and both (post, compute, wait:
/// t_both) without any MPI call during compute and, with `poll_us` > 0, with MPI_Test every poll_us µs of
/// compute; overlap = core::overlap_fraction (OSU's osu_iallreduce definition).
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/model/options_overlap.hpp"
#include "fabcheck/model/overlap.hpp"

namespace fabcheck::probes {
using OverlapOptions = model::OverlapOptions;
using OverlapResult = model::OverlapResult;

/// Checks option ranges that need no communicator (only allreduce, allgather, reducescatter; sizes within
/// the MPI int count limit). @throws UsageError naming the flag.
void validate(const OverlapOptions& opts);

/// Why the probe cannot run on `comm` (fewer than 2 ranks), else nullopt. The same on every rank.
std::optional<std::string> overlap_skip_reason(const comm::Communicator& comm);

/// The compute kernel: `units` × 512 fused multiply-adds on 8 independent chains held in registers.
/// FLOP-bound and touching no memory, so a slowdown of it beside communication is CPU time taken by
/// progress (a progress thread, the kernel's TCP stack), not memory bandwidth. Returns the chains' sum (keep
/// it, or the compiler may drop the work).
double overlap_compute_kernel(std::uint64_t units, double seed);

/// Runs the probe (MPI backend). Collective over `comm`: every rank calls it with the same options.
/// @throws UsageError when overlap_skip_reason; RuntimeFailure on MPI errors.
OverlapResult run_overlap(const comm::Communicator& comm, const OverlapOptions& opts);

}  // namespace fabcheck::probes
