#pragma once
/// @file A value per enumerator from a table in declaration order: the one lookup behind the enum-to-name and
/// enum-to-handle maps (core::name(Collective), the mpi backend's MPI_Datatype of a Dtype, …), so each map is
/// its table and nothing else.
#include <array>
#include <cstddef>

namespace fabcheck::core {

/// `table[e]`, the enumerators of E numbered 0, 1, … as declared (the table lists them in that order);
/// `fallback` for a value outside the table.
template <class E, class V, std::size_t N>
constexpr V enum_lookup(const std::array<V, N>& table, E e, V fallback) {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? table[i] : fallback;
}

}  // namespace fabcheck::core
