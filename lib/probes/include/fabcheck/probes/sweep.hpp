#pragma once
/// @file The collective sweep probe (`fabcheck sweep`, DESIGN §3–§4): nccl-tests' measurement of algBw/busBw
/// with an exact data check, plus a separate per-iteration pass for percentiles and stragglers.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/comm/backend.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/collective.hpp"
#include "fabcheck/model/options_sweep.hpp"
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

/// One rank's share of being the straggler (the last to enter) over the iterations of a point.
struct Straggler {
  int rank = 0;      ///< rank
  std::string host;  ///< its host
  double share = 0;  ///< iterations it entered last / iterations (0..1)
};

/// Per-iteration statistics of one point (DESIGN §4): span = max exit − min entry on aligned clocks.
struct PerIterStats {
  std::size_t samples = 0;  ///< iterations measured
  double min_us = 0, p50_us = 0, p99_us = 0, p999_us = 0,
         max_us = 0;                   ///< nearest-rank percentiles of the span
  double mean_us = 0, stdev_us = 0;    ///< mean and n−1 standard deviation of the span
  bool low_confidence = true;          ///< p99 from fewer than 100 samples
  bool low_confidence_p999 = true;     ///< p99.9 from fewer than 1000 samples
  std::vector<Straggler> stragglers;   ///< ranks that entered last at least once, highest share first
  std::vector<double> samples_us;      ///< the first min(samples, samples_cap) spans, in iteration order
  std::vector<int> straggler_ranks;    ///< straggler of each kept iteration, −1 = none (same length)
  double straggler_resolution_us = 0;  ///< lead over the second-last rank needed to name a straggler
  std::size_t samples_cap = 0;         ///< the cap applied to samples_us
  int rounds = 1;                      ///< rounds the samples were taken in (SweepOptions::per_iter_rounds)
};

/// One placement (out-of-place or in-place) of one size.
struct PlacementResult {
  double time_us = 0;                  ///< per-op time (table loop), reduced across ranks by -a
  double algbw_gbps = 0;               ///< size_bytes / 1e9 / (time_us·1e-6)
  double busbw_gbps = 0;               ///< algbw · busbw_factor(coll, nranks)
  std::optional<std::uint64_t> wrong;  ///< #wrong summed over ranks; nullopt = not checked
  std::string wrong_reason;  ///< why wrong is absent ("unchecked (-c 0)", "in-place not checked ...")
  std::optional<PerIterStats> per_iter;  ///< nullopt when the per-iteration pass is off
};

/// One row of the table.
struct SweepPoint {
  std::uint64_t size_bytes = 0;  ///< the `size` column (core::geometry)
  std::uint64_t count = 0;       ///< the `count` column
  int cycle = 0;                 ///< -N cycle index (0-based)
  PlacementResult out_of_place;  ///< first block of the row
  PlacementResult in_place;      ///< second block of the row
};

/// One (collective, dtype, redop, root) series: a `sweeps[]` entry of the report.
struct SweepBlock {
  core::Collective collective = core::Collective::kAllReduce;  ///< collective
  core::Dtype dtype = core::Dtype::kFloat;                     ///< element type
  std::optional<core::RedOp> redop;  ///< nullopt for collectives without a reduction ("none")
  int root = -1;                     ///< root, −1 for collectives without one
  int nranks = 0;                    ///< ranks in the communicator
  std::vector<SweepPoint> points;    ///< rows in sweep order
  double avg_busbw_gbps = 0;         ///< mean busBw over both placements of every point
};

/// One line of nccl-tests' `# Using devices`.
struct RankDevice {
  int rank = 0;       ///< rank
  int pid = 0;        ///< process id
  std::string host;   ///< host name (cut at the first '.')
  int device = -1;    ///< device index (−1 host memory)
  std::string label;  ///< "[cpu] MPI host buffers" or "[0000:1b:00] <GPU name>"
};

/// The full sweep result. Complete on rank 0; other ranks get blocks with table numbers but no per-iteration
/// data.
struct SweepResult {
  SweepOptions options;             ///< options as run
  Topology topology;                ///< nranks, hosts, backend, MPI library, clock alignment
  std::vector<RankDevice> devices;  ///< one per rank (rank 0 only)
  std::vector<SweepBlock> blocks;   ///< series in run order (collective → dtype → op → root)
  std::uint64_t total_wrong = 0;    ///< Σ #wrong over every checked placement (same on every rank)
  std::uint64_t failed_checks = 0;  ///< (row × placement) instances with #wrong > 0 (same on every rank)
  /// rank 0, nccl backend: NCCL's own log of every rank that had one, parsed (source "host:path"), in rank
  /// order; empty for mpi.
  std::vector<parse::NcclLog> nccl_logs;
  /// rank 0, nccl backend: one line per rank whose log is missing, cut or thin ("rank 1 (host h): ...").
  std::vector<std::string> nccl_log_notes;
  /// rank 0: the NCCL_* variables of rank 0's environment after the backend was set up (verdict input).
  std::map<std::string, std::string> nccl_env;
};

/// Per-rank cap on the NCCL log read back after an nccl sweep (bytes; the head of the file is kept).
inline constexpr std::size_t kMaxNcclLogBytes = 8u << 20;

/// Runs the sweep (collective over `comm`). Validates options, checks -r against nranks and counts against
/// the backend's limits before measuring anything.
/// @throws UsageError (same on every rank) for bad options; RuntimeFailure on backend errors.
SweepResult run_sweep(const comm::Communicator& comm, comm::CollBackend& backend, const SweepOptions& opts);

/// Convenience: creates the backend named in opts.backend and runs the sweep.
SweepResult run_sweep(const comm::Communicator& comm, const SweepOptions& opts);

/// Input values of the exact data check (DESIGN §3 `#wrong`) for one (dtype, op, nranks): small integers
/// whose reductions are exact in every summation order.
/// - prod: v(r, i) = 2 when (i + r) mod 3 = 0, else 1 (products of powers of two: exact, or +inf in every
///   order in the float types; wrapping in the integer types);
/// - otherwise v(r, i) = 1 + (13·(i mod m) + 7·(r mod m)) mod m ∈ [1, m], with m = 31 while 31·n fits under
///   core::exact_integer_limit(dtype) (always for the integer types, whose sums wrap exactly), else 3, else 1
///   (half: n ≤ 66 / 682 / 2048 ranks; bfloat16: n ≤ 8 / 85 / 256), so every partial sum is an exactly
///   representable integer; beyond that a sparse 0/1 pattern: v = 1 when (i + r) mod stride = 0, stride =
///   ⌈n / limit⌉, so at most `limit` ranks contribute 1 at any index. Values differ across ranks and indices,
///   so misplaced chunks show.
struct DataPattern {
  bool prod = false;           ///< the prod pattern (values 1 and 2)
  std::uint32_t modulus = 31;  ///< m of the sum/min/max pattern
  std::uint64_t stride = 0;    ///< > 0: the sparse 0/1 pattern with this stride
  /// Value of element i on rank `rank`.
  std::uint32_t value(int rank, std::uint64_t i) const;
  /// Period of value() in i (3 for prod, stride for the sparse pattern, else m): the expected reduction is a
  /// table of this many entries.
  std::uint64_t period() const;
};

/// The pattern for `d`, `prod` and `nranks` (rules at DataPattern). @throws std::invalid_argument for
/// nranks < 1.
DataPattern data_pattern(core::Dtype d, bool prod, int nranks);

/// The table loop, exposed for bench/: `iters` back-to-back calls after a barrier, with -z semantics
/// (0 none, 1 sync + barrier after each op, 2 sync after each op, 3 sync + barrier after each op with the
/// barrier excluded), then synchronize. Returns this rank's seconds per op (not reduced across ranks).
double time_table_loop(const comm::Communicator& comm, comm::CollBackend& backend, const comm::CollCall& call,
                       int iters, int blocking);

/// Reduces a per-rank value across ranks per -a (0 rank 0's value, 1 mean, 2 min, 3 max). Collective.
double reduce_time(const comm::Communicator& comm, double seconds, int average);

/// Per-iteration statistics from aligned entry/exit times, indexed [rank][iteration] (µs on rank 0's clock).
/// span_i = max_r exit − min_r entry. straggler_i = argmax_r entry (lowest rank on ties) when that rank
/// entered later than every other rank by more than `resolution_us` (the clock-alignment error bound: a
/// smaller lead cannot be attributed), else none (−1 in straggler_ranks, counted for no rank). Shares are
/// over all iterations.
/// @throws std::invalid_argument when ranks have different iteration counts or there are no ranks.
PerIterStats per_iter_stats(const std::vector<std::vector<double>>& entry_us,
                            const std::vector<std::vector<double>>& exit_us,
                            const std::vector<std::string>& hosts, std::size_t samples_cap,
                            double resolution_us = 0.0);

}  // namespace fabcheck::probes
