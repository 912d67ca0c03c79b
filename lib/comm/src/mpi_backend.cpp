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
#include "fabcheck/core/enum_table.hpp"
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

// In Dtype order (core::enum_lookup). half and bfloat16 move as 16-bit words and fp8 as bytes, reduced by the
// user ops below (MPI has no 16- or 8-bit float).
MPI_Datatype to_mpi(core::Dtype d) {
  static const std::array<MPI_Datatype, 12> kTypes = {MPI_INT8_T,   MPI_UINT8_T,  MPI_INT32_T, MPI_UINT32_T,
                                                      MPI_INT64_T,  MPI_UINT64_T, MPI_FLOAT,   MPI_DOUBLE,
                                                      MPI_UINT16_T, MPI_UINT16_T, MPI_UINT8_T, MPI_UINT8_T};
  return core::enum_lookup(kTypes, d, MPI_BYTE);
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

// In RedOp order (core::enum_lookup). MPI has no average: avg is summed, then divided (avg_result); nor a
// pre-multiplied sum: mulsum is refused before a call (probes::validate).
MPI_Op to_mpi(core::RedOp o) {
  static const std::array<MPI_Op, 6> kOps = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_SUM, MPI_SUM};
  return core::enum_lookup(kOps, o, MPI_SUM);
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

/// One collective's blocking MPI function and its nonblocking twin (the same arguments and a request), as
/// template arguments so that each stays a direct call inside the timed loop.
template <auto kBlocking, auto kNonblocking>
struct MpiCall {
  const char* blocking_name;
  const char* nonblocking_name;
};

/// A call's arguments as MPI takes them: MPI_IN_PLACE, the null buffers of a rank that is not the root, and
/// sendrecv's ring neighbours, resolved once per run_repeated()/post().
struct MpiArgs {
  void* from = nullptr;
  int from_count = 0;
  MPI_Datatype from_type = MPI_DATATYPE_NULL;
  void* to = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  int root = 0;
  int next = 0;
  int prev = 0;
};

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

  // The buffers of run()'s and post()'s call: send to recv, or in place (MPI_IN_PLACE where MPI has it; the
  // root's buffer only, or this rank's block of it, where the collective is rooted).
  MpiArgs resolve(const CollCall& c) {
    MpiArgs a;
    a.count = checked_count(c);
    a.type = to_mpi(c.dtype);
    a.op = op_of(c);
    a.root = c.root;
    a.next = (rank_ + 1) % size_;
    a.prev = (rank_ - 1 + size_) % size_;
    a.from = const_cast<void*>(c.send);
    a.from_count = a.count;
    a.from_type = a.type;
    a.to = c.recv;
    const bool root = rank_ == c.root;
    void* mine = static_cast<char*>(c.recv) +
                 static_cast<std::size_t>(rank_) * c.geometry.count * core::dtype_size(c.dtype);
    if (c.coll == core::Collective::kBroadcast && (c.in_place || !root)) a.from = c.recv;
    if (!c.in_place) return a;
    switch (c.coll) {
      case core::Collective::kAllGather:
      case core::Collective::kAllToAll:
        a.from_count = 0;
        a.from_type = MPI_DATATYPE_NULL;
        a.from = MPI_IN_PLACE;
        break;
      case core::Collective::kAllReduce:
      case core::Collective::kReduceScatter:
        a.from = MPI_IN_PLACE;
        break;
      case core::Collective::kReduce:
        a.from = root ? MPI_IN_PLACE : c.recv;
        a.to = root ? c.recv : nullptr;
        break;
      case core::Collective::kGather:
        a.from = root ? MPI_IN_PLACE : mine;
        a.to = root ? c.recv : nullptr;
        break;
      case core::Collective::kScatter:
        a.from = root ? c.recv : nullptr;
        a.to = root ? MPI_IN_PLACE : mine;
        break;
      case core::Collective::kBroadcast:
      case core::Collective::kSendRecv:
        break;
    }
    return a;
  }

  // Calls form(MpiCall<blocking, nonblocking>, args...) with the collective's MPI functions and their
  // arguments: run_repeated() and post() share one argument list per collective. Not sendrecv (its
  // nonblocking form is two calls).
  template <class Form>
  void dispatch(core::Collective coll, const MpiArgs& a, Form&& form) {
    switch (coll) {
      case core::Collective::kAllReduce:
        return form(MpiCall<MPI_Allreduce, MPI_Iallreduce>{"MPI_Allreduce", "MPI_Iallreduce"}, a.from, a.to,
                    a.count, a.type, a.op, mpi_);
      case core::Collective::kAllGather:
        return form(MpiCall<MPI_Allgather, MPI_Iallgather>{"MPI_Allgather", "MPI_Iallgather"}, a.from,
                    a.from_count, a.from_type, a.to, a.count, a.type, mpi_);
      case core::Collective::kReduceScatter:
        return form(MpiCall<MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block>{"MPI_Reduce_scatter_block",
                                                                                 "MPI_Ireduce_scatter_block"},
                    a.from, a.to, a.count, a.type, a.op, mpi_);
      case core::Collective::kAllToAll:
        return form(MpiCall<MPI_Alltoall, MPI_Ialltoall>{"MPI_Alltoall", "MPI_Ialltoall"}, a.from,
                    a.from_count, a.from_type, a.to, a.count, a.type, mpi_);
      case core::Collective::kBroadcast:
        return form(MpiCall<MPI_Bcast, MPI_Ibcast>{"MPI_Bcast", "MPI_Ibcast"}, a.from, a.count, a.type,
                    a.root, mpi_);
      case core::Collective::kReduce:
        return form(MpiCall<MPI_Reduce, MPI_Ireduce>{"MPI_Reduce", "MPI_Ireduce"}, a.from, a.to, a.count,
                    a.type, a.op, a.root, mpi_);
      case core::Collective::kGather:
        return form(MpiCall<MPI_Gather, MPI_Igather>{"MPI_Gather", "MPI_Igather"}, a.from, a.from_count,
                    a.from_type, a.to, a.count, a.type, a.root, mpi_);
      case core::Collective::kScatter:
        return form(MpiCall<MPI_Scatter, MPI_Iscatter>{"MPI_Scatter", "MPI_Iscatter"}, a.from, a.from_count,
                    a.from_type, a.to, a.count, a.type, a.root, mpi_);
      case core::Collective::kSendRecv:
        return;
    }
  }

  void run(const CollCall& c) override { run_repeated(c, 1); }

  // The arguments are resolved once and each case is a tight loop of one MPI call: the timed table loop is
  // then the bare loop of IMB's and OSU's (per-call dispatch showed in 8 B figures).
  void run_repeated(const CollCall& c, int n) override {
    const bool avg = avg_applies(c);
    const auto loop = [&](const char* what, auto&& call) {
      for (int i = 0; i < n; ++i) {
        const int rc = call();
        if (rc != MPI_SUCCESS) check_mpi(rc, what);
        if (avg) avg_result(c.recv, c.geometry.count, c.dtype, size_);
      }
    };
    const MpiArgs a = resolve(c);
    if (c.coll == core::Collective::kSendRecv && c.in_place) {
      loop("MPI_Sendrecv_replace", [&] {
        return MPI_Sendrecv_replace(a.to, a.count, a.type, a.next, kSendRecvTag, a.prev, kSendRecvTag, mpi_,
                                    MPI_STATUS_IGNORE);
      });
    } else if (c.coll == core::Collective::kSendRecv) {
      loop("MPI_Sendrecv", [&] {
        return MPI_Sendrecv(a.from, a.count, a.type, a.next, kSendRecvTag, a.to, a.count, a.type, a.prev,
                            kSendRecvTag, mpi_, MPI_STATUS_IGNORE);
      });
    } else {
      const auto each = [&]<auto kBlocking, auto kNonblocking>(MpiCall<kBlocking, kNonblocking> f,
                                                               auto... args) {
        loop(f.blocking_name, [&] { return kBlocking(args...); });
      };
      dispatch(c.coll, a, each);
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
    const MpiArgs a = resolve(c);
    if (c.coll == core::Collective::kSendRecv && c.in_place) {
      // In place there is no nonblocking form here (MPI_Isendrecv_replace is MPI 4.0; Open MPI 4.1 has
      // none): in-place sendrecv runs blocking inside the aggregate, one after the other.
      check_mpi(MPI_Sendrecv_replace(a.to, a.count, a.type, a.next, kSendRecvTag, a.prev, kSendRecvTag, mpi_,
                                     MPI_STATUS_IGNORE),
                "MPI_Sendrecv_replace");
    } else if (c.coll == core::Collective::kSendRecv) {
      check_mpi(MPI_Irecv(a.to, a.count, a.type, a.prev, kSendRecvTag, mpi_,
                          &requests_.emplace_back(MPI_REQUEST_NULL)),
                "MPI_Irecv");
      check_mpi(MPI_Isend(a.from, a.count, a.type, a.next, kSendRecvTag, mpi_,
                          &requests_.emplace_back(MPI_REQUEST_NULL)),
                "MPI_Isend");
    } else {
      const auto each = [&]<auto kBlocking, auto kNonblocking>(MpiCall<kBlocking, kNonblocking> f,
                                                               auto... args) {
        check_mpi(kNonblocking(args..., &requests_.emplace_back(MPI_REQUEST_NULL)), f.nonblocking_name);
      };
      dispatch(c.coll, a, each);
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
