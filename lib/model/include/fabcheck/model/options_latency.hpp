#pragma once
/// @file Options of the latency probe (the model owns every probe's Options; its option table is
/// latency_option_table() in model/option_tables.hpp, the one definition of every flag and config key).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/core/collective.hpp"

namespace fabcheck::model {

/// Which pairs the point-to-point part measures.
enum class LatencyPattern {
  kRing,      ///< each member with the next (i, i+1 mod n)
  kAllPairs,  ///< every pair, disjoint pairs per round (circle method)
};

/// "ring" | "all-pairs".
const char* name(LatencyPattern p);

/// What the probe measures. Defaults follow osu_latency (warm-up 100, 10 000 iterations for small messages).
struct LatencyOptions {
  LatencyPattern pattern = LatencyPattern::kRing;       ///< point-to-point pairs
  std::vector<std::uint64_t> sizes = {8, 4096, 65536};  ///< message sizes in bytes (each ≥ 1)
  bool p2p = true;                                      ///< run the point-to-point ping-pong
  bool collective =
      true;  ///< run the per-iteration allreduce pass (sizes 8 B … 64 KiB of `sizes`, see below)
  /// Timed iterations per size and pair; 0 = by `duration_s`, or when that is 0 too, the default: 10 000 for
  /// sizes ≤ 8 KiB and 1 000 above (osu_latency's split). With `duration_s` too: whichever ends first.
  std::uint64_t iters = 0;
  /// > 0: iterate for this many seconds per size and pair (up to `iters` when set, else up to `max_samples`).
  /// Note: pairs then contribute different sample counts, which weighs the straggler ranking (a share of the
  /// pooled samples above p99) towards fast pairs; give `iters` as well when pairs differ by orders of
  /// magnitude.
  double duration_s = 0;
  std::uint64_t warmup = 100;           ///< untimed iterations before each measurement
  std::uint64_t max_samples = 1000000;  ///< cap per pair and size in duration mode (memory bound)
  /// Measure the pairs of a round one after another instead of at the same time (for machines with fewer
  /// cores than measuring ranks, where concurrent busy-polling pairs measure the scheduler rather than the
  /// fabric).
  bool serial_pairs = false;
  /// `--pin-cpus I[,R]`: while a pair is measured, its initiator runs on CPU I and its responder on CPU R
  /// (R = I when one is given), swapped in odd passes; each rank's own affinity is restored afterwards.
  /// Empty: no pinning. On a cluster, give the CPU next to the NIC (as perftest and OSU users do with
  /// taskset); on a virtual fabric whose hosts share one machine, two CPUs keep the two ends of a pair off
  /// each other's core (otherwise a pair whose ends the scheduler put on one core measures a context switch
  /// per hop: 25-60 µs against 13-16 µs). The swap: with fixed roles a rank that is initiator (or responder)
  /// in all its pairs never changed CPU while the others did, and the pairs of such ranks were faster (4
  /// hosts on 2 CPUs, 50 passes, one foreign CPU hog: fastest / slowest pair p50 1.012-1.067 in 8 runs, the
  /// pair of the two never-moving ranks the fastest; swapped per pass 1.005-1.026 in 8 runs).
  std::vector<int> pin_cpus;
  /// `--passes N`: every pair's iterations (and duration) split over N passes through the whole schedule,
  /// each later pass after one untimed exchange, so that a drift in time reaches every pair alike (measured
  /// on the virtual fabric: with one pass the first round's pairs sat 20 % above the rest in 1 of 9 clean
  /// runs). At most the number of iterations; 1 = each pair measured in one go (osu_latency).
  int passes = 10;
  /// Inside a plan (not a flag, not a config key: the step sets it to kSweepBudgetLimitFactor x budget_s;
  /// 0 = none): each size's section gets an equal share of what is left of it — p2p pairs iterate for their
  /// share of it over the rounds, the collective for its share — and stops there or at its iterations,
  /// whichever comes first (at least 0.1 s per section). A section so stopped says so in its notes, and the
  /// result's time_limited.
  double time_limit_s = 0;
};

/// The sizes of `latency --sweep`: 1 B … 4 MiB, powers of two (osu_latency's range).
std::vector<std::uint64_t> latency_sweep_sizes();

}  // namespace fabcheck::model
