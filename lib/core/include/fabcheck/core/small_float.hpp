#pragma once
/// @file A floating-point element narrower than float (binary16, bfloat16, fp8), stored as its bits, for the
/// host side of the data check. Arithmetic goes through float and is rounded back after every operation
/// (`Traits::to_bits`), which is what a device reduction of two such values gives: NCCL reduces half and fp8
/// in half precision and converts each result back (src/device/reduce_kernel.h, SPECIALIZE_REDUCE). Exact for
/// the data check's values (small integers and powers of two, see exact_integer_limit()).
#include <type_traits>

namespace fabcheck::core {

/// A narrow float stored as its bits. `Traits` gives `Bits` (the storage integer) and to_bits/from_bits.
template <class Traits>
struct SmallFloat {
  using Bits = typename Traits::Bits;
  Bits bits = 0;  ///< raw bits, as the device stores them

  constexpr SmallFloat() = default;
  /// Converts any arithmetic value via float (rounded as Traits::to_bits rounds).
  template <class U, class = std::enable_if_t<std::is_arithmetic_v<U>>>
  explicit SmallFloat(U v) : bits(Traits::to_bits(static_cast<float>(v))) {}

  /// The value as a float (exact: every such value is a float).
  float to_float() const { return Traits::from_bits(bits); }
  /// The value as any arithmetic type.
  template <class U, class = std::enable_if_t<std::is_arithmetic_v<U>>>
  explicit operator U() const {
    return static_cast<U>(to_float());
  }

  /// Sum, rounded to this type.
  friend SmallFloat operator+(SmallFloat a, SmallFloat b) { return SmallFloat(a.to_float() + b.to_float()); }
  /// Product, rounded to this type.
  friend SmallFloat operator*(SmallFloat a, SmallFloat b) { return SmallFloat(a.to_float() * b.to_float()); }
  /// Numeric comparisons (IEEE: NaN compares unequal, +0 == −0).
  friend bool operator==(SmallFloat a, SmallFloat b) { return a.to_float() == b.to_float(); }
  friend bool operator!=(SmallFloat a, SmallFloat b) { return !(a == b); }
  friend bool operator<(SmallFloat a, SmallFloat b) { return a.to_float() < b.to_float(); }
};

/// A SmallFloat (binary16, bfloat16, fp8): arithmetic through float, stored as `bits`.
template <class T>
concept NarrowFloat = requires(T t) {
  t.to_float();
  t.bits;
};

/// Traits of a narrow float from its two conversions (float → bits, rounded as the format rounds; bits →
/// float, exact).
template <class B, B (*ToBits)(float), float (*FromBits)(B)>
struct BitsTraits {
  using Bits = B;
  static B to_bits(float f) { return ToBits(f); }
  static float from_bits(B b) { return FromBits(b); }
};

}  // namespace fabcheck::core
