#include "fabcheck/core/collective.hpp"

#include <stdexcept>

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

std::string_view name(Collective c) {
  switch (c) {
    case Collective::kAllReduce:
      return "allreduce";
    case Collective::kAllGather:
      return "allgather";
    case Collective::kReduceScatter:
      return "reducescatter";
    case Collective::kAllToAll:
      return "alltoall";
    case Collective::kBroadcast:
      return "broadcast";
    case Collective::kReduce:
      return "reduce";
    case Collective::kSendRecv:
      return "sendrecv";
    case Collective::kGather:
      return "gather";
    case Collective::kScatter:
      return "scatter";
  }
  return "?";
}

std::string_view nccl_tests_binary(Collective c) {
  switch (c) {
    case Collective::kAllReduce:
      return "all_reduce_perf";
    case Collective::kAllGather:
      return "all_gather_perf";
    case Collective::kReduceScatter:
      return "reduce_scatter_perf";
    case Collective::kAllToAll:
      return "alltoall_perf";
    case Collective::kBroadcast:
      return "broadcast_perf";
    case Collective::kReduce:
      return "reduce_perf";
    case Collective::kSendRecv:
      return "sendrecv_perf";
    case Collective::kGather:
      return "gather_perf";
    case Collective::kScatter:
      return "scatter_perf";
  }
  return "?";
}

std::string_view name(Dtype d) {
  switch (d) {
    case Dtype::kInt8:
      return "int8";
    case Dtype::kUint8:
      return "uint8";
    case Dtype::kInt32:
      return "int32";
    case Dtype::kUint32:
      return "uint32";
    case Dtype::kInt64:
      return "int64";
    case Dtype::kUint64:
      return "uint64";
    case Dtype::kFloat:
      return "float";
    case Dtype::kDouble:
      return "double";
    case Dtype::kHalf:
      return "half";
    case Dtype::kBfloat16:
      return "bfloat16";
    case Dtype::kF8e4m3:
      return "f8e4m3";
    case Dtype::kF8e5m2:
      return "f8e5m2";
  }
  return "?";
}

std::string_view name(RedOp o) {
  switch (o) {
    case RedOp::kSum:
      return "sum";
    case RedOp::kProd:
      return "prod";
    case RedOp::kMin:
      return "min";
    case RedOp::kMax:
      return "max";
    case RedOp::kAvg:
      return "avg";
    case RedOp::kMulSum:
      return "mulsum";
  }
  return "?";
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
  switch (d) {
    case Dtype::kInt8:
    case Dtype::kUint8:
    case Dtype::kF8e4m3:
    case Dtype::kF8e5m2:
      return 1;
    case Dtype::kHalf:
    case Dtype::kBfloat16:
      return 2;
    case Dtype::kInt32:
    case Dtype::kUint32:
    case Dtype::kFloat:
      return 4;
    case Dtype::kInt64:
    case Dtype::kUint64:
    case Dtype::kDouble:
      return 8;
  }
  return 1;
}

std::uint64_t exact_integer_limit(Dtype d) {
  switch (d) {
    case Dtype::kHalf:
      return std::uint64_t{1} << 11;
    case Dtype::kBfloat16:
      return std::uint64_t{1} << 8;
    case Dtype::kFloat:
      return std::uint64_t{1} << 24;
    case Dtype::kDouble:
      return std::uint64_t{1} << 53;
    case Dtype::kF8e4m3:
      return std::uint64_t{1} << 4;
    case Dtype::kF8e5m2:
      return std::uint64_t{1} << 3;
    default:
      return 0;
  }
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
  CollGeometry g;
  switch (c) {
    case Collective::kAllReduce:
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendRecv:
      g.count = g.send_count = g.recv_count = count;
      g.size_bytes = count * elt;
      break;
    case Collective::kAllGather:
    case Collective::kGather: {
      const std::uint64_t base = (count / n) & align_mask;
      g.count = g.send_count = base;
      g.recv_count = base * n;
      g.size_bytes = base * n * elt;
      break;
    }
    case Collective::kReduceScatter:
    case Collective::kScatter: {
      const std::uint64_t base = (count / n) & align_mask;
      g.count = g.recv_count = base;
      g.send_count = base * n;
      g.size_bytes = base * n * elt;
      break;
    }
    case Collective::kAllToAll: {
      const std::uint64_t base = (count / n) & align_mask;
      g.count = base;
      g.send_count = g.recv_count = base * n;
      g.size_bytes = base * n * elt;
      break;
    }
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
