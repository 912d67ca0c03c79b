#pragma once
/// @file nccl-tests' `-J` JSON from a fabcheck sweep: the layout of nccl-tests v2.19.6's writer
/// (src/util.cu, JSON_FILE_VERSION 3), byte for byte where the inputs agree, so
/// a script that reads nccl-tests' `-J` files reads fabcheck's unchanged. Pure: the sweep result and the
/// run's facts in, the file's text out (the app opens the file: "wx" with `.0`, `.1` … fallbacks).
///
/// What fabcheck adds, where a parser ignores it: two entries at the end of `env` — `FABCHECK_VERSION=<v>`
/// and `FABCHECK_COLLECTIVE=<name>` (nccl-tests' file names no collective: its binary is the collective;
/// `fabcheck import` reads this entry back). Inherited entries of those names are dropped, not duplicated.
/// `experiment_name` stays "" as nccl-tests writes it (common.cu:941).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fabcheck/model/sweep.hpp"

namespace fabcheck::report {

/// The facts of the run that the sweep result does not hold, and the nccl-tests flags that only change the
/// file (defaults: what nccl-tests writes without them).
struct NcclTestsJsonRun {
  std::vector<std::string> args;  ///< argv as typed (util.cu:365-370 `args`)
  std::vector<std::string> env;   ///< the environment, "NAME=value" in environ order (util.cu:372-377 `env`)
  std::string start_time;         ///< local "%Y-%m-%d %H:%M:%S" when the file was opened (util.cu:358-363)
  std::string end_time;           ///< the same when it was finished (util.cu:392-395)
  std::string fabcheck_version;   ///< recorded as the FABCHECK_VERSION entry of env
  bool report_cputime = false;    ///< -C: the time key is `cpu_time` (util.cu:518)
  bool per_iter_timing = false;   ///< -I: `*_per_iter` objects from the per-iteration pass (util.cu:570-604)
  int per_iter_skip = 0;          ///< -K: leading samples left out of the summary (all kept in times_us)
  int agg_iters = 1;              ///< -m: `aggregated_iterations`
  bool parallel_init = false;     ///< -p: `parallel_init`
  /// NCCL_TESTS_MIN_BW: `average_bus_bandwidth.okay` is then "true"/"false" (avg ≥ 0.9·min), else
  /// "unchecked" (util.cu:791).
  std::optional<double> min_bw_gbps;
};

/// NCCL_VERSION_CODE of a topology's "NCCL 2.28.3" (major·10000 + minor·100 + patch, as ncclGetVersion
/// returns since 2.9); 0 for the MPI backend or an unreadable string — the value nccl-tests' test_ncclVersion
/// holds before ncclGetVersion (common.cu:34).
int nccl_version_code(const std::optional<std::string>& nccl_version);

/// `s` as nccl-tests' sanitizeJson quotes it (util.cu:78-120): `"` `\` `/` escaped with a backslash, tab
/// and newline as \t \n; the string ends at the first other control or non-ASCII byte, and after 2047
/// output characters (its 2048-byte buffer).
std::string nccl_tests_json_string(std::string_view s);

/// `v` as util.cu's jsonDouble writes it: "%lf" (6 decimals), NaN as the string "nan" (util.cu:290-297).
/// ±inf, which nccl-tests would print bare (invalid JSON), is written as the string "inf" / "-inf".
std::string nccl_tests_json_double(double v);

/// The whole file for a sweep of one collective (nccl-tests' file holds one: its binary is the collective).
/// Key order and types as util.cu writes them: version 3, start_time, args, env (every value through
/// core::redact_value, so that no secret reaches the file), nccl_version, config {nthreads, ngpus,
/// minimum_bytes, maximum_bytes, step_factor | step_bytes, warmup_iters, iterations, aggregated_iterations,
/// validation, graph, blocking_collectives, per_iter_timing, per_iter_skip, parallel_init, devices[]},
/// results[] (one per row of every block in run order: size, count, type, redop, root "%6i", out_of_place
/// {time | cpu_time, alg_bw, bus_bw, nwrong (null when unchecked)}, [out_of_place_per_iter], in_place,
/// [in_place_per_iter], actual_iterations, experiment_name ""), out_of_bounds {count, okay},
/// average_bus_bandwidth {bandwidth, okay}, errors [""], end_time. No whitespace, no trailing newline
/// (util.cu writes none).
/// @throws std::invalid_argument when `r` holds blocks of more than one collective.
std::string nccl_tests_json(const model::SweepResult& r, const NcclTestsJsonRun& run);

}  // namespace fabcheck::report
