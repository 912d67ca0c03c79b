// NCCL's reductions on the host (nccl_standin_reduce.hpp). Narrow floats use CUDA's own host conversions
// (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h), independent of fabcheck's core conversions that compute the
// expected values.
#include "nccl_standin_reduce.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace standin {
namespace {

template <typename T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
void store(char* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// Native types: integers wrap (computed unsigned), floats in their own precision.
template <typename T, bool = std::is_integral_v<T>>
struct Wrapping {
  using type = T;
};
template <typename T>
struct Wrapping<T, true> {
  using type = std::make_unsigned_t<T>;
};

template <typename T>
T combine(RedKind op, T a, T b) {
  using U = typename Wrapping<T>::type;
  switch (op) {
    case RedKind::kSum:
    case RedKind::kSumPostDiv:
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    case RedKind::kProd:
      if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(static_cast<std::uint64_t>(static_cast<U>(a)) * static_cast<U>(b));
      } else {
        return a * b;
      }
    case RedKind::kMax:
      return std::max(a, b);
    case RedKind::kMin:
      return std::min(a, b);
  }
  return a;
}

template <typename T>
void reduce_native(RedKind op, const std::vector<const char*>& in, char* out, std::size_t count,
                   long divisor) {
  for (std::size_t i = 0; i < count; ++i) {
    T acc = load<T>(in[0] + i * sizeof(T));
    for (std::size_t r = 1; r < in.size(); ++r) acc = combine<T>(op, acc, load<T>(in[r] + i * sizeof(T)));
    if (op == RedKind::kSumPostDiv) {  // the divisor is never narrowed to T (NCCL keeps nranks in 31 bits)
      if constexpr (std::is_signed_v<T>) {
        acc = static_cast<T>(static_cast<std::int64_t>(acc) / static_cast<std::int64_t>(divisor));
      } else {
        acc = static_cast<T>(static_cast<std::uint64_t>(acc) / static_cast<std::uint64_t>(divisor));
      }
    }
    store<T>(out + i * sizeof(T), acc);
  }
}

// Narrow floats: the value as double, and back rounded as the type rounds.
double narrow_load(ncclDataType_t dt, const char* p) {
  switch (dt) {
    case ncclFloat16:
      return static_cast<double>(__half2float(load<__half>(p)));
    case ncclBfloat16:
      return static_cast<double>(__bfloat162float(load<__nv_bfloat16>(p)));
    case ncclFloat8e4m3:
    case ncclFloat8e5m2: {
      const __half_raw h =
          __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(static_cast<unsigned char>(*p)),
                                  dt == ncclFloat8e4m3 ? __NV_E4M3 : __NV_E5M2);
      return static_cast<double>(__half2float(__half(h)));
    }
    default:
      return 0;
  }
}
void narrow_store(ncclDataType_t dt, char* p, double v) {
  switch (dt) {
    case ncclFloat16:
      store<__half>(p, __double2half(v));
      return;
    case ncclBfloat16:
      store<__nv_bfloat16>(p, __double2bfloat16(v));
      return;
    case ncclFloat8e4m3:
    case ncclFloat8e5m2: {  // NCCL: the half result converted with __NV_SATFINITE
      const __half_raw h = __half(__double2half(v));
      *p = static_cast<char>(
          __nv_cvt_halfraw_to_fp8(h, __NV_SATFINITE, dt == ncclFloat8e4m3 ? __NV_E4M3 : __NV_E5M2));
      return;
    }
    default:
      return;
  }
}

void reduce_narrow(ncclDataType_t dt, RedKind op, const std::vector<const char*>& in, char* out,
                   std::size_t count) {
  const std::size_t b = dtype_bytes(dt);
  std::vector<char> tmp(b);
  for (std::size_t i = 0; i < count; ++i) {
    std::memcpy(tmp.data(), in[0] + i * b, b);
    for (std::size_t r = 1; r < in.size(); ++r) {
      const double x = narrow_load(dt, tmp.data());
      const double y = narrow_load(dt, in[r] + i * b);
      switch (op) {
        case RedKind::kSum:
        case RedKind::kSumPostDiv:
          narrow_store(dt, tmp.data(), x + y);
          break;
        case RedKind::kProd:
          narrow_store(dt, tmp.data(), x * y);
          break;
        case RedKind::kMax:
          if (y > x) std::memcpy(tmp.data(), in[r] + i * b, b);
          break;
        case RedKind::kMin:
          if (y < x) std::memcpy(tmp.data(), in[r] + i * b, b);
          break;
      }
    }
    std::memcpy(out + i * b, tmp.data(), b);
  }
}

template <typename F>
void visit_native(ncclDataType_t dt, F&& f) {
  switch (dt) {
    case ncclInt8:
      f(std::int8_t{});
      break;
    case ncclUint8:
      f(std::uint8_t{});
      break;
    case ncclInt32:
      f(std::int32_t{});
      break;
    case ncclUint32:
      f(std::uint32_t{});
      break;
    case ncclInt64:
      f(std::int64_t{});
      break;
    case ncclUint64:
      f(std::uint64_t{});
      break;
    case ncclFloat32:
      f(float{});
      break;
    case ncclFloat64:
      f(double{});
      break;
    default:
      break;
  }
}

bool is_narrow(ncclDataType_t dt) {
  return dt == ncclFloat16 || dt == ncclBfloat16 || dt == ncclFloat8e4m3 || dt == ncclFloat8e5m2;
}

}  // namespace

std::size_t dtype_bytes(ncclDataType_t dt) {
  switch (dt) {
    case ncclInt8:
    case ncclUint8:
    case ncclFloat8e4m3:
    case ncclFloat8e5m2:
      return 1;
    case ncclFloat16:
    case ncclBfloat16:
      return 2;
    case ncclInt32:
    case ncclUint32:
    case ncclFloat32:
      return 4;
    case ncclInt64:
    case ncclUint64:
    case ncclFloat64:
      return 8;
    default:
      return 0;
  }
}

bool is_floating(ncclDataType_t dt) {
  return is_narrow(dt) || dt == ncclFloat32 || dt == ncclFloat64;
}

void reduce(ncclDataType_t dt, RedKind op, const std::vector<const char*>& in, char* out, std::size_t count,
            long divisor) {
  if (is_narrow(dt)) return reduce_narrow(dt, op, in, out, count);
  visit_native(dt, [&](auto tag) { reduce_native<decltype(tag)>(op, in, out, count, divisor); });
}

void premultiply(ncclDataType_t dt, char* p, std::size_t count, const unsigned char* scalar) {
  if (is_narrow(dt)) {
    const double s = narrow_load(dt, reinterpret_cast<const char*>(scalar));
    const std::size_t b = dtype_bytes(dt);
    for (std::size_t i = 0; i < count; ++i) narrow_store(dt, p + i * b, narrow_load(dt, p + i * b) * s);
    return;
  }
  visit_native(dt, [&](auto tag) {
    using T = decltype(tag);
    const T s = load<T>(reinterpret_cast<const char*>(scalar));
    for (std::size_t i = 0; i < count; ++i)
      store<T>(p + i * sizeof(T), combine<T>(RedKind::kProd, load<T>(p + i * sizeof(T)), s));
  });
}

void inverse_scalar(ncclDataType_t dt, int nranks, unsigned char* out) {
  const float f = static_cast<float>(1.0 / nranks);
  switch (dt) {
    case ncclFloat32:
      store<float>(reinterpret_cast<char*>(out), f);
      break;
    case ncclFloat64:
      store<double>(reinterpret_cast<char*>(out), 1.0 / nranks);
      break;
    case ncclFloat8e4m3:  // straight from float, as NCCL (v2.28.9 src/enqueue.cc:2297-2301)
    case ncclFloat8e5m2:
      *out = static_cast<unsigned char>(
          __nv_cvt_float_to_fp8(f, __NV_SATFINITE, dt == ncclFloat8e4m3 ? __NV_E4M3 : __NV_E5M2));
      break;
    default:  // half, bfloat16: float(1.0/n) rounded to the type
      narrow_store(dt, reinterpret_cast<char*>(out), static_cast<double>(f));
      break;
  }
}

}  // namespace standin
