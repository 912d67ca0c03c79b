#pragma once
/// @file Options of the pairs probe (the model owns every probe's Options; its option table is
/// pairs_option_table() in model/option_tables.hpp, the one definition of every flag and config key).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/core/collective.hpp"

namespace fabcheck::model {

/// Options of the pairs probe (flags of `fabcheck pairs`).
struct PairsOptions {
  /// Bytes per window (`--size`): each timed iteration moves `window` messages of size_bytes / window bytes
  /// (rounded down), all in flight at once, then the receiver acknowledges — osu_bw's loop with the window's
  /// total fixed instead of the message size, so that a slow link costs size_bytes per iteration, not window
  /// × size.
  std::uint64_t size_bytes = 64ull << 20;
  int window = 64;         ///< messages in flight per iteration (`--window`, as osu_bw)
  int warmup = 1;          ///< untimed windows per direction before timing (`--warmup`)
  int iters = 20;          ///< at most this many timed windows per direction (`--iters`)
  double budget_ms = 500;  ///< per direction: timed windows = clamp(budget / warmup time, 1, iters)
  int lat_iters = 1000;    ///< 8 B ping-pong samples per pair (`--lat-iters`)
  int lat_warmup = 50;     ///< untimed ping-pongs before them
  bool bidir = false;      ///< also measure simultaneous both-way bandwidth (`--bidir`)
  bool all_ranks = false;  ///< pair local rank i with local rank i of the peer host (`--all-ranks`)
  bool retest = true;      ///< re-measure suspects against good partners before the verdict (`--no-retest`)
  std::optional<double> line_rate_gbit;  ///< expected line rate in Gbit/s (`--line-rate-gbit`), if known
};

}  // namespace fabcheck::model
