#pragma once
// Private to lib/comm: factories of the optional backends. nccl_backend.cpp defines them when NCCL was found,
// nccl_stub.cpp otherwise (lib/comm/CMakeLists.txt builds exactly one of the two).
#include <memory>
#include <string>

#include "fabcheck/comm/backend.hpp"
#include "fabcheck/comm/device_compute.hpp"

namespace fabcheck::comm::detail {

/// The NCCL backend on `comm` (collective). Throws UsageError when no rank can use it.
/// `tuning`: nccl-tests' NCCL-only flags, checked against the NCCL/CUDA versions on every rank first.
std::unique_ptr<CollBackend> make_nccl_backend(const Communicator& comm, const nccl::Tuning& tuning = {});

/// Where a CUDA error of the compute kernel happened (nccl::format_call_error's host, rank, GPU).
struct ComputeErrorContext {
  std::string host;
  int rank = 0;
  int device = 0;
};

/// The overlap probe's GPU kernel on `ctx.device` (cuda_compute.cpp, built with the NCCL backend only).
/// @throws RuntimeFailure on a CUDA error; UsageError when the CUDA runtime is older than 12.0.
std::unique_ptr<DeviceCompute> make_cuda_compute(const ComputeErrorContext& ctx);

}  // namespace fabcheck::comm::detail
