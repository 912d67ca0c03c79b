#pragma once
/// @file The result maths of the nics probe's verbs part, after perftest's ib_write_bw and
/// ib_write_lat (linux-rdma/perftest 00b55b6, src/perftest_parameters.c print_report_bw / print_report_lat).
/// No verbs headers.
#include <cstdint>
#include <optional>
#include <span>

#include "fabcheck/core/stats.hpp"

namespace fabcheck::probes::rdma {

/// RDMA WRITE bandwidth in GB/s (1e9 B/s): `msg_bytes · iters / seconds`, seconds from the first post to the
/// last completion. ib_write_bw's BW average is `tsize · iters · cycles_to_units / (sum_of_test_cycles ·
/// format_factor)` with sum_of_test_cycles = tcompleted[iters−1] − tposted[0]; its format_factor is 0x100000
/// (MiB/s) or 125000000 (--report_gbits, Gb/s); ours is 1e9 B/s. nullopt when seconds ≤ 0 or iters = 0.
std::optional<double> write_bw_gbps(std::uint64_t msg_bytes, std::uint64_t iters, double seconds);

/// The latency ping-pong's half round trips in µs from per-iteration round trips in ns: ib_write_lat reports
/// t / 2 (rtt_factor 2 for WRITE) and t_typical = the median. Statistics by DESIGN §4 (core::summarize:
/// nearest-rank p50/p99 of all samples); perftest instead drops the 2 largest samples (LAT_MEASURE_TAIL) and
/// takes the midpoint median of an even count, which moves the median by at most one rank. Empty input: a
/// Summary with samples = 0.
core::Summary write_lat_half_us(std::span<const double> rtt_ns);

/// The send window of the bandwidth test: at most `depth` WRITEs posted and not yet completed (ib_write_bw
/// -t), `iters` in all.
struct WriteWindow {
  std::uint64_t iters = 0;      ///< WRITEs to post in all
  std::uint64_t depth = 1;      ///< WRITEs in flight at most
  std::uint64_t posted = 0;     ///< posted so far
  std::uint64_t completed = 0;  ///< completed so far
  /// How many WRITEs may be posted now.
  std::uint64_t can_post() const;
  /// Records n posts (at most can_post()).
  void post(std::uint64_t n);
  /// Records n completions (at most posted − completed).
  void complete(std::uint64_t n);
  /// Every WRITE posted and completed.
  bool done() const { return completed >= iters; }
};

}  // namespace fabcheck::probes::rdma
