// The overlap probe's GPU compute kernel (comm/device_compute.hpp). Built only with the NCCL
// backend (FABCHECK_HAVE_NCCL).
//
// Why hand-written PTX loaded through the CUDA runtime (cudaLibraryLoadData, CUDA ≥ 12.0) and not a .cu file:
// the NCCL backend needs only nccl.h, cuda_runtime.h, libnccl and libcudart (cmake/FindNCCL.cmake); NCCL and
// the CUDA runtime are often installed without nvcc (pip wheels, runtime containers), and enabling CMake's
// CUDA language would make nvcc, a host compiler it accepts and CMAKE_CUDA_ARCHITECTURES build requirements.
// The driver API (cuModuleLoadData) would link libcuda, which a binary must not need (it would not even start
// on a machine without the driver; tests/mpi/nccl_backend.sh checks). The runtime JIT-compiles the PTX for
// whatever GPU it finds (.target sm_60: every GPU CUDA 12/13 supports), so no architecture list is needed.
// The kernel is 25 lines of PTX; it was checked with `ptxas -arch=sm_75|sm_90|sm_100`.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <memory>
#include <string>
#include <string_view>

#include "backend_factories.hpp"
#include "fabcheck/comm/nccl_support.hpp"
#include "fabcheck/core/error.hpp"

namespace fabcheck::comm::detail {
namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kBlocksPerSm = 2;  // one wave: 512 threads per SM, every SM busy, room for NCCL's blocks

// extern "C" __global__ void fabcheck_fma_spin(unsigned long long units, float* sink): per thread, `units` ×
// 16 fma.rn.f32 (x = x·0.99999988 + 1e-7, bounded, converges to 1) on 4 chains seeded from threadIdx.x; the
// sum is stored only when negative (never: the compiler cannot know, so the loop stays).
// The kernel's text around its unrolled loop body (fma_spin_ptx).
constexpr std::string_view kPtxHead = R"(
.version 6.0
.target sm_60
.address_size 64

.visible .entry fabcheck_fma_spin(.param .u64 units, .param .u64 sink)
{
	.reg .pred %p<3>;
	.reg .b32 %r<2>;
	.reg .f32 %f<6>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [units];
	ld.param.u64 %rd2, [sink];
	mov.u32 %r1, %tid.x;
	cvt.rn.f32.u32 %f1, %r1;
	add.f32 %f2, %f1, 0f3F800000;
	add.f32 %f3, %f1, 0f40000000;
	add.f32 %f4, %f1, 0f40400000;
	mov.u64 %rd3, 0;
	setp.eq.u64 %p1, %rd1, 0;
	@%p1 bra DONE;
LOOP:
)";
constexpr std::string_view kPtxTail = R"(	add.u64 %rd3, %rd3, 1;
	setp.lt.u64 %p2, %rd3, %rd1;
	@%p2 bra LOOP;
DONE:
	add.f32 %f5, %f1, %f2;
	add.f32 %f5, %f5, %f3;
	add.f32 %f5, %f5, %f4;
	setp.geu.f32 %p1, %f5, 0f00000000;
	@%p1 bra END;
	cvta.to.global.u64 %rd4, %rd2;
	st.global.f32 [%rd4], %f5;
END:
	ret;
}
)";

/// The kernel's PTX: the loop body is 4 rounds of one fma per chain (%f1..%f4), 16 per unit.
const std::string& fma_spin_ptx() {
  static const std::string ptx = [] {
    std::string text(kPtxHead);
    for (int round = 0; round < 4; ++round) {
      for (int chain = 1; chain <= 4; ++chain)
        text += fmt::format("\tfma.rn.f32 %f{0}, %f{0}, 0f3F7FFFFE, 0f33D6BF95;\n", chain);
    }
    return text.append(kPtxTail);
  }();
  return ptx;
}

#if CUDART_VERSION >= 12000

std::string cuda_text(cudaError_t e) {
  return fmt::format("{} [{}]", cudaGetErrorString(e), cudaGetErrorName(e));
}

class CudaCompute final : public DeviceCompute {
 public:
  CudaCompute(ComputeErrorContext ctx) : ctx_(std::move(ctx)) {
    check(cudaSetDevice(ctx_.device), "cudaSetDevice");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, ctx_.device), "cudaGetDeviceProperties");
    sms_ = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
    gpu_ = prop.name;
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags(compute)");
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
    check(cudaMalloc(&sink_, sizeof(float)), "cudaMalloc(sink)");
    check(cudaLibraryLoadData(&lib_, fma_spin_ptx().c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0),
          "cudaLibraryLoadData(compute kernel PTX)");
    check(cudaLibraryGetKernel(&kernel_, lib_, "fabcheck_fma_spin"), "cudaLibraryGetKernel");
  }
  ~CudaCompute() override {
    // Best effort, no throw from a destructor: the process is ending or the probe is done.
    if (stream_ != nullptr) (void)cudaStreamSynchronize(stream_);
    if (lib_ != nullptr) (void)cudaLibraryUnload(lib_);
    if (sink_ != nullptr) (void)cudaFree(sink_);
    if (start_ != nullptr) (void)cudaEventDestroy(start_);
    if (stop_ != nullptr) (void)cudaEventDestroy(stop_);
    if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
  }
  CudaCompute(const CudaCompute&) = delete;
  CudaCompute& operator=(const CudaCompute&) = delete;

  void launch(std::uint64_t units) override {
    unsigned long long u = units;
    void* sink = sink_;
    void* args[] = {&u, &sink};
    check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    // cudaKernel_t handles are launched through cudaLaunchKernel cast to const void* (CUDA runtime API,
    // cudaLaunchKernel: "can also be used with a cudaKernel_t").
    check(cudaLaunchKernel(reinterpret_cast<const void*>(kernel_),
                           dim3(static_cast<unsigned>(sms_ * kBlocksPerSm)), dim3(kThreadsPerBlock), args, 0,
                           stream_),
          "cudaLaunchKernel(fabcheck_fma_spin)");
    check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
  }
  void synchronize() override { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize(compute)"); }
  double last_kernel_us() override {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1000.0;
  }
  std::string description() const override {
    return fmt::format(
        "CUDA kernel on {}: {} blocks ({} per SM) x {} threads, 16 fused multiply-adds per unit on 4 "
        "independent chains in registers: FLOP-bound, no memory traffic; its own stream beside NCCL's",
        gpu_, sms_ * kBlocksPerSm, kBlocksPerSm, kThreadsPerBlock);
  }

 private:
  void check(cudaError_t e, const char* call) const {
    if (e == cudaSuccess) return;
    throw RuntimeFailure(nccl::format_call_error(ctx_.host, ctx_.rank, ctx_.device, call, cuda_text(e)));
  }

  ComputeErrorContext ctx_;
  int sms_ = 1;
  std::string gpu_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  void* sink_ = nullptr;
  cudaLibrary_t lib_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
};

#endif

}  // namespace

std::unique_ptr<DeviceCompute> make_cuda_compute(const ComputeErrorContext& ctx) {
#if CUDART_VERSION >= 12000
  return std::make_unique<CudaCompute>(ctx);
#else
  (void)fma_spin_ptx;
  throw UsageError(
      fmt::format("--backend nccl: the overlap probe's GPU kernel needs CUDA runtime 12.0 or later "
                  "(cudaLibraryLoadData); this fabcheck was built with {}.{}",
                  CUDART_VERSION / 1000, (CUDART_VERSION % 1000) / 10));
#endif
}

}  // namespace fabcheck::comm::detail
