#pragma once
/// @file The collective sweep probe (`fabcheck sweep`, DESIGN §3–§4): nccl-tests' measurement of algBw/busBw
/// with an exact data check, plus a separate per-iteration pass for percentiles and stragglers.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "fabcheck/comm/backend.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/collective.hpp"
#include "fabcheck/model/options_sweep.hpp"
#include "fabcheck/model/sweep.hpp"
#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/probes/topology.hpp"

namespace fabcheck::probes {

using SweepOptions = model::SweepOptions;

/// Validates options that do not depend on the communicator.
/// @throws UsageError naming the flag: -b > -e, -n < 1, -w < 0, -c < 0, -a ∉ 0..3, -z ∉ 0..3, -N < 1,
///         -r < −1, -f < 1, -i < 1 with -f ≤ 1, -b 0 with -f > 1, empty --coll/-d/-o, unknown backend,
///         --per-iter-rounds < 1.
void validate(const SweepOptions& opts);

/// The requested sizes in sweep order (nccl-tests loop: size = f > 1 ? size·f : size + step, while ≤ max).
std::vector<std::uint64_t> sweep_sizes(const SweepOptions& opts);

/// Per-rank cap on the NCCL log read back after an nccl sweep (bytes; the head of the file is kept).
inline constexpr std::size_t kMaxNcclLogBytes = 8u << 20;

/// nccl-tests' cap on maxBytes from the smallest GPU's memory (common.cu run(), "Reducing maxBytes to %ld due
/// to memory limitation"): (memory − reserve − 1 GiB) / (3 with the data check, else 2), reserve = 1 GiB per
/// 16 GiB started, at most 4 GiB; 0 when the memory is below that.
std::uint64_t nccl_tests_max_bytes_cap(std::uint64_t device_bytes, bool check);

/// Runs the sweep (collective over `comm`). Validates options, checks -r against nranks and counts against
/// the backend's limits before measuring anything.
/// On a backend with a device, -e above nccl_tests_max_bytes_cap of the smallest device is lowered to it (and
/// -b with it), as nccl-tests does; the result keeps the options as given and says so (max_bytes_reduced_to).
/// @throws UsageError (same on every rank) for bad options; RuntimeFailure on backend errors.
model::SweepResult run_sweep(const comm::Communicator& comm, comm::CollBackend& backend,
                             const SweepOptions& opts);

/// Convenience: creates the backend named in opts.backend and runs the sweep.
model::SweepResult run_sweep(const comm::Communicator& comm, const SweepOptions& opts);

/// Input values of the exact data check (DESIGN §3 `#wrong`) for one (dtype, op, nranks): small integers
/// whose reductions are exact in every summation order.
/// - prod: v(r, i) = 2 when (i + r) mod s = 0, else 1, s = 3 (products of powers of two: exact, or +inf in
///   every order in binary16/bfloat16/float/double); for fp8, which has no infinity in E4M3 (it saturates at
///   448), and the integer types, which must not overflow, s = max(3, ⌈n / k⌉) with k = 8 (E4M3), 15 (E5M2),
///   6 (int8), 7 (uint8), 30/31 (int32/uint32), 62/63 (int64/uint64), so at most k ranks hold a 2 at an index
///   and every partial product is exact;
/// - otherwise v(r, i) = 1 + (13·(i mod m) + 7·(r mod m)) mod m ∈ [1, m], with m = 31 while 31·n fits under
///   the limit L (core::exact_integer_limit for the floating types; the largest value for the integer types:
///   no sum overflows — MPI leaves overflow undefined and Open MPI 4.1's AVX-512 reductions saturate,
///   open-mpi/ompi#8045), else 3, else 1 (half: n ≤ 66 / 682 / 2048 ranks; bfloat16: n ≤ 8 / 85 / 256; E4M3:
///   n ≤ 5 / 16; E5M2: n ≤ 2 / 8; int8: n ≤ 4 / 42 / 127), so every partial sum is an exactly representable
///   integer; beyond that a sparse 0/1 pattern: v = 1 when (i + r) mod stride = 0, stride = ⌈n / L⌉, so at
///   most L ranks contribute 1 at any index. Values differ across ranks and indices, so misplaced chunks
///   show.
/// - avg of an integer type (avg_data_pattern): v(r, i) = c(i) + s(r, i) with c(i) = 1 + (i mod m) and
///   s = +(i mod 2) on even ranks, −(i mod 2) on the odd rank after each (0 on the last rank of an odd
///   count), so that the ranks' values sum to n·c(i) exactly and the average is the integer c(i); m = 31
///   while 32·n ≤ L, else 3 (4·n ≤ L), else 1 (2·n ≤ L), with L the type's largest value (an average of
///   wrapped sums would not be exact); beyond that every value is 0 (the average 0 still shows garbage).
/// - avg of a floating type (`pair`): two ranks contribute at each index, a = i mod n with 1 + (i mod m) and
///   b = (i + 1) mod n with 1 + (7·(i mod m) + 3) mod m, the others 0, m = min(31, limit / 2) — nccl-tests'
///   float average (verifiable.cu: "we limit to two ranks contributing non-zero values"). NCCL multiplies
///   every input by 1/n rounded to the type before it sums and rounds each partial sum, so with every rank
///   contributing the result drifts from any one expectation as n grows (a host model of it reaches 3 ulps at
///   15 bfloat16 ranks and 8 at 51); with two contributors it is one rounding of each product and one of
///   their sum, whatever the order. A rank that contributes nowhere in a short buffer (count < n) is not
///   checked by the average, as in nccl-tests; the sum/min/max/prod patterns check every rank.
struct DataPattern {
  bool prod = false;           ///< the prod pattern (values 1 and 2)
  bool avg = false;            ///< the avg pattern (modulus 0: all zero)
  bool pair = false;           ///< avg of a floating type: two contributing ranks per index
  int nranks = 0;              ///< ranks of the avg pattern (its last rank is unpaired when odd)
  std::uint32_t modulus = 31;  ///< m of the sum/min/max pattern
  std::uint64_t stride = 0;    ///< > 0: the sparse 0/1 pattern, or prod's s, with this stride
  /// Value of element i on rank `rank`.
  std::uint32_t value(int rank, std::uint64_t i) const;
  /// Period of value() in i (s for prod, stride for the sparse pattern, n·m for the pair average, else m):
  /// the expected reduction is a table of this many entries.
  std::uint64_t period() const;
  /// The pair average: the two ranks that contribute at index i (the second −1 on one rank).
  std::pair<int, int> pair_ranks(std::uint64_t i) const;
  /// avg: the last rank of an odd count, whose value is c(i) alone.
  bool last_rank_unpaired(int rank) const;
};

/// The pattern for `d`, `prod` and `nranks` (rules at DataPattern). @throws std::invalid_argument for
/// nranks < 1.
DataPattern data_pattern(core::Dtype d, bool prod, int nranks);
/// The avg pattern for `d` and `nranks` (rules at DataPattern). @throws std::invalid_argument for nranks < 1.
DataPattern avg_data_pattern(core::Dtype d, int nranks);
/// The pattern the sweep loads for `op` (nullopt: a collective without reduction) on `nranks` ranks:
/// avg_data_pattern for avg; data_pattern for the others, with prod for prod; for mulsum the pattern of
/// 2·nranks ranks, so that Σ_r scalar(r)·x_r (comm::nccl::premul_scalar: 1 or 2) stays within
/// exact_integer_limit in every partial sum, as a plain sum of 2·nranks ranks does.
DataPattern pattern_for(core::Dtype d, std::optional<core::RedOp> op, int nranks);

/// The data check's expected `-o avg` result at index i of a pair-average pattern (`p.pair`, a floating
/// `d`), as a double (the value is one of d's), computed the way `how` says (comm::AvgArith: MPI's exact sum
/// divided once, NCCL's premultiplied sum — src/enqueue.cc ncclDevPreMulSum — or its symmetric kernels'
/// scaled sums). @throws std::invalid_argument when `p` is not a pair-average pattern.
double expected_average(core::Dtype d, const DataPattern& p, std::uint64_t i, comm::AvgArith how);

/// The table loop, exposed for bench/: `iters` back-to-back calls after a barrier, with -z semantics
/// (0 none, 1 sync + barrier after each op, 2 sync after each op, 3 sync + barrier after each op with the
/// barrier excluded), then synchronize. Returns this rank's seconds per op (not reduced across ranks).
/// `graph_launches` > 0 (nccl-tests -G, -z 0 only): the `iters` calls are captured into a CUDA graph, which
/// is launched that many times after a barrier; seconds per op = elapsed / (iters · launches) (nccl-tests
/// common.cu BenchTime). `cpu_s` (optional): this rank's nccl-tests -C cputime, the elapsed time right after
/// the last enqueue (before the wait) per op.
double time_table_loop(const comm::Communicator& comm, comm::CollBackend& backend, const comm::CollCall& call,
                       int iters, int blocking, int graph_launches = 0, double* cpu_s = nullptr);

/// The table loop of `-m N` (nccl-tests agg_iters): each of `iters` iterations issues the N `calls` as one
/// aggregate (CollBackend::run_group: a group on nccl, nonblocking collectives + MPI_Waitall on mpi); under
/// -z 1 and 2 each op is waited (and with 1 followed by a barrier) on its own, as nccl-tests does "after each
/// inner iteration". Returns seconds per op: elapsed / (iters * N) (nccl-tests common.cu).
/// `graph_launches` as time_table_loop's (the aggregates are captured).
double time_group_loop(const comm::Communicator& comm, comm::CollBackend& backend,
                       std::span<const comm::CollCall> calls, int iters, int blocking, int graph_launches = 0,
                       double* cpu_s = nullptr);

/// Reduces a per-rank value across ranks per -a (0 rank 0's value, 1 mean, 2 min, 3 max). Collective.
double reduce_time(const comm::Communicator& comm, double seconds, int average);

/// Per-iteration statistics from aligned entry/exit times, indexed [rank][iteration] (µs on rank 0's clock).
/// span_i = max_r exit − min_r entry. straggler_i = argmax_r entry (lowest rank on ties) when that rank
/// entered later than every other rank by more than `resolution_us` (the clock-alignment error bound: a
/// smaller lead cannot be attributed), else none (−1 in straggler_ranks, counted for no rank). Shares are
/// over all iterations.
/// @throws std::invalid_argument when ranks have different iteration counts or there are no ranks.
model::PerIterStats per_iter_stats(const std::vector<std::vector<double>>& entry_us,
                                   const std::vector<std::vector<double>>& exit_us,
                                   const std::vector<std::string>& hosts, std::size_t samples_cap,
                                   double resolution_us = 0.0);

}  // namespace fabcheck::probes
