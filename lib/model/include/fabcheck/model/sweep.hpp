#pragma once
/// @file Result structs of the sweep probe, as the report model holds them (the model owns every
/// probe's data; lib/probes fills them, lib/analysis and lib/render read them, without MPI).
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/model/options_sweep.hpp"
#include "fabcheck/model/topology.hpp"
#include "fabcheck/parse/nccl_log.hpp"

namespace fabcheck::model {
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
  double time_us = 0;  ///< per-op time (table loop), reduced across ranks by -a
  /// nccl backend: rank 0's enqueue time per op (nccl-tests -C cputime: elapsed right after the last enqueue,
  /// before the wait, / (iters × m), not reduced across ranks); nullopt where calls block (mpi: = time_us).
  std::optional<double> cputime_us;
  double algbw_gbps = 0;               ///< size_bytes / 1e9 / (time_us·1e-6)
  double busbw_gbps = 0;               ///< algbw · busbw_factor(coll, nranks)
  std::optional<std::uint64_t> wrong;  ///< #wrong summed over ranks; nullopt = not checked
  std::string wrong_reason;      ///< why wrong is absent ("unchecked (-c 0)", "in-place not checked ...")
  std::vector<int> wrong_ranks;  ///< when wrong > 0: the ranks whose own result had wrong elements, ascending
  std::optional<PerIterStats> per_iter;  ///< nullopt when the per-iteration pass is off
};
/// One row of the table.
struct SweepPoint {
  std::uint64_t size_bytes = 0;       ///< the `size` column (core::geometry)
  std::uint64_t requested_bytes = 0;  ///< the size asked for (-b/-e/-f), before geometry's rounding
  std::uint64_t count = 0;            ///< the `count` column
  int cycle = 0;                      ///< -N cycle index (0-based)
  std::int64_t measured_unix_s = 0;   ///< when the row's measurement began (rank 0, seconds since 1970; -S)
  PlacementResult out_of_place;       ///< first block of the row
  PlacementResult in_place;           ///< second block of the row
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
  /// When the time limit stopped the series (SweepOptions::time_limit_s): the first size not measured.
  std::optional<std::uint64_t> truncated_from_bytes;
  double truncated_predicted_s = 0;  ///< what that size was predicted to take
  double truncated_allowance_s = 0;  ///< the series' share of the time left at that point
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
/// nccl-tests `-M` (src/common.cu): device memory taken, each the maximum over ranks.
struct GpuMemoryUsage {
  std::int64_t init_bytes = 0;  ///< "Initialization": free before − after the communicator was created
  std::int64_t user_bytes = 0;  ///< "User-Allocated": the sweep's buffers (free before − after)
  std::int64_t collective_bytes = 0;  ///< "Collective": free after the buffers − free after every series
};

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
  /// `-M 1` on a backend with a device (nccl): the GPU memory line; nullopt otherwise.
  std::optional<GpuMemoryUsage> gpu_memory;
  /// nccl backend: -e lowered to what the smallest GPU holds, as nccl-tests ("Reducing maxBytes to N due to
  /// memory limitation"); `options` keep -e as given. nullopt when nothing was lowered.
  std::optional<std::uint64_t> max_bytes_reduced_to;
};

}  // namespace fabcheck::model
