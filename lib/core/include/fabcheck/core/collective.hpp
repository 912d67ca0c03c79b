#pragma once
/// @file Collectives, data types, reduction ops, and the nccl-tests byte/count/bandwidth rules
/// (NVIDIA/nccl-tests `doc/PERFORMANCE.md` and `src/<coll>.cu` GetBw/GetCollByteCount; DESIGN §3).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::core {

/// The collectives fabcheck measures.
enum class Collective {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kBroadcast,
  kReduce,
  kSendRecv,
  kGather,
  kScatter
};

/// Element types (`-d`), nccl-tests names: int8 uint8 int32 uint32 int64 uint64 half float double bfloat16
/// f8e4m3 f8e5m2. half is IEEE binary16 and bfloat16 the 16-bit brain float (host arithmetic in
/// core/half.hpp); f8e4m3 and f8e5m2 are NCCL's 8-bit floats (ncclFloat8e4m3/e5m2: NCCL >= 2.24 on sm90 or
/// newer GPUs; on the mpi backend user-defined ops as for half; host arithmetic in core/fp8.hpp).
enum class Dtype {
  kInt8,
  kUint8,
  kInt32,
  kUint32,
  kInt64,
  kUint64,
  kFloat,
  kDouble,
  kHalf,
  kBfloat16,
  kF8e4m3,
  kF8e5m2
};

/// Reduction ops (`-o/--op`). kAvg is ncclAvg (NCCL >= 2.10: the sum divided by nranks; integers divide
/// with truncation); MPI has no average op, so the mpi backend sums and each rank that holds a result divides
/// it by nranks (comm/backend.hpp). kMulSum is nccl-tests' `mulsum`: ncclRedOpCreatePreMulSum (NCCL >= 2.11),
/// every rank's input multiplied by its own scalar before the sum — nccl-tests' scalar is 1 on even ranks and
/// 2 on odd ones (verifiable/verifiable.h ncclVerifiablePremulScalar); the nccl backend only (MPI has no such
/// op).
enum class RedOp { kSum, kProd, kMin, kMax, kAvg, kMulSum };

/// Every collective in table order (what `--coll all` runs).
const std::vector<Collective>& all_collectives();
/// Every dtype that `-d all` runs, in nccl-tests order: int8 uint8 int32 uint32 int64 uint64 half float
/// double bfloat16. Not the fp8 types: nccl-tests' `all` adds them only where its GPUs are sm90 or newer
/// (and NCCL >= 2.24), so fabcheck's `all` is the ten every backend and GPU runs, and f8e4m3/f8e5m2 are asked
/// for by name (a sweep note on the nccl backend says so).
const std::vector<Dtype>& all_dtypes();
/// The 8-bit float types (f8e4m3 f8e5m2), in nccl-tests order.
const std::vector<Dtype>& fp8_dtypes();
/// True for f8e4m3 and f8e5m2.
bool is_fp8(Dtype d);
/// Every redop (what `-o all` runs): sum prod min max avg (nccl-tests' `all` has avg from NCCL 2.10 on;
/// mulsum, ncclRedOpCreatePreMulSum, is not here: it runs on the nccl backend only, so it is asked for by
/// name).
const std::vector<RedOp>& all_redops();

/// Canonical lowercase name ("allreduce", "reducescatter", ...).
std::string_view name(Collective c);
/// nccl-tests binary name ("all_reduce_perf", ...), used in the "Collective test concluded" footer.
std::string_view nccl_tests_binary(Collective c);
/// nccl-tests type name ("int8", "float", ...).
std::string_view name(Dtype d);
/// nccl-tests op name ("sum", "prod", "min", "max").
std::string_view name(RedOp o);

/// Parses a collective name; accepts canonical names, nccl-tests spellings (all_reduce, all_gather,
/// reduce_scatter, alltoall, send_recv) and binary names (all_reduce_perf). nullopt when unknown.
std::optional<Collective> parse_collective(std::string_view s);
/// Parses a dtype name (nccl-tests spellings, f8e4m3 and f8e5m2 included; also float32/float64/char/int,
/// float16/fp16 for half, bf16 for bfloat16). nullopt when unknown.
std::optional<Dtype> parse_dtype(std::string_view s);
/// Parses a redop name. nullopt when unknown.
std::optional<RedOp> parse_redop(std::string_view s);

/// Element size in bytes (1 for int8/uint8/fp8, 2 for half/bfloat16, 4 or 8).
std::size_t dtype_size(Dtype d);
/// The largest N such that every integer 0..N is exactly representable in `d`: 2^11 (half), 2^8 (bfloat16),
/// 2^24 (float), 2^53 (double), 2^4 (f8e4m3: 4-bit significand), 2^3 (f8e5m2: 3-bit significand); 0 for the
/// integer types (their sums wrap exactly, no limit applies). The data check keeps every partial sum of a
/// reduction at or below it.
std::uint64_t exact_integer_limit(Dtype d);
/// True for rooted collectives (broadcast, reduce, gather, scatter): `-r` applies and the root column is
/// printed.
bool is_rooted(Collective c);
/// True for collectives that take a reduction op (allreduce, reducescatter, reduce); the others print `none`.
bool has_redop(Collective c);
/// True where nccl-tests checks the in-place result (false for sendrecv and alltoall, whose in-place #wrong
/// is N/A).
bool checks_in_place(Collective c);

/// busBw factor of DESIGN §3 for n ranks: 2(n−1)/n for allreduce; (n−1)/n for allgather, reducescatter,
/// alltoall, gather, scatter; 1 for broadcast, reduce, sendrecv. n = 1 gives 0 where an (n−1) factor applies.
/// @throws std::invalid_argument when n < 1.
double busbw_factor(Collective c, int nranks);

/// Buffer geometry of one sweep step, per nccl-tests `GetCollByteCount`.
struct CollGeometry {
  std::uint64_t count = 0;       ///< the `count` column: the count argument of the call (elements)
  std::uint64_t size_bytes = 0;  ///< the `size` column: max(send, recv) bytes per rank
  std::uint64_t send_count = 0;  ///< elements in each rank's send buffer
  std::uint64_t recv_count = 0;  ///< elements in each rank's receive buffer
};

/// Geometry for a requested size: count = requested/elt, split collectives round the per-rank chunk down to a
/// multiple of 16 bytes ((count/n) & ~(16/elt − 1)), so size can print smaller than requested, or 0.
/// @throws std::invalid_argument when nranks < 1.
CollGeometry geometry(Collective c, Dtype d, std::uint64_t requested_bytes, int nranks);

/// algBw in GB/s (1e9 bytes/s): size_bytes / 1e9 / seconds. 0 when seconds ≤ 0.
double algbw_gbps(std::uint64_t size_bytes, double seconds);
/// busBw in GB/s: algbw · busbw_factor(c, n).
double busbw_gbps(Collective c, int nranks, double algbw);

/// nccl-tests' `# Avg bus bandwidth` (nccl-tests src/common.cu:895-896, 1831): the plain
/// arithmetic mean of busBw over every block it is given — out-of-place and in-place, every size, type, op,
/// root and cycle — summed in the order added and divided once. The one average rule of fabcheck:
/// the sweep probe's SweepBlock::avg_busbw_gbps, the console footer, and the importers' recomputation all
/// use it; the HTML and compare only read the stored value.
class BusbwMean {
 public:
  /// Adds one block's busBw (GB/s).
  void add(double busbw_gbps) {
    sum_ += busbw_gbps;
    ++count_;
  }
  /// Blocks added.
  std::size_t count() const { return count_; }
  /// The mean; nullopt when no block was added (nccl-tests prints 0/0 then).
  std::optional<double> value() const {
    if (count_ == 0) return std::nullopt;
    return sum_ / static_cast<double>(count_);
  }

 private:
  double sum_ = 0;
  std::size_t count_ = 0;
};

}  // namespace fabcheck::core
