#pragma once
/// @file The latency probe (DESIGN §4, §5): point-to-point ping-pong between host leaders (half
/// round trip per iteration, like osu_latency) and the per-iteration latency of small allreduces (span on
/// aligned clocks), with the tail analysis of lib/core (percentiles, histogram, spikes, straggler ranking,
/// tail cost at scale). Measurement only: nothing here prints.
#include <cstdint>
#include <string>
#include <vector>

#include "fabcheck/core/histogram.hpp"
#include "fabcheck/core/stats.hpp"
#include "fabcheck/core/tail.hpp"
#include "fabcheck/model/latency.hpp"
#include "fabcheck/model/options_latency.hpp"

namespace fabcheck::comm {
class Communicator;
}

namespace fabcheck::probes {

using model::name;

using LatencyOptions = model::LatencyOptions;

/// The sizes of `latency --sweep`: 1 B … 4 MiB, powers of two (osu_latency's range).
std::vector<std::uint64_t> sweep_sizes();

/// Allreduce sizes measured by the collective pass: the sizes in [8 B, 64 KiB], rounded down to a multiple of
/// 8 (whole doubles), duplicates removed, ascending.
std::vector<std::uint64_t> collective_sizes(const std::vector<std::uint64_t>& sizes);

/// Timed iterations for a size when neither `iters` nor `duration_s` is set.
std::uint64_t default_iters(std::uint64_t size_bytes);

/// Checks options. @throws UsageError naming the flag: empty `sizes` (--sizes), a size of 0 or above 1 GiB
/// (--sizes), iters and duration both set (--iters/--duration), iters or warmup above 1e8, duration < 0,
/// above a day or not finite (--duration), max_samples 0, nothing to run (--kind).
void validate(const LatencyOptions& opts);

/// Fills the analysis of a section from its raw samples (summary, histogram when empty, spikes, straggler
/// ranking, tail cost). For p2p the sources are the pairs; for collectives they are the ranks named in
/// straggler_rank. Pure (no MPI): exposed so that tests and other probes (sweep, run) can analyze synthetic
/// or imported samples.
/// @param nranks ranks of the run, used to label collective stragglers.
/// @param hosts_of_ranks host of each rank (may be empty: labels then omit hosts).
void analyze_section(model::LatencySection& s, const std::vector<std::string>& hosts_of_ranks);

/// Runs the probe: clock alignment, then p2p ping-pong per size and round, then the allreduce per-iteration
/// pass per size. Collective over `comm` (every rank calls it). Needs at least 2 ranks.
/// @throws UsageError for fewer than 2 ranks or invalid options (same on every rank); RuntimeFailure on MPI
/// errors.
model::LatencyResult run_latency(const comm::Communicator& comm, const LatencyOptions& opts);

}  // namespace fabcheck::probes
