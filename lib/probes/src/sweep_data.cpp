// The sweep's exact data check (DESIGN §3 `#wrong`): the input patterns (DataPattern, sweep.hpp), the
// expected reduction of each, and the count of elements that differ, for every dtype.
#include "sweep_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "fabcheck/comm/nccl_support.hpp"
#include "fabcheck/core/element.hpp"

namespace fabcheck::probes {

using core::Collective;
using core::Dtype;
using core::NarrowFloat;
using core::RedOp;
using detail::CheckPlan;

// Data: small integers chosen so that every reduction is exactly predictable in every dtype (data_pattern()
// in sweep.hpp has the rules). Sums stay at or below sum_limit(dtype) in every partial sum (no integer
// overflow, no floating rounding), so any summation order gives the same exact value; products of powers of
// two are exact (or +inf in every order in the floating types that have it).

/// The largest integer every partial sum of `d` may reach: the floating types' exact-integer limit, the
/// integer types' largest value. No integer sum overflows: MPI leaves overflow undefined, and Open MPI 4.1's
/// AVX-512 reductions (mca op/avx) saturate where C wraps (open-mpi/ompi#8045, "wontfix") — measured here:
/// int8 sum of 64 elements on 16 ranks, 1024 of 1024 elements off with op/avx, 0 with `--mca op ^avx`.
static std::uint64_t sum_limit(Dtype d) {
  if (const std::uint64_t limit = core::exact_integer_limit(d); limit > 0) return limit;
  std::uint64_t max = 0;
  core::visit_dtype(d, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>) max = static_cast<std::uint64_t>(std::numeric_limits<T>::max());
  });
  return max;
}

/// The most factors of 2 a product may hold in `d` so that it stays exact and finite: 8 for E4M3 (2^8 = 256
/// <= 448), 15 for E5M2 (2^15 = 32768 <= 57344), and for the integer types the largest power of two they hold
/// (6 for int8 ... 63 for uint64: no overflow, see sum_limit); 0 = no bound (binary16, bfloat16, float and
/// double overflow to +inf in every order alike).
static std::uint64_t prod_twos_limit(Dtype d) {
  if (d == Dtype::kF8e4m3) return 8;
  if (d == Dtype::kF8e5m2) return 15;
  if (core::exact_integer_limit(d) > 0) return 0;
  std::uint64_t k = 0;
  for (std::uint64_t limit = sum_limit(d); limit > 1; limit /= 2) ++k;
  return k;
}

DataPattern data_pattern(Dtype d, bool prod, int nranks) {
  if (nranks < 1) throw std::invalid_argument("data_pattern: nranks must be >= 1");
  DataPattern p;
  p.prod = prod;
  if (prod) {
    // fp8 has no infinity to overflow into in every order alike (E4M3 saturates at 448), an integer product
    // must not overflow: at most prod_twos_limit(d) ranks hold a 2 at any index, so every partial product is
    // a power of two the type holds exactly.
    if (const std::uint64_t k = prod_twos_limit(d); k > 0) {
      const auto n = static_cast<std::uint64_t>(nranks);
      p.stride = std::max<std::uint64_t>(3, (n + k - 1) / k);
    }
    return p;
  }
  const std::uint64_t limit = sum_limit(d);
  const auto n = static_cast<std::uint64_t>(nranks);
  if (31 * n <= limit) {
    p.modulus = 31;
  } else if (3 * n <= limit) {
    p.modulus = 3;
  } else if (n <= limit) {
    p.modulus = 1;
  } else {
    p.modulus = 1;
    p.stride = (n + limit - 1) / limit;  // at most ceil(n / stride) <= limit ranks hold a 1 at any index
  }
  return p;
}

DataPattern avg_data_pattern(Dtype d, int nranks) {
  if (nranks < 1) throw std::invalid_argument("avg_data_pattern: nranks must be >= 1");
  DataPattern p;
  p.avg = true;
  p.nranks = nranks;
  std::uint64_t limit = core::exact_integer_limit(d);
  if (limit > 0) {  // floating types: two contributors per index (nccl-tests' float average)
    p.pair = true;
    p.modulus = static_cast<std::uint32_t>(std::min<std::uint64_t>(31, limit / 2));
    return p;
  }
  limit = sum_limit(d);  // integer types: no sum may overflow (the average of a wrapped sum is not exact)
  const auto n = static_cast<std::uint64_t>(nranks);
  p.modulus = 32 * n <= limit ? 31 : 4 * n <= limit ? 3 : 2 * n <= limit ? 1 : 0;
  return p;
}

DataPattern pattern_for(Dtype d, std::optional<RedOp> op, int nranks) {
  if (op && *op == RedOp::kAvg) return avg_data_pattern(d, nranks);
  if (op && *op == RedOp::kMulSum) return data_pattern(d, false, 2 * nranks);
  return data_pattern(d, op && *op == RedOp::kProd, nranks);
}

std::uint32_t DataPattern::value(int rank, std::uint64_t i) const {
  const auto ru = static_cast<std::uint64_t>(rank);
  if (avg && pair) {
    const auto [a, b] = pair_ranks(i);
    if (rank == a) return 1u + static_cast<std::uint32_t>(i % modulus);
    if (rank == b) return 1u + static_cast<std::uint32_t>((7 * (i % modulus) + 3) % modulus);
    return 0;
  }
  if (avg) {
    if (modulus == 0) return 0;
    const auto c = 1u + static_cast<std::uint32_t>(i % modulus);
    const auto s = static_cast<std::uint32_t>(i % 2);
    if (ru % 2 == 0) return last_rank_unpaired(rank) ? c : c + s;
    return c - s;
  }
  if (prod) return (i + ru) % (stride > 0 ? stride : 3) == 0 ? 2u : 1u;
  if (stride > 0) return (i + ru) % stride == 0 ? 1u : 0u;
  return 1u + static_cast<std::uint32_t>((13 * (i % modulus) + 7 * (ru % modulus)) % modulus);
}

std::pair<int, int> DataPattern::pair_ranks(std::uint64_t i) const {
  const auto n = static_cast<std::uint64_t>(nranks);
  return {static_cast<int>(i % n), n < 2 ? -1 : static_cast<int>((i + 1) % n)};
}

bool DataPattern::last_rank_unpaired(int rank) const {
  return nranks % 2 == 1 && rank == nranks - 1;
}

std::uint64_t DataPattern::period() const {
  if (avg && pair) return static_cast<std::uint64_t>(nranks) * modulus;
  if (avg) return modulus == 0 ? 1 : (modulus % 2 == 0 ? modulus : 2 * modulus);
  if (prod) return stride > 0 ? stride : 3;
  return stride > 0 ? stride : modulus;
}

namespace {

template <class T>
T combine(T a, T b, RedOp op) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case RedOp::kSum:
      case RedOp::kAvg:     // reduction_table divides the exact sum
      case RedOp::kMulSum:  // reduction_table pre-multiplies each rank's value
        return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
      case RedOp::kProd:
        return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
      case RedOp::kMin:
        return std::min(a, b);
      case RedOp::kMax:
        return std::max(a, b);
    }
  } else {
    switch (op) {
      case RedOp::kSum:
      case RedOp::kAvg:
      case RedOp::kMulSum:
        return a + b;
      case RedOp::kProd:
        return a * b;
      case RedOp::kMin:
        return std::min(a, b);
      case RedOp::kMax:
        return std::max(a, b);
    }
  }
  return a;
}

template <class T>
void fill_pattern(T* dst, std::uint64_t n, const DataPattern& pat, int rank, std::uint64_t index0) {
  for (std::uint64_t k = 0; k < n; ++k) dst[k] = static_cast<T>(pat.value(rank, index0 + k));
}

/// The pair average (DataPattern::pair) of `va` on one rank and `vb` on another (`two` = false: one rank)
/// over `nranks` ranks, computed the way `how` says (comm::AvgArith: the backends' own arithmetic):
/// - kSumDivided (the mpi backend): the exact sum divided once (core::divide_once: through float for the
///   narrow types);
/// - kPremultiplied: NCCL's ncclDevPreMulSum with the scalar 1/nRanks converted to the type (src/enqueue.cc:
///   `__float2half(float(1.0 / comm->nRanks))`, `__float2bfloat16`,
///   `__nv_cvt_float_to_fp8(..., __NV_SATFINITE, ...)`, `float(1.0 / nRanks)`, `1.0 / nRanks`): every input
///   times the scalar, rounded to the type, then summed, rounded after each step
///   (src/device/reduce_kernel.h); the zeros of the other ranks add nothing;
/// - kScaledSum: NCCL's symmetric kernels (src/scheduler/symmetric_sched.cc: ncclDevSumPostDiv with
///   `f32 = float(1.0 / comm->nRanks)` for half and bfloat16, `f16 = __float2half(...)` for fp8): the sum in
///   the accumulator times the scalar, rounded to the accumulator, then to the type;
/// - kScaledSumInType: the same in the type with the type's scalar (its LDMC reduce-scatter).
/// Every sum and product here is exact before its rounding (small integers; at most 5 + 24 significant bits).
template <class T>
T pair_average(std::uint32_t va, std::uint32_t vb, bool two, int nranks, comm::AvgArith how) {
  if constexpr (std::is_integral_v<T>) {
    return T{};  // integer types use the exact-sum pattern (avg_data_pattern)
  } else {
    const std::uint32_t sum = two ? va + vb : va;  // exact in every type (<= its exact-integer limit)
    const double inv = 1.0 / nranks;
    const auto in_type = [&](double v) {  // 1/nranks converted to the type as NCCL converts it
      if constexpr (std::is_same_v<T, double>) {
        return v;
      } else {
        return static_cast<T>(static_cast<float>(v));
      }
    };
    switch (how) {
      case comm::AvgArith::kSumDivided:
        return core::divide_once(static_cast<T>(sum), nranks);
      case comm::AvgArith::kPremultiplied: {
        const T scalar = in_type(inv);
        const auto times = [&](std::uint32_t v) {
          return static_cast<T>(static_cast<double>(v) * static_cast<double>(scalar));
        };
        return two ? times(va) + times(vb) : times(va);
      }
      case comm::AvgArith::kScaledSum:
        if constexpr (std::is_same_v<T, double>) {
          return static_cast<double>(sum) * inv;
        } else if constexpr (std::is_same_v<T, core::Fp8E4M3> || std::is_same_v<T, core::Fp8E5M2>) {
          const core::Half product =
              core::Half(sum) * core::Half(static_cast<float>(inv));  // half accumulator
          return T(product.to_float());
        } else {
          return T(static_cast<float>(sum) * static_cast<float>(inv));  // float accumulator
        }
      case comm::AvgArith::kScaledSumInType:
        return static_cast<T>(sum) * in_type(inv);
    }
    return T{};
  }
}

/// The stride of a stride pattern — prod (2 where (i + r) mod s = 0) and the sparse sum (1 there) — or 0.
std::uint64_t special_stride(const DataPattern& pat) {
  if (pat.avg) return 0;
  if (pat.prod) return pat.stride > 0 ? pat.stride : 3;
  return pat.stride;
}

/// Every rank's value at index k (`value_of(q)`) combined with `op`. In a stride pattern only the ranks that
/// hold the special value are visited, plus one rank with the ordinary value (0 or 1: min/max need it, sum
/// and prod are unchanged by it): O(nranks / stride) instead of O(nranks) — a 32k-rank fp8 sum has stride
/// 2048 and a table of 2048 entries. The patterns are exact in every order (DataPattern), so the order of
/// visits is free.
template <class T, class V>
T fold_ranks(const DataPattern& pat, RedOp op, int nranks, std::uint64_t k, V&& value_of) {
  const std::uint64_t s = special_stride(pat);
  const auto n = static_cast<std::uint64_t>(nranks);
  std::optional<T> acc;
  const auto add = [&](std::uint64_t q) {
    const T v = value_of(static_cast<int>(q));
    acc = acc ? combine(*acc, v, op) : v;
  };
  if (s == 0) {
    for (std::uint64_t q = 0; q < n; ++q) add(q);
    return *acc;
  }
  const std::uint64_t r0 = (s - k % s) % s;  // the first rank with (k + r) mod s = 0
  std::uint64_t special = 0;
  for (std::uint64_t q = r0; q < n; q += s, ++special) add(q);
  if (special < n) add(r0 == 0 ? 1 : 0);  // an ordinary rank (s >= 2: rank 1 is not special when rank 0 is)
  return *acc;
}

/// Expected reduction over all ranks, per index modulo pat.period(); for the pair average, computed as `how`.
template <class T>
std::vector<T> reduction_table(const DataPattern& pat, RedOp op, int nranks, comm::AvgArith how) {
  std::vector<T> t(pat.period());
  if (op == RedOp::kAvg && pat.pair) {
    for (std::uint64_t k = 0; k < t.size(); ++k) {
      const auto [a, b] = pat.pair_ranks(k);
      t[k] = pair_average<T>(pat.value(a, k), b < 0 ? 0 : pat.value(b, k), b >= 0, nranks, how);
    }
    return t;
  }
  if (op == RedOp::kAvg) {  // the exact sum (no partial sum wraps or rounds: avg_data_pattern), divided
    for (std::uint64_t k = 0; k < t.size(); ++k) {
      std::uint64_t sum = 0;
      for (int q = 0; q < nranks; ++q) sum += pat.value(q, k);
      t[k] = static_cast<T>(sum / static_cast<std::uint64_t>(nranks));
    }
    return t;
  }
  if (op == RedOp::kMulSum) {  // Σ_q scalar(q)·x_q, each product exact (data_pattern for 2·nranks)
    for (std::uint64_t k = 0; k < t.size(); ++k) {
      t[k] = fold_ranks<T>(pat, RedOp::kSum, nranks, k, [&](int q) {
        return static_cast<T>(static_cast<std::uint64_t>(comm::nccl::premul_scalar(q)) * pat.value(q, k));
      });
    }
    return t;
  }
  for (std::uint64_t k = 0; k < t.size(); ++k)
    t[k] = fold_ranks<T>(pat, op, nranks, k, [&](int q) { return static_cast<T>(pat.value(q, k)); });
  return t;
}

/// Writes the input of one call into `host` (sized for the whole buffer) for this rank.
template <class T>
void init_input_as(T* host, std::uint64_t buf_elems, Collective c, const core::CollGeometry& g, bool in_place,
                   const DataPattern& pat, int rank) {
  std::fill(host, host + buf_elems, T{});
  const std::uint64_t cnt = g.count;
  if (in_place && (c == Collective::kAllGather || c == Collective::kGather)) {
    fill_pattern(host + static_cast<std::uint64_t>(rank) * cnt, cnt, pat, rank, 0);
    return;
  }
  fill_pattern(host, std::min(g.send_count, buf_elems), pat, rank, 0);
}

/// The storage bits of a floating value, as an unsigned integer (for the ulp distance).
template <class T>
std::uint64_t bits_of(T v) {
  if constexpr (NarrowFloat<T>) {
    return v.bits;
  } else {
    std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t> u = 0;
    std::memcpy(&u, &v, sizeof u);
    return u;
  }
}

/// |got − expect| in units in the last place, counted as nccl-tests counts them (verifiable.cu calcDelta):
/// the distance between the two bit patterns, i.e. how many representable values apart two same-signed
/// values are (0 for equal bits). NCCL's ncclAvg on floating types multiplies by 1/nranks in "an unspecified
/// floating point format" (nccl-tests' words); nccl-tests accepts 2 such units there in every floating type,
/// fp8 included, and so does this check, on both backends. ±0 and NaN compare as values.
template <class T>
bool within_ulps(T got, T expect, int ulps) {
  const double g = static_cast<double>(got), e = static_cast<double>(expect);
  if (g == e) return true;
  if (!std::isfinite(g) || !std::isfinite(e)) return false;
  const std::uint64_t a = bits_of(got), b = bits_of(expect);
  return (a < b ? b - a : a - b) <= static_cast<std::uint64_t>(ulps);
}

/// Counts elements of the result region that differ from the exact expectation. A floating average may
/// have been computed any of the ways in `ariths` (CollBackend::avg_ariths()): an element is right when it is
/// within the tolerance of one of them — 0 ulps when the only way is the exact sum divided once (the mpi
/// backend), else 2 as nccl-tests accepts on NCCL (verifiable.cu: "we could be off by a distance of 2
/// units").
template <class T>
std::uint64_t count_wrong_as(const T* got, const CheckPlan& p, Collective c, const core::CollGeometry& g,
                             const DataPattern& pat, RedOp op, int rank, int nranks, int root,
                             const std::vector<comm::AvgArith>& ariths) {
  if (p.elems == 0) return 0;
  const std::uint64_t cnt = g.count;
  const auto ru = static_cast<std::uint64_t>(rank);
  std::uint64_t wrong = 0;
  auto expect_value = [&](int src, std::uint64_t idx) { return static_cast<T>(pat.value(src, idx)); };
  switch (c) {
    case Collective::kAllReduce:
    case Collective::kReduce:
    case Collective::kReduceScatter: {
      const std::uint64_t base = c == Collective::kReduceScatter ? ru * cnt : 0;
      if constexpr (!std::is_integral_v<T>) {
        if (op == RedOp::kAvg && pat.pair) {
          const bool exact = ariths.size() == 1 && ariths[0] == comm::AvgArith::kSumDivided;
          const int ulps = exact ? 0 : 2;
          std::vector<std::vector<T>> tables;
          for (comm::AvgArith how : ariths) tables.push_back(reduction_table<T>(pat, op, nranks, how));
          for (std::uint64_t j = 0; j < p.elems; ++j) {
            const std::uint64_t k = (base + j) % tables[0].size();
            wrong += std::none_of(tables.begin(), tables.end(),
                                  [&](const std::vector<T>& t) { return within_ulps(got[j], t[k], ulps); });
          }
          break;
        }
      }
      const auto table = reduction_table<T>(pat, op, nranks, comm::AvgArith::kSumDivided);
      for (std::uint64_t j = 0; j < p.elems; ++j) wrong += !(got[j] == table[(base + j) % table.size()]);
      break;
    }
    case Collective::kAllGather:
    case Collective::kGather:
      for (std::uint64_t j = 0; j < p.elems; ++j) {
        wrong += !(got[j] == expect_value(static_cast<int>(j / cnt), j % cnt));
      }
      break;
    case Collective::kAllToAll:
      for (std::uint64_t j = 0; j < p.elems; ++j) {
        wrong += !(got[j] == expect_value(static_cast<int>(j / cnt), ru * cnt + j % cnt));
      }
      break;
    case Collective::kBroadcast:
      for (std::uint64_t j = 0; j < p.elems; ++j) wrong += !(got[j] == expect_value(root, j));
      break;
    case Collective::kScatter:
      for (std::uint64_t j = 0; j < p.elems; ++j) wrong += !(got[j] == expect_value(root, ru * cnt + j));
      break;
    case Collective::kSendRecv: {
      const int prev = (rank - 1 + nranks) % nranks;
      for (std::uint64_t j = 0; j < p.elems; ++j) wrong += !(got[j] == expect_value(prev, j));
      break;
    }
  }
  return wrong;
}

/// FABCHECK_TEST_FAULT corrupt: the first k elements changed so that any check sees them (integers + 1;
/// floating values −x − 1: a sign away, beyond any ulp tolerance, also in the 3-bit-significand fp8).
template <class T>
void corrupt_as(T* got, std::uint64_t elems, std::uint64_t k) {
  for (std::uint64_t j = 0; j < std::min(elems, k); ++j) {
    T x = got[j];
    T y;
    if constexpr (std::is_integral_v<T>) {
      y = static_cast<T>(x + T{1});
    } else {
      y = static_cast<T>(-static_cast<double>(x) - 1.0);
    }
    if (!(y != x)) y = T{0};
    if (!(y != x)) y = T{1};
    got[j] = y;
  }
}

}  // namespace

namespace detail {

CheckPlan plan_check(const comm::CollBackend& be, Collective c, const core::CollGeometry& g, bool in_place,
                     int rank, int nranks, int root, int check_rounds) {
  CheckPlan p;
  p.checked = check_rounds > 0 && (!in_place || core::checks_in_place(c));
  if (!p.checked) return p;
  const std::uint64_t cnt = g.count;
  const std::uint64_t n = static_cast<std::uint64_t>(nranks);
  switch (c) {
    case Collective::kAllReduce:
      p.elems = cnt;
      break;
    case Collective::kAllGather:
    case Collective::kAllToAll:
      p.elems = n * cnt;
      break;
    case Collective::kReduceScatter:
    case Collective::kScatter:
      p.elems = cnt;
      if (in_place) p.offset = be.in_place_result_offset(c, g, rank);
      break;
    case Collective::kBroadcast:
      p.elems = (in_place || rank != root) ? cnt : 0;
      break;
    case Collective::kReduce:
      p.elems = rank == root ? cnt : 0;
      break;
    case Collective::kSendRecv:
      p.elems = cnt;
      break;
    case Collective::kGather:
      p.elems = rank == root ? n * cnt : 0;
      break;
  }
  return p;
}

void init_input(Dtype d, void* host, std::uint64_t buf_elems, Collective c, const core::CollGeometry& g,
                bool in_place, const DataPattern& pat, int rank) {
  core::visit_dtype(d, [&](auto tag) {
    using T = decltype(tag);
    init_input_as(static_cast<T*>(host), buf_elems, c, g, in_place, pat, rank);
  });
}

std::uint64_t count_wrong(Dtype d, const void* got, const CheckPlan& plan, Collective c,
                          const core::CollGeometry& g, const DataPattern& pat, RedOp op, int rank, int nranks,
                          int root, const std::vector<comm::AvgArith>& ariths) {
  std::uint64_t wrong = 0;
  core::visit_dtype(d, [&](auto tag) {
    using T = decltype(tag);
    wrong = count_wrong_as(static_cast<const T*>(got), plan, c, g, pat, op, rank, nranks, root, ariths);
  });
  return wrong;
}

void corrupt(Dtype d, void* got, std::uint64_t elems, std::uint64_t k) {
  core::visit_dtype(d, [&](auto tag) {
    using T = decltype(tag);
    corrupt_as(static_cast<T*>(got), elems, k);
  });
}

}  // namespace detail

double expected_average(Dtype d, const DataPattern& p, std::uint64_t i, comm::AvgArith how) {
  if (!p.avg || !p.pair) throw std::invalid_argument("expected_average: not a pair-average pattern");
  double out = 0;
  core::visit_dtype(d, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_integral_v<T>) {
      const auto [a, b] = p.pair_ranks(i);
      out = static_cast<double>(
          pair_average<T>(p.value(a, i), b < 0 ? 0 : p.value(b, i), b >= 0, p.nranks, how));
    }
  });
  return out;
}

}  // namespace fabcheck::probes
