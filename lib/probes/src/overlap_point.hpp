#pragma once
// Private to lib/probes: one (collective, size) of the overlap probe, for the overlap and step probes.
#include <cstdint>

#include "fabcheck/comm/backend.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/model/overlap.hpp"

namespace fabcheck::probes::detail {

/// Measures one point of the overlap probe (probes/overlap.hpp) on `be`: warmup, the kernel sized to the
/// collective (calibrated `us_per_unit`, corrected by one full-length trial), then o.iters interleaved
/// iterations of every variant. `gpu` non-null (nccl backend): the kernel is that GPU kernel on its own
/// stream (us_per_unit from probes::calibrate_us_per_unit(gpu)), no polled variant, t_compute_device filled.
/// Collective over `comm`.
model::OverlapPoint measure_overlap_point(const comm::Communicator& comm, comm::CollBackend& be,
                                          core::Collective coll, std::uint64_t size_bytes,
                                          const model::OverlapOptions& o, double us_per_unit,
                                          comm::DeviceCompute* gpu = nullptr);

}  // namespace fabcheck::probes::detail
