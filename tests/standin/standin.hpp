// Internal interface of the CPU stand-in of the CUDA runtime (libcudart.so.13 under tests/standin), used by
// the NCCL stand-in (libnccl.so.2) beside it. Test infrastructure only: never installed, never linked by
// default. Neither library is a product: they let the same fabcheck binary that runs on GPUs run its NCCL
// path here.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace standin {

/// Work a stream runs in order, on the stream's own thread (CUDA's asynchrony: the host goes on meanwhile).
using Task = std::function<void()>;

/// Enqueues `task` on `stream` (nullptr: the legacy default stream), or records it into the stream's graph
/// while the stream is capturing. cudaErrorInvalidResourceHandle for a stream that does not exist.
cudaError_t enqueue(cudaStream_t stream, Task task);

/// Whether `stream` is capturing: what is enqueued on it goes into a graph (cudaStreamBeginCapture).
bool capturing(cudaStream_t stream);

/// The stand-in's host view of device memory [dev, dev + bytes), or nullptr when that range is not inside
/// one allocation. Device pointers themselves are mapped PROT_NONE: the host cannot read them, as on a GPU.
void* host_view(const void* dev, std::size_t bytes);

/// Allocates / frees device memory on the current device (cudaMalloc / cudaFree; ncclMemAlloc uses them).
cudaError_t device_alloc(void** ptr, std::size_t bytes);
cudaError_t device_free(void* ptr);

/// The calling thread's current device (cudaSetDevice), and its PCI bus id as NCCL prints it (busId).
int current_device();
long bus_id(int device);

/// This process's rank in the job as the launcher gives it (OMPI_COMM_WORLD_RANK, PMIX_RANK, SLURM_PROCID,
/// PMI_RANK), -1 when none is set.
int launcher_rank();

/// A fault injected by STANDIN_FAULT="<kind>@<rank>[:<op>]" (README of tests/standin): kinds nodevice, init,
/// remote, system, hang, corrupt; `op` counts this rank's NCCL operations from 1.
struct Fault {
  std::string kind;
  int rank = -1;
  long op = 0;
};
std::optional<Fault> fault_for(int rank);

}  // namespace standin
