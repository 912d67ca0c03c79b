// The MPI collective backend: host buffers, one blocking MPI call per collective call.
#include <fmt/format.h>

#include <array>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "backend_factories.hpp"
#include "fabcheck/comm/backend.hpp"
#include "fabcheck/core/element.hpp"
#include "fabcheck/core/error.hpp"
#include "mpi_state.hpp"

namespace fabcheck::comm {

void CollBackend::run_group(std::span<const CollCall> calls) {
  for (const CollCall& c : calls) run(c);
}

void CollBackend::begin_capture() {
  throw UsageError(fmt::format("-G/--cudagraph: the {} backend has no CUDA graphs (--backend nccl)", name()));
}
void CollBackend::end_capture() {
  begin_capture();
}
void CollBackend::launch_captured() {
  begin_capture();
}

std::uint64_t CollBackend::in_place_result_offset(core::Collective c, const core::CollGeometry& g,
                                                  int rank) const {
  if (c == core::Collective::kReduceScatter || c == core::Collective::kScatter) {
    return static_cast<std::uint64_t>(rank) * g.count;
  }
  return 0;
}

namespace {

MPI_Datatype to_mpi(core::Dtype d) {
  switch (d) {
    case core::Dtype::kInt8:
      return MPI_INT8_T;
    case core::Dtype::kUint8:
      return MPI_UINT8_T;
    case core::Dtype::kInt32:
      return MPI_INT32_T;
    case core::Dtype::kUint32:
      return MPI_UINT32_T;
    case core::Dtype::kInt64:
      return MPI_INT64_T;
    case core::Dtype::kUint64:
      return MPI_UINT64_T;
    case core::Dtype::kFloat:
      return MPI_FLOAT;
    case core::Dtype::kDouble:
      return MPI_DOUBLE;
    case core::Dtype::kHalf:
    case core::Dtype::kBfloat16:
      return MPI_UINT16_T;  // moved as 16-bit words; reduced by the user ops below (MPI has no 16-bit float)
    case core::Dtype::kF8e4m3:
    case core::Dtype::kF8e5m2:
      return MPI_UINT8_T;  // moved as bytes; reduced by the user ops below (MPI has no 8-bit float)
  }
  return MPI_BYTE;
}

// half, bfloat16 and fp8 reductions: MPI has no predefined 16- or 8-bit float type, so they are user-defined
// ops (MPI_Op_create) over MPI_UINT16_T / MPI_UINT8_T that combine through float and round back after every
// step, as a device reduction of two such values does (NCCL reduces half and fp8 in half precision and
// converts each result back: src/device/reduce_kernel.h). nccl-tests users get `-d half`/`-d bfloat16`/`-d
// all` on both backends, and `-d f8e4m3`/`-d f8e5m2` here too (nccl-tests has them on sm90 GPUs only).
template <class T, core::RedOp O>
void reduce_narrow(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  for (int i = 0; i < *len; ++i) {
    if constexpr (O == core::RedOp::kSum) {
      b[i] = a[i] + b[i];
    } else if constexpr (O == core::RedOp::kProd) {
      b[i] = a[i] * b[i];
    } else if constexpr (O == core::RedOp::kMin) {
      b[i] = b[i] < a[i] ? b[i] : a[i];
    } else {
      b[i] = a[i] < b[i] ? b[i] : a[i];
    }
  }
}

/// The 16 user ops (4 narrow float dtypes × 4 redops), created on first use, freed before MPI_Finalize by
/// the backend.
class NarrowFloatOps {
 public:
  NarrowFloatOps() = default;
  ~NarrowFloatOps() {
    for (MPI_Op& op : ops_) {
      if (op != MPI_OP_NULL) MPI_Op_free(&op);
    }
  }
  NarrowFloatOps(const NarrowFloatOps&) = delete;
  NarrowFloatOps& operator=(const NarrowFloatOps&) = delete;

  MPI_Op get(core::Dtype d, core::RedOp o) {
    // avg sums (for_type), so it shares sum's op; 4 ops per type.
    const core::RedOp base = o == core::RedOp::kAvg ? core::RedOp::kSum : o;
    const std::size_t i = 4u * type_index(d) + static_cast<std::size_t>(base);
    if (ops_[i] == MPI_OP_NULL) check_mpi(MPI_Op_create(function(d, o), 1, &ops_[i]), "MPI_Op_create");
    return ops_[i];
  }

 private:
  template <class T>
  static MPI_User_function* for_type(core::RedOp o) {
    switch (o) {
      case core::RedOp::kSum:
        return &reduce_narrow<T, core::RedOp::kSum>;
      case core::RedOp::kProd:
        return &reduce_narrow<T, core::RedOp::kProd>;
      case core::RedOp::kMin:
        return &reduce_narrow<T, core::RedOp::kMin>;
      case core::RedOp::kMax:
        return &reduce_narrow<T, core::RedOp::kMax>;
      case core::RedOp::kAvg:  // summed, then divided (avg_result)
        return &reduce_narrow<T, core::RedOp::kSum>;
      case core::RedOp::kMulSum:  // refused before a call is made (probes::validate)
        break;
    }
    return &reduce_narrow<T, core::RedOp::kSum>;
  }
  static std::size_t type_index(core::Dtype d) {
    return d == core::Dtype::kHalf       ? 0u
           : d == core::Dtype::kBfloat16 ? 1u
           : d == core::Dtype::kF8e4m3   ? 2u
                                         : 3u;
  }
  static MPI_User_function* function(core::Dtype d, core::RedOp o) {
    MPI_User_function* f = nullptr;
    core::visit_dtype(d, [&](auto tag) {
      if constexpr (core::NarrowFloat<decltype(tag)>) f = for_type<decltype(tag)>(o);
    });
    return f;
  }
  std::array<MPI_Op, 16> ops_ = [] {
    std::array<MPI_Op, 16> a{};
    a.fill(MPI_OP_NULL);
    return a;
  }();
};

MPI_Op to_mpi(core::RedOp o) {
  switch (o) {
    case core::RedOp::kSum:
      return MPI_SUM;
    case core::RedOp::kProd:
      return MPI_PROD;
    case core::RedOp::kMin:
      return MPI_MIN;
    case core::RedOp::kMax:
      return MPI_MAX;
    case core::RedOp::kAvg:  // MPI has no average: summed, then divided (avg_result)
      return MPI_SUM;
    case core::RedOp::kMulSum:  // MPI has no pre-multiplied sum: refused before a call (probes::validate)
      break;
  }
  return MPI_SUM;
}

/// ncclAvg's result from the sum: every element divided by nranks (core::divide_once).
void avg_result(void* p, std::size_t n, core::Dtype d, int nranks) {
  core::visit_dtype(d, [&](auto tag) {
    using T = decltype(tag);
    T* v = static_cast<T*>(p);
    for (std::size_t i = 0; i < n; ++i) v[i] = core::divide_once(v[i], nranks);
  });
}

constexpr int kSendRecvTag = 7101;

class MpiBackend final : public CollBackend {
 public:
  explicit MpiBackend(const Communicator& comm)
      : comm_(comm), mpi_(mpi_comm(comm)), rank_(comm.rank()), size_(comm.size()) {}

  std::string_view name() const override { return "mpi"; }
  int device_index() const override { return -1; }
  std::string device_label() const override { return "[cpu] MPI host buffers"; }
  std::string library_version() const override { return {}; }

  void* alloc(std::size_t bytes) override {
    constexpr std::size_t kAlign = 64;
    std::size_t rounded = ((bytes == 0 ? 1 : bytes) + kAlign - 1) / kAlign * kAlign;
    void* p = std::aligned_alloc(kAlign, rounded);
    if (p == nullptr) throw RuntimeFailure(fmt::format("mpi backend: cannot allocate {} bytes", bytes));
    std::memset(p, 0, rounded);  // touch every page before timing
    return p;
  }

  void free(void* p) override { std::free(p); }

  static int checked_count(const CollCall& c) {
    if (c.geometry.count > static_cast<std::uint64_t>(INT_MAX)) {
      throw RuntimeFailure(
          fmt::format("mpi backend: count {} exceeds the MPI int count limit", c.geometry.count));
    }
    return static_cast<int>(c.geometry.count);
  }

  MPI_Op op_of(const CollCall& c) {
    if (core::has_redop(c.coll) && c.op == core::RedOp::kMulSum)  // probes::validate refuses it first
      throw UsageError(
          "-o/--op mulsum: ncclRedOpCreatePreMulSum exists on the nccl backend only (--backend nccl)");
    const bool narrow =
        c.dtype == core::Dtype::kHalf || c.dtype == core::Dtype::kBfloat16 || core::is_fp8(c.dtype);
    return !core::has_redop(c.coll) ? MPI_OP_NULL : (narrow ? narrow_ops_.get(c.dtype, c.op) : to_mpi(c.op));
  }

  void run(const CollCall& c) override { run_repeated(c, 1); }

  // The arguments are resolved once and each case is a tight loop of one MPI call: the timed table loop is
  // then the bare loop of IMB's and OSU's (per-call dispatch showed in 8 B figures).
  void run_repeated(const CollCall& c, int n) override {
    const int cnt = checked_count(c);
    const MPI_Datatype dt = to_mpi(c.dtype);
    const MPI_Op op = op_of(c);
    const std::size_t chunk_bytes = c.geometry.count * core::dtype_size(c.dtype);
    char* recv = static_cast<char*>(c.recv);
    void* send = const_cast<void*>(c.send);
    const bool ip = c.in_place;
    const bool avg = avg_applies(c);
    const int root = c.root;
    const auto loop = [&](const char* what, auto&& call) {
      for (int i = 0; i < n; ++i) {
        const int rc = call();
        if (rc != MPI_SUCCESS) check_mpi(rc, what);
        if (avg) avg_result(c.recv, c.geometry.count, c.dtype, size_);
      }
    };
    switch (c.coll) {
      case core::Collective::kAllReduce: {
        void* from = ip ? MPI_IN_PLACE : send;
        loop("MPI_Allreduce", [&] { return MPI_Allreduce(from, recv, cnt, dt, op, mpi_); });
        break;
      }
      case core::Collective::kAllGather:
        if (ip) {
          loop("MPI_Allgather",
               [&] { return MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, cnt, dt, mpi_); });
        } else {
          loop("MPI_Allgather", [&] { return MPI_Allgather(send, cnt, dt, recv, cnt, dt, mpi_); });
        }
        break;
      case core::Collective::kReduceScatter: {
        void* from = ip ? MPI_IN_PLACE : send;
        loop("MPI_Reduce_scatter_block",
             [&] { return MPI_Reduce_scatter_block(from, recv, cnt, dt, op, mpi_); });
        break;
      }
      case core::Collective::kAllToAll:
        if (ip) {
          loop("MPI_Alltoall",
               [&] { return MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, cnt, dt, mpi_); });
        } else {
          loop("MPI_Alltoall", [&] { return MPI_Alltoall(send, cnt, dt, recv, cnt, dt, mpi_); });
        }
        break;
      case core::Collective::kBroadcast: {
        void* buf = (!ip && rank_ == root) ? send : recv;
        loop("MPI_Bcast", [&] { return MPI_Bcast(buf, cnt, dt, root, mpi_); });
        break;
      }
      case core::Collective::kReduce:
        if (!ip) {
          loop("MPI_Reduce", [&] { return MPI_Reduce(send, recv, cnt, dt, op, root, mpi_); });
        } else if (rank_ == root) {
          loop("MPI_Reduce", [&] { return MPI_Reduce(MPI_IN_PLACE, recv, cnt, dt, op, root, mpi_); });
        } else {
          loop("MPI_Reduce", [&] { return MPI_Reduce(recv, nullptr, cnt, dt, op, root, mpi_); });
        }
        break;
      case core::Collective::kSendRecv: {
        const int next = (rank_ + 1) % size_;
        const int prev = (rank_ - 1 + size_) % size_;
        if (ip) {
          loop("MPI_Sendrecv_replace", [&] {
            return MPI_Sendrecv_replace(recv, cnt, dt, next, kSendRecvTag, prev, kSendRecvTag, mpi_,
                                        MPI_STATUS_IGNORE);
          });
        } else {
          loop("MPI_Sendrecv", [&] {
            return MPI_Sendrecv(send, cnt, dt, next, kSendRecvTag, recv, cnt, dt, prev, kSendRecvTag, mpi_,
                                MPI_STATUS_IGNORE);
          });
        }
        break;
      }
      case core::Collective::kGather: {
        char* mine = recv + static_cast<std::size_t>(rank_) * chunk_bytes;
        if (!ip) {
          loop("MPI_Gather", [&] { return MPI_Gather(send, cnt, dt, recv, cnt, dt, root, mpi_); });
        } else if (rank_ == root) {
          loop("MPI_Gather", [&] { return MPI_Gather(MPI_IN_PLACE, cnt, dt, recv, cnt, dt, root, mpi_); });
        } else {
          loop("MPI_Gather", [&] { return MPI_Gather(mine, cnt, dt, nullptr, cnt, dt, root, mpi_); });
        }
        break;
      }
      case core::Collective::kScatter: {
        char* mine = recv + static_cast<std::size_t>(rank_) * chunk_bytes;
        if (!ip) {
          loop("MPI_Scatter", [&] { return MPI_Scatter(send, cnt, dt, recv, cnt, dt, root, mpi_); });
        } else if (rank_ == root) {
          loop("MPI_Scatter", [&] { return MPI_Scatter(recv, cnt, dt, MPI_IN_PLACE, cnt, dt, root, mpi_); });
        } else {
          loop("MPI_Scatter", [&] { return MPI_Scatter(nullptr, cnt, dt, mine, cnt, dt, root, mpi_); });
        }
        break;
      }
    }
  }

  // The result of every reducing collective starts at recv on the ranks that hold one (reducescatter's
  // in-place result too: in_place_result_offset); for avg its count elements are divided there, inside the
  // timed op.
  bool avg_applies(const CollCall& c) const {
    return core::has_redop(c.coll) && c.op == core::RedOp::kAvg &&
           (c.coll != core::Collective::kReduce || rank_ == c.root);
  }
  void finish_avg(const CollCall& c) {
    if (avg_applies(c)) avg_result(c.recv, c.geometry.count, c.dtype, size_);
  }

  // The nonblocking form of run()'s call (MPI 4.1 §6.12: MPI_Iallreduce ...), its request(s) appended to
  // requests_; the same buffers, in-place forms and roots as run().
  void post(const CollCall& c) {
    const int cnt = checked_count(c);
    const MPI_Datatype dt = to_mpi(c.dtype);
    const MPI_Op op = op_of(c);
    const std::size_t chunk_bytes = c.geometry.count * core::dtype_size(c.dtype);
    char* recv = static_cast<char*>(c.recv);
    void* send = const_cast<void*>(c.send);
    const bool ip = c.in_place;
    MPI_Request* r = &requests_.emplace_back(MPI_REQUEST_NULL);
    switch (c.coll) {
      case core::Collective::kAllReduce:
        check_mpi(MPI_Iallreduce(ip ? MPI_IN_PLACE : send, recv, cnt, dt, op, mpi_, r), "MPI_Iallreduce");
        break;
      case core::Collective::kAllGather:
        if (ip) {
          check_mpi(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, cnt, dt, mpi_, r),
                    "MPI_Iallgather");
        } else {
          check_mpi(MPI_Iallgather(send, cnt, dt, recv, cnt, dt, mpi_, r), "MPI_Iallgather");
        }
        break;
      case core::Collective::kReduceScatter:
        check_mpi(MPI_Ireduce_scatter_block(ip ? MPI_IN_PLACE : send, recv, cnt, dt, op, mpi_, r),
                  "MPI_Ireduce_scatter_block");
        break;
      case core::Collective::kAllToAll:
        if (ip) {
          check_mpi(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, cnt, dt, mpi_, r),
                    "MPI_Ialltoall");
        } else {
          check_mpi(MPI_Ialltoall(send, cnt, dt, recv, cnt, dt, mpi_, r), "MPI_Ialltoall");
        }
        break;
      case core::Collective::kBroadcast:
        check_mpi(MPI_Ibcast((!ip && rank_ == c.root) ? send : recv, cnt, dt, c.root, mpi_, r), "MPI_Ibcast");
        break;
      case core::Collective::kReduce:
        if (!ip) {
          check_mpi(MPI_Ireduce(send, recv, cnt, dt, op, c.root, mpi_, r), "MPI_Ireduce");
        } else if (rank_ == c.root) {
          check_mpi(MPI_Ireduce(MPI_IN_PLACE, recv, cnt, dt, op, c.root, mpi_, r), "MPI_Ireduce");
        } else {
          check_mpi(MPI_Ireduce(recv, nullptr, cnt, dt, op, c.root, mpi_, r), "MPI_Ireduce");
        }
        break;
      case core::Collective::kSendRecv: {
        // In place there is no nonblocking form here (MPI_Isendrecv_replace is MPI 4.0; Open MPI 4.1 has
        // none): in-place sendrecv runs blocking inside the aggregate, one after the other.
        const int next = (rank_ + 1) % size_;
        const int prev = (rank_ - 1 + size_) % size_;
        if (ip) {
          requests_.pop_back();
          check_mpi(MPI_Sendrecv_replace(recv, cnt, dt, next, kSendRecvTag, prev, kSendRecvTag, mpi_,
                                         MPI_STATUS_IGNORE),
                    "MPI_Sendrecv_replace");
        } else {
          check_mpi(MPI_Irecv(recv, cnt, dt, prev, kSendRecvTag, mpi_, r), "MPI_Irecv");
          MPI_Request* s = &requests_.emplace_back(MPI_REQUEST_NULL);
          check_mpi(MPI_Isend(send, cnt, dt, next, kSendRecvTag, mpi_, s), "MPI_Isend");
        }
        break;
      }
      case core::Collective::kGather:
        if (!ip) {
          check_mpi(MPI_Igather(send, cnt, dt, recv, cnt, dt, c.root, mpi_, r), "MPI_Igather");
        } else if (rank_ == c.root) {
          check_mpi(MPI_Igather(MPI_IN_PLACE, cnt, dt, recv, cnt, dt, c.root, mpi_, r), "MPI_Igather");
        } else {
          check_mpi(MPI_Igather(recv + static_cast<std::size_t>(rank_) * chunk_bytes, cnt, dt, nullptr, cnt,
                                dt, c.root, mpi_, r),
                    "MPI_Igather");
        }
        break;
      case core::Collective::kScatter:
        if (!ip) {
          check_mpi(MPI_Iscatter(send, cnt, dt, recv, cnt, dt, c.root, mpi_, r), "MPI_Iscatter");
        } else if (rank_ == c.root) {
          check_mpi(MPI_Iscatter(recv, cnt, dt, MPI_IN_PLACE, cnt, dt, c.root, mpi_, r), "MPI_Iscatter");
        } else {
          check_mpi(MPI_Iscatter(nullptr, cnt, dt, recv + static_cast<std::size_t>(rank_) * chunk_bytes, cnt,
                                 dt, c.root, mpi_, r),
                    "MPI_Iscatter");
        }
        break;
    }
  }

  void run_group(std::span<const CollCall> calls) override {
    if (calls.size() == 1) return run(calls[0]);
    requests_.clear();
    for (const CollCall& c : calls) post(c);
    check_mpi(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE),
              "MPI_Waitall");
    for (const CollCall& c : calls) finish_avg(c);
  }
  bool group_needs_own_buffers() const override { return true; }

  void start(const CollCall& c) override {
    if (started_calls_.empty()) requests_.clear();
    post(c);
    started_calls_.push_back(c);
  }
  bool test_started() override {
    if (started_calls_.empty()) return true;
    int done = 0;
    check_mpi(MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE),
              "MPI_Testall");
    if (done) finish_started();
    return done != 0;
  }
  void wait_started() override {
    if (started_calls_.empty()) return;
    check_mpi(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE),
              "MPI_Waitall");
    finish_started();
  }

  void synchronize() override {}
  void copy_to_host(void* host, const void* src, std::size_t bytes) override {
    if (bytes > 0) std::memcpy(host, src, bytes);
  }
  void copy_from_host(void* dst, const void* host, std::size_t bytes) override {
    if (bytes > 0) std::memcpy(dst, host, bytes);
  }

  std::uint64_t in_place_result_offset(core::Collective c, const core::CollGeometry& g,
                                       int rank) const override {
    if (c == core::Collective::kReduceScatter) return 0;  // MPI_IN_PLACE: the result starts at the buffer
    return CollBackend::in_place_result_offset(c, g, rank);
  }

 private:
  Communicator comm_;  // keeps the MPI_Comm alive
  MPI_Comm mpi_;
  int rank_;
  int size_;
  NarrowFloatOps narrow_ops_;
  std::vector<MPI_Request> requests_;    // run_group's or start()'s pending operations
  std::vector<CollCall> started_calls_;  // start()'s calls since the last completion

  void finish_started() {
    for (const CollCall& c : started_calls_) finish_avg(c);
    started_calls_.clear();
  }
};

}  // namespace

std::unique_ptr<CollBackend> make_backend(std::string_view name, const Communicator& comm,
                                          const nccl::Tuning& tuning) {
  if (name == "mpi") return std::make_unique<MpiBackend>(comm);
  if (name == "nccl") return detail::make_nccl_backend(comm, tuning);
  throw UsageError(fmt::format("--backend: unknown backend \"{}\" (use mpi or nccl)", name));
}

}  // namespace fabcheck::comm
