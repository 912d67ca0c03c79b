#include "fabcheck/core/collective.hpp"

#include <array>
#include <stdexcept>

#include "fabcheck/core/enum_table.hpp"

namespace fabcheck::core {

const std::vector<Collective>& all_collectives() {
  static const std::vector<Collective> v = {
      Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter,
      Collective::kAllToAll,  Collective::kBroadcast, Collective::kReduce,
      Collective::kSendRecv,  Collective::kGather,    Collective::kScatter};
  return v;
}
const std::vector<Dtype>& all_dtypes() {
  static const std::vector<Dtype> v = {Dtype::kInt8,   Dtype::kUint8,   Dtype::kInt32, Dtype::kUint32,
                                       Dtype::kInt64,  Dtype::kUint64,  Dtype::kHalf,  Dtype::kFloat,
                                       Dtype::kDouble, Dtype::kBfloat16};
  return v;
}
const std::vector<Dtype>& fp8_dtypes() {
  static const std::vector<Dtype> v = {Dtype::kF8e4m3, Dtype::kF8e5m2};
  return v;
}
bool is_fp8(Dtype d) {
  return d == Dtype::kF8e4m3 || d == Dtype::kF8e5m2;
}
const std::vector<RedOp>& all_redops() {
  static const std::vector<RedOp> v = {RedOp::kSum, RedOp::kProd, RedOp::kMin, RedOp::kMax, RedOp::kAvg};
  return v;
}

namespace {

// Each table lists its enum's values in declaration order (enum_lookup).
constexpr std::array<std::string_view, 9> kCollectiveNames = {"allreduce", "allgather", "reducescatter",
                                                              "alltoall",  "broadcast", "reduce",
                                                              "sendrecv",  "gather",    "scatter"};
constexpr std::array<std::string_view, 9> kNcclTestsBinaries = {
    "all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "alltoall_perf", "broadcast_perf",
    "reduce_perf",     "sendrecv_perf",   "gather_perf",         "scatter_perf"};
constexpr std::array<std::string_view, 12> kDtypeNames = {"int8",  "uint8",    "int32",  "uint32",
                                                          "int64", "uint64",   "float",  "double",
                                                          "half",  "bfloat16", "f8e4m3", "f8e5m2"};
constexpr std::array<std::size_t, 12> kDtypeSizes = {1, 1, 4, 4, 8, 8, 4, 8, 2, 2, 1, 1};
// The floating types' 2^(significand bits); 0 for the integer types.
constexpr std::uint64_t kOne = 1;
constexpr std::array<std::uint64_t, 12> kExactIntegerLimits = {
    0, 0, 0, 0, 0, 0, kOne << 24, kOne << 53, kOne << 11, kOne << 8, kOne << 4, kOne << 3};
constexpr std::array<std::string_view, 6> kRedOpNames = {"sum", "prod", "min", "max", "avg", "mulsum"};
static_assert(kCollectiveNames.size() == static_cast<std::size_t>(Collective::kScatter) + 1);
static_assert(kDtypeNames.size() == static_cast<std::size_t>(Dtype::kF8e5m2) + 1);
static_assert(kRedOpNames.size() == static_cast<std::size_t>(RedOp::kMulSum) + 1);

}  // namespace

std::string_view name(Collective c) {
  return enum_lookup(kCollectiveNames, c, std::string_view("?"));
}

std::string_view nccl_tests_binary(Collective c) {
  return enum_lookup(kNcclTestsBinaries, c, std::string_view("?"));
}

std::string_view name(Dtype d) {
  return enum_lookup(kDtypeNames, d, std::string_view("?"));
}

std::string_view name(RedOp o) {
  return enum_lookup(kRedOpNames, o, std::string_view("?"));
}

std::optional<Collective> parse_collective(std::string_view s) {
  for (Collective c : all_collectives()) {
    if (s == name(c) || s == nccl_tests_binary(c)) return c;
  }
  if (s == "all_reduce") return Collective::kAllReduce;
  if (s == "all_gather") return Collective::kAllGather;
  if (s == "reduce_scatter") return Collective::kReduceScatter;
  if (s == "all_to_all") return Collective::kAllToAll;
  if (s == "send_recv") return Collective::kSendRecv;
  return std::nullopt;
}

std::optional<Dtype> parse_dtype(std::string_view s) {
  for (Dtype d : all_dtypes()) {
    if (s == name(d)) return d;
  }
  for (Dtype d : fp8_dtypes()) {
    if (s == name(d)) return d;
  }
  if (s == "char") return Dtype::kInt8;
  if (s == "int") return Dtype::kInt32;
  if (s == "float32") return Dtype::kFloat;
  if (s == "float64") return Dtype::kDouble;
  if (s == "float16" || s == "fp16") return Dtype::kHalf;
  if (s == "bf16") return Dtype::kBfloat16;
  return std::nullopt;
}

std::optional<RedOp> parse_redop(std::string_view s) {
  for (RedOp o : all_redops()) {
    if (s == name(o)) return o;
  }
  if (s == name(RedOp::kMulSum)) return RedOp::kMulSum;
  return std::nullopt;
}

std::size_t dtype_size(Dtype d) {
  return enum_lookup(kDtypeSizes, d, std::size_t{1});
}

std::uint64_t exact_integer_limit(Dtype d) {
  return enum_lookup(kExactIntegerLimits, d, std::uint64_t{0});
}

bool is_rooted(Collective c) {
  return c == Collective::kBroadcast || c == Collective::kReduce || c == Collective::kGather ||
         c == Collective::kScatter;
}

bool has_redop(Collective c) {
  return c == Collective::kAllReduce || c == Collective::kReduceScatter || c == Collective::kReduce;
}

bool checks_in_place(Collective c) {
  return c != Collective::kSendRecv && c != Collective::kAllToAll;
}

double busbw_factor(Collective c, int n) {
  if (n < 1) throw std::invalid_argument("busbw_factor: nranks must be >= 1");
  const double nd = n;
  switch (c) {
    case Collective::kAllReduce:
      return 2.0 * (nd - 1.0) / nd;
    case Collective::kAllGather:
    case Collective::kReduceScatter:
    case Collective::kAllToAll:
    case Collective::kGather:
    case Collective::kScatter:
      return (nd - 1.0) / nd;
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendRecv:
      return 1.0;
  }
  return 1.0;
}

CollGeometry geometry(Collective c, Dtype d, std::uint64_t requested_bytes, int nranks) {
  if (nranks < 1) throw std::invalid_argument("geometry: nranks must be >= 1");
  const std::uint64_t elt = dtype_size(d);
  const std::uint64_t n = static_cast<std::uint64_t>(nranks);
  const std::uint64_t count = requested_bytes / elt;
  const std::uint64_t align_mask = ~((16u / elt) - 1u);
  // The block collectives move `base` elements per rank (count/n, aligned down to 16 bytes), n blocks in all
  // on the side that holds every rank's; the others move the whole count on both sides.
  const std::uint64_t base = (count / n) & align_mask;
  CollGeometry g;
  g.count = base;
  g.send_count = g.recv_count = base * n;
  g.size_bytes = base * n * elt;
  switch (c) {
    case Collective::kAllReduce:
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendRecv:
      g.count = g.send_count = g.recv_count = count;
      g.size_bytes = count * elt;
      break;
    case Collective::kAllGather:
    case Collective::kGather:
      g.send_count = base;
      break;
    case Collective::kReduceScatter:
    case Collective::kScatter:
      g.recv_count = base;
      break;
    case Collective::kAllToAll:
      break;
  }
  return g;
}

double algbw_gbps(std::uint64_t size_bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(size_bytes) / 1.0e9 / seconds : 0.0;
}

double busbw_gbps(Collective c, int nranks, double algbw) {
  return algbw * busbw_factor(c, nranks);
}

}  // namespace fabcheck::core
