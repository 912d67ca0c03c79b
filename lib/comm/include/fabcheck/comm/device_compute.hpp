#pragma once
/// @file A compute kernel on the backend's device, beside its collectives (the overlap probe's NCCL
/// backend). No CUDA or NCCL types appear here; the CUDA implementation (cuda_compute.cpp) is built only with
/// the NCCL backend.
#include <cstdint>
#include <string>

namespace fabcheck::comm {

/// An FMA spin kernel on the backend's GPU, launched on a stream of its own (not the collectives' stream), so
/// that it runs concurrently with a collective started on the backend. Not thread-safe.
///
/// The kernel: one wave of blocks (blocks_per_sm() per SM, threads_per_block() threads each, every SM busy
/// as a training step's GEMMs keep it), every thread running `units` × 16 dependent fused multiply-adds on 4
/// independent chains in registers: FLOP-bound, no memory traffic, so its slowdown beside a collective is
/// the SM time (and issue slots) the collective's kernels take from it.
class DeviceCompute {
 public:
  virtual ~DeviceCompute() = default;
  /// Enqueues one kernel of `units` work units on the compute stream, between two timing events.
  /// @throws RuntimeFailure (nccl::format_call_error) on a CUDA error.
  virtual void launch(std::uint64_t units) = 0;
  /// Waits for the compute stream. @throws RuntimeFailure on a CUDA error.
  virtual void synchronize() = 0;
  /// The last launch's kernel time on the device, µs (cudaEventElapsedTime between the events around it);
  /// valid after synchronize().
  virtual double last_kernel_us() = 0;
  /// What the kernel does and on what, one sentence for the report.
  virtual std::string description() const = 0;
};

}  // namespace fabcheck::comm
