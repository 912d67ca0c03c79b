// The NCCL collective backend: CUDA device buffers, calls enqueued on one non-blocking stream. Built only
// when NCCL and the CUDA runtime were found (FABCHECK_HAVE_NCCL); nccl_stub.cpp replaces it otherwise.
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>

#include <cstdint>

#include "backend_factories.hpp"
#include "fabcheck/comm/backend.hpp"
#include "fabcheck/core/error.hpp"

namespace fabcheck::comm {

bool nccl_backend_compiled() {
  return true;
}

namespace {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw RuntimeFailure(fmt::format("{} failed: {}", what, cudaGetErrorString(e)));
}

void check_nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) {
    const char* last = ncclGetLastError(nullptr);
    throw RuntimeFailure(fmt::format("{} failed: {}{}{}", what, ncclGetErrorString(r),
                                     (last != nullptr && *last != '\0') ? " / " : "",
                                     last != nullptr ? last : ""));
  }
}

ncclDataType_t to_nccl(core::Dtype d) {
  switch (d) {
    case core::Dtype::kInt8:
      return ncclInt8;
    case core::Dtype::kUint8:
      return ncclUint8;
    case core::Dtype::kInt32:
      return ncclInt32;
    case core::Dtype::kUint32:
      return ncclUint32;
    case core::Dtype::kInt64:
      return ncclInt64;
    case core::Dtype::kUint64:
      return ncclUint64;
    case core::Dtype::kFloat:
      return ncclFloat32;
    case core::Dtype::kDouble:
      return ncclFloat64;
  }
  return ncclInt8;
}

ncclRedOp_t to_nccl(core::RedOp o) {
  switch (o) {
    case core::RedOp::kSum:
      return ncclSum;
    case core::RedOp::kProd:
      return ncclProd;
    case core::RedOp::kMin:
      return ncclMin;
    case core::RedOp::kMax:
      return ncclMax;
  }
  return ncclSum;
}

class NcclBackend final : public CollBackend {
 public:
  NcclBackend(const Communicator& comm, int device)
      : comm_(comm), device_(device), rank_(comm.rank()), size_(comm.size()) {
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    ncclUniqueId id{};
    if (rank_ == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    comm_.bcast(&id, sizeof id, 0);
    check_nccl(ncclCommInitRank(&nccl_, size_, id, rank_), "ncclCommInitRank");
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  }

  ~NcclBackend() override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    if (nccl_ != nullptr) ncclCommDestroy(nccl_);
  }
  NcclBackend(const NcclBackend&) = delete;
  NcclBackend& operator=(const NcclBackend&) = delete;

  std::string_view name() const override { return "nccl"; }
  int device_index() const override { return device_; }
  std::string device_label() const override {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, device_) != cudaSuccess) return "[unknown] CUDA device";
    return fmt::format("[{:04x}:{:02x}:{:02x}] {}", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID,
                       prop.name);
  }
  std::string library_version() const override {
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess) return "NCCL unknown";
    return fmt::format("NCCL {}.{}.{}", v / 10000, (v % 10000) / 100, v % 100);
  }

  void* alloc(std::size_t bytes) override {
    void* p = nullptr;
    check_cuda(cudaMalloc(&p, bytes == 0 ? 1 : bytes), "cudaMalloc");
    check_cuda(cudaMemset(p, 0, bytes == 0 ? 1 : bytes), "cudaMemset");
    return p;
  }
  void free(void* p) override {
    if (p != nullptr) cudaFree(p);
  }

  void run(const CollCall& c) override {
    const std::size_t cnt = c.geometry.count;
    const std::size_t chunk = cnt * core::dtype_size(c.dtype);
    const ncclDataType_t dt = to_nccl(c.dtype);
    char* recv = static_cast<char*>(c.recv);
    const char* send = c.in_place ? recv : static_cast<const char*>(c.send);
    const auto at = [chunk](const char* base, int i) { return base + static_cast<std::size_t>(i) * chunk; };
    switch (c.coll) {
      case core::Collective::kAllReduce:
        check_nccl(ncclAllReduce(send, recv, cnt, dt, to_nccl(c.op), nccl_, stream_), "ncclAllReduce");
        break;
      case core::Collective::kAllGather:
        check_nccl(ncclAllGather(c.in_place ? at(recv, rank_) : send, recv, cnt, dt, nccl_, stream_),
                   "ncclAllGather");
        break;
      case core::Collective::kReduceScatter:
        check_nccl(ncclReduceScatter(send, c.in_place ? recv + static_cast<std::size_t>(rank_) * chunk : recv,
                                     cnt, dt, to_nccl(c.op), nccl_, stream_),
                   "ncclReduceScatter");
        break;
      case core::Collective::kBroadcast:
        check_nccl(ncclBroadcast(send, recv, cnt, dt, c.root, nccl_, stream_), "ncclBroadcast");
        break;
      case core::Collective::kReduce:
        check_nccl(ncclReduce(send, recv, cnt, dt, to_nccl(c.op), c.root, nccl_, stream_), "ncclReduce");
        break;
      case core::Collective::kAllToAll:
        check_nccl(ncclGroupStart(), "ncclGroupStart");
        for (int p = 0; p < size_; ++p) {
          check_nccl(ncclSend(at(send, p), cnt, dt, p, nccl_, stream_), "ncclSend");
          check_nccl(ncclRecv(recv + static_cast<std::size_t>(p) * chunk, cnt, dt, p, nccl_, stream_),
                     "ncclRecv");
        }
        check_nccl(ncclGroupEnd(), "ncclGroupEnd");
        break;
      case core::Collective::kSendRecv:
        check_nccl(ncclGroupStart(), "ncclGroupStart");
        check_nccl(ncclSend(send, cnt, dt, (rank_ + 1) % size_, nccl_, stream_), "ncclSend");
        check_nccl(ncclRecv(recv, cnt, dt, (rank_ - 1 + size_) % size_, nccl_, stream_), "ncclRecv");
        check_nccl(ncclGroupEnd(), "ncclGroupEnd");
        break;
      case core::Collective::kGather:
        check_nccl(ncclGroupStart(), "ncclGroupStart");
        check_nccl(ncclSend(c.in_place ? at(recv, rank_) : send, cnt, dt, c.root, nccl_, stream_),
                   "ncclSend");
        if (rank_ == c.root) {
          for (int p = 0; p < size_; ++p) {
            check_nccl(ncclRecv(recv + static_cast<std::size_t>(p) * chunk, cnt, dt, p, nccl_, stream_),
                       "ncclRecv");
          }
        }
        check_nccl(ncclGroupEnd(), "ncclGroupEnd");
        break;
      case core::Collective::kScatter:
        check_nccl(ncclGroupStart(), "ncclGroupStart");
        if (rank_ == c.root) {
          for (int p = 0; p < size_; ++p)
            check_nccl(ncclSend(at(send, p), cnt, dt, p, nccl_, stream_), "ncclSend");
        }
        check_nccl(ncclRecv(c.in_place ? recv + static_cast<std::size_t>(rank_) * chunk : recv, cnt, dt,
                            c.root, nccl_, stream_),
                   "ncclRecv");
        check_nccl(ncclGroupEnd(), "ncclGroupEnd");
        break;
    }
  }

  void synchronize() override { check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }
  void copy_to_host(void* host, const void* src, std::size_t bytes) override {
    if (bytes > 0) check_cuda(cudaMemcpy(host, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(D2H)");
  }
  void copy_from_host(void* dst, const void* host, std::size_t bytes) override {
    if (bytes > 0) check_cuda(cudaMemcpy(dst, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy(H2D)");
  }

 private:
  Communicator comm_;
  int device_;
  int rank_;
  int size_;
  ncclComm_t nccl_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

namespace detail {

std::unique_ptr<CollBackend> make_nccl_backend(const Communicator& comm) {
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess) {
    ndev = 0;
    (void)cudaGetLastError();  // clear the sticky error of a machine without a driver
  }
  // Every rank must agree, or the ones with a GPU would wait forever in ncclCommInitRank.
  const std::int64_t min_dev = comm.allreduce(static_cast<std::int64_t>(ndev), ScalarOp::kMin);
  if (min_dev < 1) {
    throw UsageError(
        "--backend nccl: no CUDA device on at least one rank (run on GPU nodes, or use --backend mpi)");
  }
  return std::make_unique<NcclBackend>(comm, comm.local_rank() % ndev);
}

}  // namespace detail
}  // namespace fabcheck::comm
