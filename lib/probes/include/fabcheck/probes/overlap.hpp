#pragma once
/// @file Compute/communication overlap probe: per (collective, size) the nonblocking collective
/// alone (t_comm), a calibrated CPU compute kernel alone (t_compute), and both (post, compute, wait:
/// t_both) without any MPI call during compute and, with `poll_us` > 0, with MPI_Test every poll_us µs of
/// compute; overlap = core::overlap_fraction (OSU's osu_iallreduce definition).
#include <string_view>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/comm/device_compute.hpp"
#include "fabcheck/model/options_overlap.hpp"
#include "fabcheck/model/overlap.hpp"

namespace fabcheck::probes {
using OverlapOptions = model::OverlapOptions;
using OverlapResult = model::OverlapResult;

/// Checks option ranges that need no communicator (only allreduce, allgather, reducescatter; sizes within
/// the MPI int count limit; backend mpi or nccl). @throws UsageError naming the flag.
void validate(const OverlapOptions& opts);

/// Why the probe cannot run on `comm` with `backend` (mpi: fewer than 2 ranks; nccl runs on one rank too,
/// NCCL's kernels still compete with compute on the GPU), else nullopt. The same on every rank. Whether
/// nccl can run here at all is decided when its backend is made (run_overlap).
std::optional<std::string> overlap_skip_reason(const comm::Communicator& comm,
                                               std::string_view backend = "mpi");

/// The compute kernel: `units` × 512 fused multiply-adds on 8 independent chains held in registers.
/// FLOP-bound and touching no memory, so a slowdown of it beside communication is CPU time taken by
/// progress (a progress thread, the kernel's TCP stack), not memory bandwidth. Returns the chains' sum (keep
/// it, or the compiler may drop the work).
double overlap_compute_kernel(std::uint64_t units, double seed);

/// µs per unit of a GPU compute kernel (comm::DeviceCompute, the nccl backend), from its cudaEvent times: one
/// untimed launch (the PTX is JIT-compiled on first use), then lengths doubling from 16 units until one takes
/// ≥ 2 ms on the device, then the median of three launches of that length (one preempted launch does not size
/// every kernel). A launch's fixed cost is amortized over ≥ 2 ms.
double calibrate_us_per_unit(comm::DeviceCompute& gpu);

/// Runs the probe on opts.backend: mpi (the CPU kernel, with and without polling) or nccl (the collective
/// on NCCL's stream, comm::DeviceCompute's GPU kernel on another; compute_slowdown from the kernel's device
/// times alone and beside the collective). Collective over `comm`: every rank calls it with the same options.
/// @throws UsageError when overlap_skip_reason, or nccl cannot run here (comm::make_backend's one line:
/// not compiled in, no usable GPU); RuntimeFailure on MPI, CUDA or NCCL errors.
OverlapResult run_overlap(const comm::Communicator& comm, const OverlapOptions& opts);

}  // namespace fabcheck::probes
