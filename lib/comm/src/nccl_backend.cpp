// The NCCL collective backend: CUDA device buffers, calls enqueued on one non-blocking stream. Built only
// when NCCL and the CUDA runtime were found (FABCHECK_HAVE_NCCL); nccl_stub.cpp replaces it otherwise.
//
// Errors: every CUDA and NCCL call is checked; the message names host, rank, GPU and call
// (nccl::format_call_error). On any failure the communicator is aborted (ncclCommAbort) before the
// RuntimeFailure propagates, so main() ends the job with exit 3. Waiting is a cudaStreamQuery loop that polls
// ncclCommGetAsyncError (as nccl-tests does): a network error or a lost peer surfaces as an error instead of
// a silent hang, and a wait that never ends stays inside the current phase, where the watchdog sees it.
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "backend_factories.hpp"
#include "fabcheck/comm/agree.hpp"
#include "fabcheck/comm/backend.hpp"
#include "fabcheck/comm/nccl_support.hpp"
#include "fabcheck/core/element.hpp"
#include "fabcheck/core/error.hpp"

namespace fabcheck::comm {

// The pure tables of nccl_support.hpp must match this nccl.h (they are unit-tested without NCCL).
static_assert(nccl::dtype_code(core::Dtype::kInt8) == ncclInt8);
static_assert(nccl::dtype_code(core::Dtype::kUint8) == ncclUint8);
static_assert(nccl::dtype_code(core::Dtype::kInt32) == ncclInt32);
static_assert(nccl::dtype_code(core::Dtype::kUint32) == ncclUint32);
static_assert(nccl::dtype_code(core::Dtype::kInt64) == ncclInt64);
static_assert(nccl::dtype_code(core::Dtype::kUint64) == ncclUint64);
static_assert(nccl::dtype_code(core::Dtype::kHalf) == ncclFloat16);
static_assert(nccl::dtype_code(core::Dtype::kFloat) == ncclFloat32);
static_assert(nccl::dtype_code(core::Dtype::kDouble) == ncclFloat64);
static_assert(nccl::dtype_code(core::Dtype::kBfloat16) == ncclBfloat16);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
static_assert(nccl::dtype_code(core::Dtype::kF8e4m3) == ncclFloat8e4m3);
static_assert(nccl::dtype_code(core::Dtype::kF8e5m2) == ncclFloat8e5m2);
#endif
static_assert(nccl::redop_code(core::RedOp::kSum) == ncclSum);
static_assert(nccl::redop_code(core::RedOp::kProd) == ncclProd);
static_assert(nccl::redop_code(core::RedOp::kMax) == ncclMax);
static_assert(nccl::redop_code(core::RedOp::kAvg) == ncclAvg);
static_assert(nccl::redop_code(core::RedOp::kMin) == ncclMin);
static_assert(ncclSuccess == 0 && ncclUnhandledCudaError == 1 && ncclSystemError == 2 &&
              ncclInternalError == 3 && ncclInvalidArgument == 4 && ncclInvalidUsage == 5 &&
              ncclRemoteError == 6 && ncclInProgress == 7);

bool nccl_backend_compiled() {
  return true;
}

namespace {

ncclDataType_t to_nccl(core::Dtype d) {
  return static_cast<ncclDataType_t>(nccl::dtype_code(d));
}
ncclRedOp_t to_nccl(core::RedOp o) {
  return static_cast<ncclRedOp_t>(nccl::redop_code(o));
}

std::string cuda_error_text(cudaError_t e) {
  return fmt::format("{} [{}]", cudaGetErrorString(e), cudaGetErrorName(e));
}

std::string nccl_error_text(ncclResult_t r) {
  return fmt::format("{} [{}]", ncclGetErrorString(r), nccl::result_name(static_cast<int>(r)));
}

/// Applies the log-capture plan to this process's environment (before NCCL reads it).
nccl::LogCapture capture_nccl_log(const std::string& host) {
  const char* tmp = std::getenv("TMPDIR");
  nccl::LogCapture cap = nccl::plan_log_capture(
      [](std::string_view name) -> std::optional<std::string> {
        const char* v = std::getenv(std::string(name).c_str());
        return v != nullptr ? std::optional<std::string>(v) : std::nullopt;
      },
      tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", host, static_cast<long long>(::getpid()));
  for (const auto& [name, value] : cap.set_env) ::setenv(name.c_str(), value.c_str(), 1);
  return cap;
}

class NcclBackend final : public CollBackend {
 public:
  NcclBackend(const Communicator& comm, int device, nccl::LogCapture log, const nccl::Tuning& tuning)
      : comm_(comm),
        device_(device),
        rank_(comm.rank()),
        size_(comm.size()),
        log_(std::move(log)),
        tuning_(tuning) {
    check_cuda(cudaSetDevice(device_), "cudaSetDevice");
    // nccl-tests -M: the device's free memory before the communicator exists (common.cu getGPUMemoryInfo)
    const std::optional<std::int64_t> free_before = device_free_bytes();
    // nccl-tests -y: the NULL (legacy default) stream instead of one non-blocking stream of our own
    if (!tuning_.stream_null)
      check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    // Rank 0 creates the unique id; a failure there must not leave the others waiting in the broadcast.
    ncclUniqueId id{};
    std::int64_t id_ok = 1;
    ncclResult_t id_result = ncclSuccess;
    if (rank_ == 0) {
      id_result = ncclGetUniqueId(&id);
      id_ok = id_result == ncclSuccess ? 1 : 0;
    }
    comm_.bcast(&id_ok, sizeof id_ok, 0);
    if (id_ok == 0) {
      if (rank_ == 0) check_nccl(id_result, "ncclGetUniqueId");
      throw RuntimeFailure(nccl::format_call_error(comm_.host(), rank_, device_, "ncclGetUniqueId",
                                                   "failed on rank 0 (see rank 0's message)"));
    }
    comm_.bcast(&id, sizeof id, 0);
    init_communicator(id);
    if (const auto free_after = device_free_bytes(); free_before && free_after)
      init_bytes_ = *free_before - *free_after;
  }

  ~NcclBackend() override {
    // Errors here cannot propagate (destructor); they are reported on stderr, one line each.
    drop_captured();
    while (!allocations_.empty()) free(allocations_.begin()->first);
    if (stream_ != nullptr) warn_cuda(cudaStreamDestroy(stream_), "cudaStreamDestroy");
    if (nccl_ != nullptr) {
      const ncclResult_t r = ncclCommDestroy(nccl_);
      if (r != ncclSuccess) {
        std::fprintf(
            stderr, "fabcheck: warning: %s\n",
            nccl::format_call_error(comm_.host(), rank_, device_, "ncclCommDestroy", nccl_error_text(r))
                .c_str());
      }
    }
  }
  NcclBackend(const NcclBackend&) = delete;
  NcclBackend& operator=(const NcclBackend&) = delete;

  std::string_view name() const override { return "nccl"; }
  std::vector<AvgArith> avg_ariths() const override {
    if (tuning_.local_register == 2)  // symmetric windows: NCCL may pick a symmetric kernel for a call
      return {AvgArith::kPremultiplied, AvgArith::kScaledSum, AvgArith::kScaledSumInType};
    return {AvgArith::kPremultiplied};
  }
  int device_index() const override { return device_; }
  std::string device_label() const override {
    cudaDeviceProp prop{};
    const cudaError_t e = cudaGetDeviceProperties(&prop, device_);
    if (e != cudaSuccess) return fmt::format("[unknown] CUDA device ({})", cuda_error_text(e));
    return fmt::format("[{:04x}:{:02x}:{:02x}] {}", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID,
                       prop.name);
  }
  std::string library_version() const override {
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess) return "NCCL unknown";
    // 2.9+ codes are major*10000 + minor*100 + patch; older ones major*1000 + minor*100 + patch.
    if (v >= 10000) return fmt::format("NCCL {}.{}.{}", v / 10000, (v % 10000) / 100, v % 100);
    return fmt::format("NCCL {}.{}.{}", v / 1000, (v % 1000) / 100, v % 100);
  }
  const nccl::LogCapture* library_log() const override { return &log_; }
  std::unique_ptr<DeviceCompute> make_device_compute() override {
    return detail::make_cuda_compute({comm_.host(), rank_, device_});
  }

  /// Buffers as nccl-tests' AllocateBuffs (common.cu): ncclMemAlloc from NCCL 2.19 on (header and library),
  /// cudaMalloc before. -R 1 registers each with ncclCommRegister; -R 2 registers a symmetric window
  /// (ncclCommWindowRegister, NCCL_WIN_COLL_SYMMETRIC: collective, so every rank allocates the same buffers
  /// in the same order, as the sweep does).
  void* alloc(std::size_t bytes) override {
    void* p = nullptr;
    const std::size_t n = bytes == 0 ? 1 : bytes;
    Allocation a;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0)
    a.nccl_mem = runtime_version_ >= NCCL_VERSION(2, 19, 0);
    if (a.nccl_mem) check_nccl(ncclMemAlloc(&p, n), fmt::format("ncclMemAlloc({} B)", n).c_str());
#endif
    if (!a.nccl_mem) check_cuda(cudaMalloc(&p, n), fmt::format("cudaMalloc({} B)", n).c_str());
    allocations_[p] = a;
    check_cuda(cudaMemsetAsync(p, 0, n, stream_), "cudaMemsetAsync");
    synchronize();
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0)
    if (tuning_.local_register == 1) {
      check_nccl(ncclCommRegister(nccl_, p, n, &allocations_[p].handle), "ncclCommRegister");
      allocations_[p].registered = 1;
    }
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    if (tuning_.local_register == 2) {
      ncclWindow_t win = nullptr;
      check_nccl(ncclCommWindowRegister(nccl_, p, n, &win, NCCL_WIN_COLL_SYMMETRIC),
                 "ncclCommWindowRegister");
      allocations_[p].handle = win;
      allocations_[p].registered = 2;
    }
#endif
    return p;
  }
  void free(void* p) override {
    if (p == nullptr) return;
    const auto it = allocations_.find(p);
    const Allocation a = it != allocations_.end() ? it->second : Allocation{};
    if (it != allocations_.end()) allocations_.erase(it);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0)
    if (a.registered == 1 && nccl_ != nullptr)
      warn_nccl(ncclCommDeregister(nccl_, a.handle), "ncclCommDeregister");
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    if (a.registered == 2 && nccl_ != nullptr) {
      warn_nccl(ncclCommWindowDeregister(nccl_, static_cast<ncclWindow_t>(a.handle)),
                "ncclCommWindowDeregister");
    }
#endif
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0)
    if (a.nccl_mem) {
      warn_nccl(ncclMemFree(p), "ncclMemFree");
      return;
    }
#endif
    warn_cuda(cudaFree(p), "cudaFree");
  }

  void run(const CollCall& c) override {
    if (core::has_redop(c.coll) && c.op == core::RedOp::kMulSum) return run_mulsum(c);
    run_with(c, to_nccl(c.op));
  }

  /// nccl-tests -o mulsum (common.cu startColl): a PreMulSum op made for this call with this rank's scalar
  /// (nccl::premul_scalar, host-immediate), the call enqueued, the op destroyed (NCCL keeps it alive until
  /// the enqueued call no longer needs it).
  void run_mulsum(const CollCall& c) {
    ncclRedOp_t op{};
    // Host-immediate scalar of the call's type (nccl-tests passes the address of a union of every type): the
    // value in the call's element type, rounded as that type rounds (core::Half ... core::Fp8E5M2: the bits
    // __float2half, __float2bfloat16 and __nv_cvt_float_to_fp8 give), copied as its bytes.
    alignas(8) unsigned char scalar[8] = {};
    const int k = nccl::premul_scalar(rank_);
    core::visit_dtype(c.dtype, [&](auto tag) {
      const auto v = static_cast<decltype(tag)>(k);
      static_assert(sizeof v <= sizeof scalar);
      std::memcpy(scalar, &v, sizeof v);
    });
    check_nccl(ncclRedOpCreatePreMulSum(&op, scalar, to_nccl(c.dtype), ncclScalarHostImmediate, nccl_),
               "ncclRedOpCreatePreMulSum");
    run_with(c, op);
    check_nccl(ncclRedOpDestroy(op, nccl_), "ncclRedOpDestroy");
  }

  void run_with(const CollCall& c, ncclRedOp_t redop) {
    const std::size_t cnt = c.geometry.count;
    const std::size_t chunk = cnt * core::dtype_size(c.dtype);
    const ncclDataType_t dt = to_nccl(c.dtype);
    char* recv = static_cast<char*>(c.recv);
    const char* send = c.in_place ? recv : static_cast<const char*>(c.send);
    const auto at = [chunk](auto* base, int i) { return base + static_cast<std::size_t>(i) * chunk; };
    switch (c.coll) {
      case core::Collective::kAllReduce:
        check_nccl(ncclAllReduce(send, recv, cnt, dt, redop, nccl_, stream_), "ncclAllReduce");
        break;
      case core::Collective::kAllGather:
        check_nccl(ncclAllGather(c.in_place ? at(recv, rank_) : send, recv, cnt, dt, nccl_, stream_),
                   "ncclAllGather");
        break;
      case core::Collective::kReduceScatter:
        check_nccl(
            ncclReduceScatter(send, c.in_place ? at(recv, rank_) : recv, cnt, dt, redop, nccl_, stream_),
            "ncclReduceScatter");
        break;
      case core::Collective::kBroadcast:
        check_nccl(ncclBroadcast(send, recv, cnt, dt, c.root, nccl_, stream_), "ncclBroadcast");
        break;
      case core::Collective::kReduce:
        check_nccl(ncclReduce(send, recv, cnt, dt, redop, c.root, nccl_, stream_), "ncclReduce");
        break;
      case core::Collective::kAllToAll:
        grouped([&] {
          for (int p = 0; p < size_; ++p) {
            send_to(at(send, p), cnt, dt, p);
            recv_from(at(recv, p), cnt, dt, p);
          }
        });
        break;
      case core::Collective::kSendRecv:
        grouped([&] {
          send_to(send, cnt, dt, (rank_ + 1) % size_);
          recv_from(recv, cnt, dt, (rank_ - 1 + size_) % size_);
        });
        break;
      case core::Collective::kGather:
        grouped([&] {
          send_to(c.in_place ? at(recv, rank_) : send, cnt, dt, c.root);
          if (rank_ == c.root) {
            for (int p = 0; p < size_; ++p) recv_from(at(recv, p), cnt, dt, p);
          }
        });
        break;
      case core::Collective::kScatter:
        grouped([&] {
          if (rank_ == c.root) {
            for (int p = 0; p < size_; ++p) send_to(at(send, p), cnt, dt, p);
          }
          recv_from(c.in_place ? at(recv, rank_) : recv, cnt, dt, c.root);
        });
        break;
    }
  }

  // body's NCCL calls in one group (the point-to-point forms of all-to-all, sendrecv, gather and scatter;
  // run_group's aggregate).
  template <class Body>
  void grouped(Body&& body) {
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    body();
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  }
  void send_to(const void* buf, std::size_t cnt, ncclDataType_t dt, int peer) {
    check_nccl(ncclSend(buf, cnt, dt, peer, nccl_, stream_), "ncclSend");
  }
  void recv_from(void* buf, std::size_t cnt, ncclDataType_t dt, int peer) {
    check_nccl(ncclRecv(buf, cnt, dt, peer, nccl_, stream_), "ncclRecv");
  }

  void run_group(std::span<const CollCall> calls) override {
    if (calls.size() == 1) return run(calls[0]);
    grouped([&] {  // nccl-tests -m: the aggregated ops in one group
      for (const CollCall& c : calls) run(c);
    });
  }

  // nccl-tests -G (common.cu BenchTime): capture in thread-local mode (NCCL may cudaMalloc while capturing
  // a first connection), instantiate, launch N times on the stream.
  void begin_capture() override {
    drop_captured();
    check_cuda(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  }
  void end_capture() override {
    check_cuda(cudaStreamEndCapture(stream_, &graph_), "cudaStreamEndCapture");
#if CUDART_VERSION >= 12000
    check_cuda(cudaGraphInstantiate(&graph_exec_, graph_, 0), "cudaGraphInstantiate");
#else
    check_cuda(cudaGraphInstantiate(&graph_exec_, graph_, nullptr, nullptr, 0), "cudaGraphInstantiate");
#endif
  }
  void launch_captured() override {
    check_cuda(cudaGraphLaunch(graph_exec_, stream_), "cudaGraphLaunch");
  }
  void drop_captured() override {
    if (graph_exec_ != nullptr) warn_cuda(cudaGraphExecDestroy(graph_exec_), "cudaGraphExecDestroy");
    if (graph_ != nullptr) warn_cuda(cudaGraphDestroy(graph_), "cudaGraphDestroy");
    graph_exec_ = nullptr;
    graph_ = nullptr;
  }

  std::optional<std::int64_t> device_free_bytes() const override {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
      (void)cudaGetLastError();
      return std::nullopt;
    }
    return static_cast<std::int64_t>(free_bytes);
  }
  std::optional<std::int64_t> device_total_bytes() const override {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, device_) != cudaSuccess) {
      (void)cudaGetLastError();
      return std::nullopt;
    }
    return static_cast<std::int64_t>(prop.totalGlobalMem);
  }
  std::optional<std::int64_t> init_memory_bytes() const override {
    return init_bytes_;
  }

  // nccl-tests' testStreamSynchronize: query the stream, and between queries ask NCCL for an asynchronous
  // error (a failed connection, a remote rank gone), which a blocking cudaStreamSynchronize would wait out.
  void synchronize() override {
    while (true) {
      const cudaError_t q = cudaStreamQuery(stream_);
      if (q == cudaSuccess) return;
      if (q != cudaErrorNotReady) check_cuda(q, "cudaStreamQuery");
      if (nccl_ != nullptr) {
        ncclResult_t async = ncclSuccess;
        check_nccl(ncclCommGetAsyncError(nccl_, &async), "ncclCommGetAsyncError");
        if (async == ncclRemoteError) wait_for_origin();
        if (async != ncclSuccess && async != ncclInProgress)
          check_nccl(async, "NCCL operation (async error)");
      }
    }
  }
  void copy_to_host(void* host, const void* src, std::size_t bytes) override {
    if (bytes == 0) return;
    check_cuda(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync(D2H)");
    synchronize();
  }
  void copy_from_host(void* dst, const void* host, std::size_t bytes) override {
    if (bytes == 0) return;
    check_cuda(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync(H2D)");
    synchronize();
  }

 private:
  /// nccl-tests' initComms (common.cu): ncclCommInitRankConfig from NCCL 2.14 on, with -x's CTAPolicy (2.27)
  /// and nvlinkCentricSched = 1 (2.28) as nccl-tests sets them; ncclCommInitRank before 2.14.
  void init_communicator(const ncclUniqueId& id) {
    (void)ncclGetVersion(&runtime_version_);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 14, 0)
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    if (tuning_.cta_policy >= 0) config.CTAPolicy = tuning_.cta_policy;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
    config.nvlinkCentricSched = 1;
#endif
#endif
    check_nccl(ncclCommInitRankConfig(&nccl_, size_, id, rank_, &config), "ncclCommInitRankConfig");
#else
    check_nccl(ncclCommInitRank(&nccl_, size_, id, rank_), "ncclCommInitRank");
#endif
  }

  /// ncclRemoteError is a consequence: "remote process exited or there was a network error" (nccl.h,
  /// ncclGetErrorString). When a peer rank failed first it reports its own error and ends the job
  /// (MPI_Abort); waiting kRemoteGraceS before reporting ours keeps the job at one error line, the origin's.
  /// If the job is still running after it (a peer that died without a word, a network fault), ours follows.
  void wait_for_origin() const {
    constexpr auto kRemoteGraceS = std::chrono::seconds(2);
    std::this_thread::sleep_for(kRemoteGraceS);
  }

  /// Aborts the communicator (no further NCCL work can hang on it) and throws the one-line message.
  [[noreturn]] void fail(const char* call, const std::string& error, const std::string& detail = {}) {
    // The -G graphs go first: NCCL's abort waits until no CUDA graph holds a call of the communicator
    // ("keep polling until all graphs referencing us die", src/init.cc commDestroySync, v2.28.9), and a graph
    // that is still running is freed when it completes (cudaGraphExecDestroy), which the abort lets it do.
    drop_captured();
    if (nccl_ != nullptr) {
      (void)ncclCommAbort(nccl_);  // best effort: we are already failing; its own error cannot help
      nccl_ = nullptr;
    }
    std::string d = detail;
    if (!log_.path.empty()) d += (d.empty() ? "" : "; ") + fmt::format("NCCL log: {}", log_.path);
    throw RuntimeFailure(nccl::format_call_error(comm_.host(), rank_, device_, call, error, d));
  }
  void check_cuda(cudaError_t e, const char* call) {
    if (e != cudaSuccess) fail(call, cuda_error_text(e));
  }
  void check_nccl(ncclResult_t r, const char* call) {
    if (r == ncclSuccess) return;
    const char* last = ncclGetLastError(nccl_);
    fail(call, nccl_error_text(r), last != nullptr ? std::string(last) : std::string());
  }
  void warn_nccl(ncclResult_t r, const char* call) const {
    if (r == ncclSuccess) return;
    std::fprintf(stderr, "fabcheck: warning: %s\n",
                 nccl::format_call_error(comm_.host(), rank_, device_, call, nccl_error_text(r)).c_str());
  }
  void warn_cuda(cudaError_t e, const char* call) const {
    if (e == cudaSuccess) return;
    std::fprintf(stderr, "fabcheck: warning: %s\n",
                 nccl::format_call_error(comm_.host(), rank_, device_, call, cuda_error_text(e)).c_str());
  }

  Communicator comm_;
  int device_;
  int rank_;
  int size_;
  nccl::LogCapture log_;
  nccl::Tuning tuning_;
  ncclComm_t nccl_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t graph_exec_ = nullptr;
  /// One buffer of alloc(): how it was allocated and registered.
  struct Allocation {
    bool nccl_mem = false;   // ncclMemAlloc (else cudaMalloc)
    int registered = 0;      // 0 none, 1 ncclCommRegister, 2 ncclCommWindowRegister
    void* handle = nullptr;  // the registration handle or ncclWindow_t
  };
  std::map<void*, Allocation> allocations_;
  int runtime_version_ = 0;  // ncclGetVersion
  std::optional<std::int64_t> init_bytes_;
};

/// This rank's GPU count, or 0 with the reason it has no usable one.
int local_devices(const Communicator& comm, std::string& reason) {
  int ndev = 0;
  const cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess) {
    reason = "cudaGetDeviceCount: " + cuda_error_text(e);
    ndev = 0;
    (void)cudaGetLastError();  // clear the error of a machine without a (recent enough) driver
  } else if (ndev < 1) {
    reason = "cudaGetDeviceCount: 0 devices (CUDA_VISIBLE_DEVICES hides them all?)";
  } else {
    const auto local = comm.ranks_by_host()[static_cast<std::size_t>(comm.host_index(comm.rank()))].size();
    if (local > static_cast<std::size_t>(ndev)) {
      reason = fmt::format("{} ranks on this host but {} visible GPU{} (one rank per GPU)", local, ndev,
                           ndev == 1 ? "" : "s");
    }
  }
  return reason.empty() ? ndev : 0;
}

/// The agreed reason (same text on every rank), "" when every rank has a usable GPU.
std::string agreed_reason(const Communicator& comm, const std::string& reason) {
  const std::int64_t bad = reason.empty() ? 0 : 1;
  const std::int64_t failing = comm.allreduce(bad, ScalarOp::kSum);
  std::string msg;
  if (failing > 0) {
    // rank 0 composes one message from the first failing rank; every rank throws the same text
    const auto reasons = comm.gather(reason, 0);
    if (comm.rank() == 0) {
      for (std::size_t r = 0; r < reasons.size(); ++r) {
        if (reasons[r].empty()) continue;
        msg = nccl::no_device_message(static_cast<int>(failing), comm.size(), static_cast<int>(r),
                                      comm.hosts_of_ranks()[r], reasons[r]);
        break;
      }
    }
    comm.bcast(msg, 0);
  }
  return msg;
}

}  // namespace

std::string nccl_unusable_reason(const Communicator& comm) {
  std::string reason;
  (void)local_devices(comm, reason);
  return agreed_reason(comm, reason);
}

namespace detail {

std::unique_ptr<CollBackend> make_nccl_backend(const Communicator& comm, const nccl::Tuning& tuning) {
  // 1. Every rank finds its GPU; all agree before anyone touches NCCL (a rank with a GPU would otherwise wait
  //    forever in ncclCommInitRank for one without).
  std::string reason;
  const int ndev = local_devices(comm, reason);
  if (const std::string msg = agreed_reason(comm, reason); !msg.empty()) throw UsageError(msg);
  // 1b. What -R, -x, -G and mulsum need of this NCCL and CUDA runtime (every rank, the same refusal on all).
  agree_on_all(comm, [&] {
    int nccl_version = 0, cudart_version = 0;
    (void)ncclGetVersion(&nccl_version);
    (void)cudaRuntimeGetVersion(&cudart_version);
    // what this build can use: the older of the nccl.h it was compiled with and the library it runs with
    nccl_version = std::min(nccl_version, static_cast<int>(NCCL_VERSION_CODE));
    if (const std::string why = nccl::tuning_refusal(tuning, nccl_version, cudart_version); !why.empty())
      throw UsageError(why);
    if (tuning.fp8) {  // nccl-tests' minCudaArch: 100·major + 10·minor of each rank's GPU
      const int device = comm.local_rank() % ndev;
      int major = 0, minor = 0;
      (void)cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
      (void)cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
      if (const std::string why =
              nccl::fp8_arch_refusal(tuning, 100 * major + 10 * minor, comm.rank(), comm.host());
          !why.empty())
        throw UsageError(why);
    }
  });
  // 2. NCCL's log goes to a per-rank file before NCCL reads its environment (first NCCL call: the unique id).
  nccl::LogCapture log = capture_nccl_log(comm.host());
  return std::make_unique<NcclBackend>(comm, comm.local_rank() % ndev, std::move(log), tuning);
}

}  // namespace detail
}  // namespace fabcheck::comm
