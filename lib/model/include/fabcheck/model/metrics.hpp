#pragma once
/// @file The metric catalogue (one catalogue of {path, unit, better_is}, used by both gate and
/// compare): every comparable or gateable leaf number of the report (DESIGN §6), with its unit, the
/// direction that is better and a one-line meaning. `compare` takes each extracted metric's direction from it
/// (an unknown metric is a programming error), `gate` the unit of a check's values, `fabcheck gate
/// --list-metrics` prints it. No MPI. The catalogue is data: lib/model/metrics.json, compiled in.
///
/// Units follow the report's suffix rule (the document's `conventions.units`: "bandwidth GB/s = 1e9 bytes/s;
/// time in microseconds (_us); sizes in bytes"): a field ending in `_gbps` is GB/s, `_us` microseconds, `_s`
/// seconds, `_bytes` bytes; a field without such a suffix is a `ratio` (dimensionless) or a `count`.
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace fabcheck::model {

/// Which direction of a metric is better.
enum class BetterIs {
  kHigher,  ///< more is better (bandwidth, efficiency)
  kLower,   ///< less is better (time, latency, errors)
  kNone,    ///< neither: a description of the run (an input, a size); never compared
};

/// "higher", "lower" or "none".
std::string_view name(BetterIs b);

/// Unit names of the catalogue.
inline constexpr std::string_view kUnitGBps = "GB/s";    ///< 1e9 bytes per second (nccl-tests' GB/s)
inline constexpr std::string_view kUnitUs = "us";        ///< microseconds
inline constexpr std::string_view kUnitS = "s";          ///< seconds
inline constexpr std::string_view kUnitBytes = "bytes";  ///< bytes
inline constexpr std::string_view kUnitRatio = "ratio";  ///< dimensionless (a quotient or an index in [0, 1])
inline constexpr std::string_view kUnitCount = "count";  ///< a number of things (also every gate `#count`)

/// One leaf metric of the report.
struct Metric {
  std::string_view section;  ///< top-level report key: "sweeps", "latency", "incast", "pairs", ...
  /// The metric's name within its section, the field path inside one entry ("busbw_gbps",
  /// "per_iter.p99_us", "congestion_impact.p99"): compare's CompareMetric::metric. Unique per section.
  std::string_view field;
  /// Where the value lives in the report: object keys joined by '.', `[]` after an array, `*` for an object
  /// key of any name ("sweeps[].points[].busbw_gbps", "scaling.model.*.alpha_us"). Empty when compare
  /// derives the value (pairs.bw_min_gbps: the smallest off-diagonal cell of the matrix).
  std::string_view report_path;
  /// The path form a gate check writes ("sweeps.<collective>.busbw_gbps@<size>"); empty when a gate cannot
  /// address it (a derived value, a matrix).
  std::string_view gate_path;
  std::string_view unit;  ///< one of the kUnit* names
  BetterIs better = BetterIs::kNone;
  bool compared = false;     ///< `compare` extracts it (extract_metrics)
  std::string_view meaning;  ///< one line
};

/// The whole catalogue, grouped by section in report order.
std::span<const Metric> metric_catalogue();

/// The entry of `section` and `field` (Metric::field), or nullptr.
const Metric* find_metric(std::string_view section, std::string_view field);

/// The entry of `section` and `field`. @throws std::logic_error when the catalogue has none (a programming
/// error: every metric code extracts is in the catalogue).
const Metric& metric(std::string_view section, std::string_view field);

/// A concrete report location as a report_path shape: indices emptied, a leading '.' dropped
/// ("sweeps[0].points[3].busbw_gbps" -> "sweeps[].points[].busbw_gbps").
std::string location_shape(std::string_view location);

/// The entry whose report_path a concrete report location matches ("sweeps[0].points[3].busbw_gbps",
/// ".findings[2].x": a leading '.' is ignored; indices match `[]`, any key matches `*`), or nullptr.
const Metric* find_metric_at(std::string_view location);

/// The unit the suffix rule gives a field name (its last '.'-segment): "_gbps" GB/s, "_us" us, "_s" s,
/// "_bytes" bytes; nullopt without one of these suffixes.
std::optional<std::string_view> unit_from_suffix(std::string_view field);

/// The unit of the value at a concrete report location: the catalogue's (find_metric_at), else the suffix
/// rule's; "" when neither knows.
std::string_view unit_at(std::string_view location);

/// The catalogue as text: a header line, then one line per entry (section, gate path form or "-" with the
/// field, unit, better, meaning), for `fabcheck gate --list-metrics`.
std::string metric_catalogue_text();

}  // namespace fabcheck::model
