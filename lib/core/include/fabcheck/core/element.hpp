#pragma once
/// @file The host element type of each Dtype (the one map from `-d` names to C++ types: int8_t … double,
/// core::Half, core::BFloat16, core::Fp8E4M3, core::Fp8E5M2) and the average's division, for the code that
/// handles buffers type by type (the data check, the mpi backend's average, the nccl backend's mulsum
/// scalar).
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/fp8.hpp"
#include "fabcheck/core/half.hpp"

namespace fabcheck::core {

/// The host element type of each Dtype, in Dtype order.
using DtypeElements = std::tuple<std::int8_t, std::uint8_t, std::int32_t, std::uint32_t, std::int64_t,
                                 std::uint64_t, float, double, Half, BFloat16, Fp8E4M3, Fp8E5M2>;
static_assert(std::tuple_size_v<DtypeElements> == static_cast<std::size_t>(Dtype::kF8e5m2) + 1);

namespace detail {
template <class F, std::size_t... I>
void visit_element(std::size_t i, F& f, std::index_sequence<I...>) {
  (void)((i == I && (f(std::tuple_element_t<I, DtypeElements>{}), true)) || ...);
}
}  // namespace detail

/// Calls `f(T{})` with T the host element type of `d` (none for a value outside Dtype).
template <class F>
void visit_dtype(Dtype d, F&& f) {
  detail::visit_element(static_cast<std::size_t>(d), f,
                        std::make_index_sequence<std::tuple_size_v<DtypeElements>>{});
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
