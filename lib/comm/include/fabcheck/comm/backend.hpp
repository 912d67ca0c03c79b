#pragma once
/// @file Collective backends (DESIGN §2, lib/comm): run one collective call on buffers the backend owns.
/// `mpi` (host buffers, always built) and `nccl` (CUDA buffers, built only when NCCL and the CUDA runtime
/// were found). No MPI, CUDA or NCCL types appear here.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/comm/device_compute.hpp"
#include "fabcheck/comm/nccl_support.hpp"
#include "fabcheck/core/collective.hpp"

namespace fabcheck::comm {

/// One collective call, as the table loop issues it.
///
/// Buffer conventions (nccl-tests `GetCollByteCount` and in-place offsets):
/// - out-of-place: `send` holds geometry.send_count elements, `recv` geometry.recv_count elements;
/// - in-place (`in_place` true): one buffer `recv` of max(send_count, recv_count) elements; `send` is
/// ignored.
///   The input lies where nccl-tests puts it (allgather and gather: this rank's chunk at rank·count; the
///   others at offset 0); where the result lands is given by CollBackend::in_place_result_offset().
/// - sendrecv: rank r sends to r+1 and receives from r−1 (mod n). broadcast out-of-place: the root sends from
///   `send`, the others receive into `recv`. Rooted calls use `root`; the others ignore it.
struct CollCall {
  core::Collective coll = core::Collective::kAllReduce;  ///< which collective
  core::Dtype dtype = core::Dtype::kFloat;               ///< element type
  core::RedOp op = core::RedOp::kSum;                    ///< reduction (ignored where none applies)
  int root = 0;                                          ///< root rank for rooted collectives
  const void* send = nullptr;                            ///< send buffer (backend memory)
  void* recv = nullptr;                                  ///< receive buffer (backend memory)
  core::CollGeometry geometry;                           ///< counts per nccl-tests (core::geometry)
  bool in_place = false;                                 ///< in-place variant
};

/// One way of computing `-o avg` on a floating type (nccl-tests' ncclAvg), as the data check models it. The
/// scalar 1/nranks is computed in double and converted as named.
enum class AvgArith {
  /// The exact sum divided once, through float for the 16- and 8-bit types (the mpi backend: MPI has no
  /// average).
  kSumDivided,
  /// NCCL's ncclDevPreMulSum (src/enqueue.cc, ncclAvg on a floating type): every input times 1/nranks rounded
  /// to the type, each product rounded to the type, then summed with a rounding after every step.
  kPremultiplied,
  /// NCCL's symmetric kernels (src/scheduler/symmetric_sched.cc: ncclDevSumPostDiv "actually multiplies by
  /// the
  /// scalar"): the sum in a float accumulator (half for fp8) times float(1/nranks) (half for fp8), rounded to
  /// the
  /// accumulator, then to the type.
  kScaledSum,
  /// The same scaled sum in the type itself with the type's 1/nranks (its LDMC reduce-scatter: "uses the same
  /// accumulator type as data type").
  kScaledSumInType,
};

/// A collective backend bound to one communicator. Not thread-safe; one per communicator.
class CollBackend {
 public:
  virtual ~CollBackend() = default;

  /// "mpi" or "nccl".
  virtual std::string_view name() const = 0;
  /// Device description for the nccl-tests `# Using devices` line: device index (−1 for host memory) and a
  /// label such as "[cpu] MPI host buffers" or "[0000:1b:00] NVIDIA H100".
  virtual int device_index() const = 0;
  /// Label printed after the device index (see device_index()).
  virtual std::string device_label() const = 0;
  /// Library version text, e.g. "NCCL 2.28.3"; empty for mpi (the MPI library is in the topology section).
  virtual std::string library_version() const = 0;

  /// Allocates `bytes` (at least 1) of backend memory. @throws RuntimeFailure when out of memory.
  virtual void* alloc(std::size_t bytes) = 0;
  /// Frees memory from alloc(); nullptr is ignored.
  virtual void free(void* p) = 0;
  /// Issues one collective call. Blocking for mpi; enqueued on the backend's stream for nccl.
  /// @throws RuntimeFailure on a backend error.
  virtual void run(const CollCall& call) = 0;
  /// Issues `call` n times back to back, as n run() calls would: the timed table loop (nccl-tests' loop of
  /// `-n` ops at `-z 0`). mpi resolves the arguments once and loops the bare MPI call, as IMB and OSU do;
  /// the default (nccl: ops enqueued on a stream) loops run().
  virtual void run_repeated(const CollCall& call, int n) {
    for (int i = 0; i < n; ++i) run(call);
  }
  /// Issues `calls` as one aggregate (nccl-tests `-m/--agg_iters`): nccl wraps them in one
  /// ncclGroupStart/End (they may share buffers: NCCL orders them on the stream); mpi posts them as
  /// nonblocking collectives back to back and waits for all (MPI_Waitall), so each call must have buffers of
  /// its own (group_needs_own_buffers). Blocking for mpi, like run().
  virtual void run_group(std::span<const CollCall> calls);
  /// True when the calls of one run_group() must not share buffers (mpi: concurrent nonblocking operations on
  /// one receive buffer are erroneous, MPI 4.1 §6.12).
  virtual bool group_needs_own_buffers() const { return false; }
  /// Starts one call and returns without waiting for it (for the overlap probe): mpi posts its
  /// nonblocking form (MPI_Iallreduce, MPI_Iallgather, MPI_Ireduce_scatter_block …, MPI 4.1 §6.12); a
  /// backend without one runs it as run() does. Several calls may be started before they are finished (each
  /// with buffers of its own, as run_group's); test_started() / wait_started() cover all of them.
  virtual void start(const CollCall& call) { run(call); }
  /// True when every started call has completed on this rank. mpi: MPI_Test, which also lets MPI make
  /// progress (MPI 4.1 §3.7.4: progress is only guaranteed inside MPI calls). Default: synchronize(), then
  /// true.
  virtual bool test_started() {
    synchronize();
    return true;
  }
  /// Waits for every started call (mpi: MPI_Waitall). Default: synchronize().
  virtual void wait_started() { synchronize(); }
  /// CUDA graphs (nccl-tests `-G`, nccl backend only): begin_capture() makes the calls that
  /// follow be captured on the backend's stream instead of run (cudaStreamBeginCapture, thread-local mode as
  /// nccl-tests); end_capture() ends the capture and instantiates the graph; launch_captured() launches it
  /// once, asynchronously (wait with synchronize()); drop_captured() destroys it. The defaults throw
  /// UsageError (a backend without a device has no graphs).
  virtual void begin_capture();
  virtual void end_capture();
  virtual void launch_captured();
  virtual void drop_captured() {}

  /// The ways this backend may compute `-o avg` on a floating type (AvgArith); the data check accepts a
  /// result near any of them. The mpi backend: the exact sum divided once. The nccl backend: NCCL's
  /// premultiplied sum, and with symmetric windows (-R 2) also its symmetric kernels' scaled sums.
  virtual std::vector<AvgArith> avg_ariths() const { return {AvgArith::kSumDivided}; }

  /// Device memory (nccl-tests `-M`): the bytes free on this rank's device now (cudaMemGetInfo), and the
  /// bytes the communicator took when it was created (free before − free after); nullopt without a device.
  virtual std::optional<std::int64_t> device_free_bytes() const { return std::nullopt; }
  virtual std::optional<std::int64_t> init_memory_bytes() const { return std::nullopt; }
  /// The device's whole memory (cudaDeviceProp::totalGlobalMem, what nccl-tests caps maxBytes by); nullopt
  /// without a device.
  virtual std::optional<std::int64_t> device_total_bytes() const { return std::nullopt; }

  /// Waits until every issued call has completed on this rank (no-op for mpi).
  virtual void synchronize() = 0;
  /// Copies `bytes` from backend memory to host memory.
  virtual void copy_to_host(void* host, const void* src, std::size_t bytes) = 0;
  /// Copies `bytes` from host memory to backend memory.
  virtual void copy_from_host(void* dst, const void* host, std::size_t bytes) = 0;

  /// The library's own debug log of this process (nccl: NCCL's INFO log, captured per rank as decided by
  /// nccl::plan_log_capture before the communicator was created); nullptr when there is none (mpi).
  virtual const nccl::LogCapture* library_log() const { return nullptr; }

  /// A compute kernel on this backend's device that runs beside its collectives (the overlap
  /// probe's nccl backend: comm/device_compute.hpp); nullptr when the backend has no device (mpi: the probe
  /// computes on the CPU). @throws RuntimeFailure on a device error.
  virtual std::unique_ptr<DeviceCompute> make_device_compute() { return nullptr; }

  /// Element offset in the in-place buffer where this rank's result starts (nccl-tests layout by default:
  /// reducescatter and scatter at rank·count, the others at 0). The mpi backend overrides reducescatter (0,
  /// MPI_IN_PLACE semantics of MPI_Reduce_scatter_block).
  virtual std::uint64_t in_place_result_offset(core::Collective c, const core::CollGeometry& g,
                                               int rank) const;
};

/// Creates a backend on `comm` (collective: every rank of `comm` must call it with the same name).
/// @param name "mpi" or "nccl".
/// @throws UsageError "--backend: unknown backend X (use mpi or nccl)"; for nccl, "--backend nccl: no usable
///         CUDA device on K of N ranks (...)" (nccl::no_device_message) when any rank has no usable GPU (no
///         device, no or too old a driver, more ranks on a host than GPUs), or "--backend nccl: not compiled
///         in (...)" when fabcheck was built without NCCL. Every rank throws the same error.
/// @throws RuntimeFailure (nccl::format_call_error: host, rank, call) when CUDA or NCCL initialisation fails.
/// @param tuning nccl-tests' NCCL-only flags (nccl::Tuning): the nccl backend applies -R and -x and checks
///        every field against the NCCL and CUDA versions (nccl::tuning_refusal: UsageError, the same on every
///        rank); the mpi backend ignores it (probes::validate refuses those flags for mpi first).
std::unique_ptr<CollBackend> make_backend(std::string_view name, const Communicator& comm,
                                          const nccl::Tuning& tuning = {});

/// True when the NCCL backend was compiled in.
bool nccl_backend_compiled();

/// Why `--backend nccl` cannot run on `comm`: "" when every rank has a usable GPU (one per local rank), else
/// the same one line on every rank (nccl::no_device_message, or "not compiled in"). Collective; touches no
/// NCCL state (CUDA runtime device query only).
std::string nccl_unusable_reason(const Communicator& comm);

}  // namespace fabcheck::comm
