#pragma once
/// @file The one writer of the `sweeps` section (DESIGN §6; one home for every fact). Each entry is
/// {collective, dtype, redop, root, nranks, busbw_factor, avg_busbw_gbps, points: [{size_bytes, count, cycle,
/// placement, time_us, algbw_gbps, busbw_gbps, wrong | wrong_reason, per_iter | per_iter_reason}]}. The
/// measured sweep (report/sweep.hpp `add_sweep`), the nccl-tests importer (`add_import`) and the
/// perftest/OSU/ IMB importer (`add_peer_import`) build their entries here and add their own fields after
/// (`truncated`, `imported`, `avg_busbw_source`, `busbw_agrees`, ...).
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "fabcheck/report/document.hpp"

namespace fabcheck::report {

/// One placement block of one row: the common fields of a `sweeps[].points[]` entry.
struct SweepPointFields {
  std::uint64_t size_bytes = 0;        ///< the `size` column
  std::optional<std::uint64_t> count;  ///< the `count` column; null when the element size is unknown
  /// The size asked for, when the geometry rounded it to a multiple of nranks x element size (nccl-tests'
  /// rounding: 2M of allgather on 3 ranks is 2097144 B); written only when it differs from size_bytes, and a
  /// gate check at "@2M" finds the point by it.
  std::optional<std::uint64_t> requested_bytes;
  int cycle = 0;                     ///< -N cycle index (0-based)
  std::string placement;             ///< "out_of_place" | "in_place"
  std::optional<double> time_us;     ///< per-op time, µs; null when the file printed none
  std::optional<double> algbw_gbps;  ///< algBw, GB/s; null when not printed or derived
  std::optional<double> busbw_gbps;  ///< busBw, GB/s; null when not printed or derived
  /// #wrong as its source holds it (an unsigned count when measured, the file's number when imported); null
  /// when unchecked, and then `wrong_reason` is written.
  nlohmann::json wrong = nullptr;
  std::string wrong_reason;           ///< why `wrong` is null (written only then)
  nlohmann::json per_iter = nullptr;  ///< the per-iteration statistics; null when none
  std::string per_iter_reason;        ///< why `per_iter` is null (written only then)
};

/// The `points[]` object of one placement block.
nlohmann::json sweep_point_json(const SweepPointFields& p);

/// One (collective, dtype, redop, root) series: the common fields of a `sweeps[]` entry.
struct SweepSeriesFields {
  std::string collective;                ///< core::name of the collective, or the tool's test name
  std::string dtype;                     ///< element type as measured or printed
  std::optional<std::string> redop;      ///< null for collectives without a reduction
  std::optional<int> root;               ///< null for collectives without a root
  std::optional<int> nranks;             ///< ranks; null when unknown
  std::optional<double> busbw_factor;    ///< core::busbw_factor(collective, nranks); null when unknown
  std::optional<double> avg_busbw_gbps;  ///< core::BusbwMean of the points; null when none was derived
};

/// The `sweeps[]` object of one series with its `points` (sweep_point_json objects, in row order).
nlohmann::json sweep_series_json(const SweepSeriesFields& s, nlohmann::json points);

/// Writes the `sweeps` section: the entries (sweep_series_json objects) and run.sections.sweeps ok.
void set_sweeps(Document& doc, nlohmann::json entries);

}  // namespace fabcheck::report
