// fabcheck's fp8 conversions (core/fp8.hpp: the data check's host arithmetic for f8e4m3/f8e5m2) against
// CUDA's own host implementation in cuda_fp8.h (__nv_cvt_float_to_fp8 with __NV_SATFINITE, which NCCL's
// reductions use when they convert a result back to fp8, and __nv_cvt_fp8_to_halfraw). Built only where the
// CUDA headers are found (the NCCL backend's build); header-only, no GPU needed.
#include <cuda_fp8.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "fabcheck/core/fp8.hpp"

namespace {

std::uint8_t ours(float f, bool e5m2) {
  return e5m2 ? fabcheck::core::float_to_e5m2_bits(f) : fabcheck::core::float_to_e4m3_bits(f);
}
std::uint8_t cudas(float f, bool e5m2) {
  return static_cast<std::uint8_t>(__nv_cvt_float_to_fp8(f, __NV_SATFINITE, e5m2 ? __NV_E5M2 : __NV_E4M3));
}

}  // namespace

TEST(Fp8VsCuda, EncodeSpreadOverEveryFloat) {
  long checked = 0;
  for (std::uint64_t u = 0; u < (std::uint64_t{1} << 32); u += 4099) {  // a stride over every bit pattern
    const auto bits = static_cast<std::uint32_t>(u);
    float f = 0;
    std::memcpy(&f, &bits, sizeof f);
    // NaN included: CUDA makes every NaN +NaN, 0x7F in both formats, as ours does
    for (bool e5m2 : {false, true})
      ASSERT_EQ(ours(f, e5m2), cudas(f, e5m2)) << std::hexfloat << f << " e5m2 " << e5m2;
    ++checked;
  }
  EXPECT_GT(checked, 1000000);
}

TEST(Fp8VsCuda, EncodeAtEveryValueAndMidpoint) {
  for (bool e5m2 : {false, true}) {
    for (int k = 0; k < 0x7F; ++k) {
      const auto from = e5m2 ? fabcheck::core::e5m2_bits_to_float : fabcheck::core::e4m3_bits_to_float;
      const float lo = from(static_cast<std::uint8_t>(k));
      float hi = from(static_cast<std::uint8_t>(k + 1));
      if (!std::isfinite(hi)) hi = lo * 1.25f;  // above the largest finite value: saturation
      const float mid = (lo + hi) / 2;
      for (float f : {lo, hi, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
        ASSERT_EQ(ours(f, e5m2), cudas(f, e5m2)) << std::hexfloat << f << " e5m2 " << e5m2;
        ASSERT_EQ(ours(-f, e5m2), cudas(-f, e5m2)) << std::hexfloat << -f << " e5m2 " << e5m2;
      }
    }
  }
}

TEST(Fp8VsCuda, DecodeEveryBitPattern) {
  for (bool e5m2 : {false, true}) {
    for (int k = 0; k < 256; ++k) {
      const __half_raw h =
          __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(k), e5m2 ? __NV_E5M2 : __NV_E4M3);
      const float ref = __half2float(__half(h));
      const float got = e5m2 ? fabcheck::core::e5m2_bits_to_float(static_cast<std::uint8_t>(k))
                             : fabcheck::core::e4m3_bits_to_float(static_cast<std::uint8_t>(k));
      if (std::isnan(ref)) {
        EXPECT_TRUE(std::isnan(got)) << k;
      } else {
        EXPECT_EQ(got, ref) << "bits " << k << " e5m2 " << e5m2;
      }
    }
  }
}
