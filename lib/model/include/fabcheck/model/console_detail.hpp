#pragma once
/// @file How much a probe's console text shows (the default run fits on two screens; `--verbose`
/// restores the detail; the HTML and the JSON always keep everything).

namespace fabcheck::model {

/// Console detail level of a probe's text.
enum class ConsoleDetail {
  kCompact,  ///< `run` without --verbose: a few lines per probe (sweeps one line per series, latency one per
             ///< size)
  kTables,   ///< a standalone command: its tables (nccl-tests rows, per-pair latency), no histograms
  kVerbose,  ///< --verbose: everything, histograms with their non-empty buckets
};

}  // namespace fabcheck::model
