#pragma once
/// @file The host element type of each Dtype (the one map from `-d` names to C++ types: int8_t … double,
/// core::Half, core::BFloat16, core::Fp8E4M3, core::Fp8E5M2) and the average's division, for the code that
/// handles buffers type by type (the data check, the mpi backend's average, the nccl backend's mulsum
/// scalar).
#include <cstdint>
#include <type_traits>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/fp8.hpp"
#include "fabcheck/core/half.hpp"

namespace fabcheck::core {

/// Calls `f(T{})` with T the host element type of `d`.
template <class F>
void visit_dtype(Dtype d, F&& f) {
  switch (d) {
    case Dtype::kInt8:
      return f(std::int8_t{});
    case Dtype::kUint8:
      return f(std::uint8_t{});
    case Dtype::kInt32:
      return f(std::int32_t{});
    case Dtype::kUint32:
      return f(std::uint32_t{});
    case Dtype::kInt64:
      return f(std::int64_t{});
    case Dtype::kUint64:
      return f(std::uint64_t{});
    case Dtype::kFloat:
      return f(float{});
    case Dtype::kDouble:
      return f(double{});
    case Dtype::kHalf:
      return f(Half{});
    case Dtype::kBfloat16:
      return f(BFloat16{});
    case Dtype::kF8e4m3:
      return f(Fp8E4M3{});
    case Dtype::kF8e5m2:
      return f(Fp8E5M2{});
  }
}

/// ncclAvg's result from the exact sum `sum` of `nranks` values, divided once: integers truncate, as C
/// division and NCCL's integer average do; floating types round once, the narrow ones through float (their
/// arithmetic, SmallFloat). The mpi backend's average (MPI has no average op: summed, then divided) and the
/// data check's expectation of it.
template <class T>
T divide_once(T sum, int nranks) {
  if constexpr (NarrowFloat<T>) {
    return T(sum.to_float() / static_cast<float>(nranks));
  } else {
    return static_cast<T>(sum / static_cast<T>(nranks));
  }
}

}  // namespace fabcheck::core
