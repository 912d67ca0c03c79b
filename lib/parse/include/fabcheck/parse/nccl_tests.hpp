#pragma once
/// @file Readers of nccl-tests results (the format strings of nccl-tests' src/common.cu): the text table in
/// every layout (legacy ≤ 2.11 with its `error` column and no root column, 2.13 – 2.17.2 single-space
/// `#wrong`, 2.17.3+, `-I` per-iteration columns, `-S` timestamps, `-C` cputime, hypercube's empty redop),
/// wrapped by `mpirun --tag-output` (`[1,R]<stdout>:`) or `srun --label` (`R: `) prefixes, with NCCL
/// INFO/WARN lines, ssh and launcher noise interleaved; fabcheck's own `sweep` console output (the same
/// layout); and the JSON file of `-J` (versions 2 and 3). Facts only: the numbers as printed, with their
/// printed precision. Checking them (busBw recomputation) and building a report happens in lib/analysis
/// (report/nccl_tests_import.hpp).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::parse {

/// One number as the file printed it.
struct PrintedNumber {
  double value = 0;  ///< the value
  /// Half a unit in the last printed place: 0.005 for "139.08", 0.5 for "18289", 5e4 for "1.2e+06" (%7.1e),
  /// 5e-7 for JSON's %lf. Used to compare a recomputed value at the file's precision.
  double half_ulp = 0;
};

/// One placement block of a row (`time algbw busbw #wrong`).
struct NcclTestsBlock {
  PrintedNumber time_us;     ///< per-op time, µs (`time`, or `cputime` under -C)
  PrintedNumber algbw_gbps;  ///< algBw, GB/s (1e9)
  PrintedNumber busbw_gbps;  ///< busBw, GB/s (1e9)
  /// `#wrong` (elements, summed over ranks); nullopt when printed `N/A` / JSON null, or in the legacy layout.
  std::optional<double> wrong;
  /// Legacy ≤ 2.11 only: the `error` column (max absolute deviation, not a count; nccl-tests#176).
  std::optional<double> legacy_error;
};

/// One table row (one size of one (dtype, redop, root) series).
struct NcclTestsRow {
  std::uint64_t size_bytes = 0;  ///< the `size` column
  std::uint64_t count = 0;       ///< the `count` column
  std::string dtype;             ///< the `type` column as printed ("float", "bfloat16", ...)
  std::string redop;             ///< the `redop` column ("sum", "none"; "" for hypercube or legacy tables
                                 ///< without the column)
  int root = -1;                 ///< the `root` column; −1 when absent
  /// Out-of-place block; nullopt when the file has none for this row (nccl-tests JSON `null`).
  std::optional<NcclTestsBlock> out_of_place;
  NcclTestsBlock in_place;  ///< in-place block
  std::size_t line = 0;     ///< 1-based line of the row in the file (0 for JSON)
};

/// One `# Using devices` line: `#  Rank %2d Group %2d Pid %6d on %10s device %2d [bus] name` (≥ 2.13.4), or
/// `#   Rank %2d Pid %6d on %10s device %2d [0x%02x] name` (≤ 2.13.3, no group).
struct NcclTestsDevice {
  int rank = 0;      ///< global rank
  int group = 0;     ///< NCCL_TESTS_SPLIT colour (0 when not printed)
  int pid = 0;       ///< process id
  std::string host;  ///< host name as printed
  int device = -1;   ///< CUDA device index
  std::string bus;   ///< text between the brackets: "0x0f", "0000:1b:00", "cpu"
  std::string name;  ///< device name ("NVIDIA A100-SXM4-40GB", "MPI host buffers")
};

/// One result table: header, rows and footer of one collective test.
struct NcclTestsTable {
  std::string program;  ///< `# Collective test starting: X` (e.g. "all_reduce_perf"); "" when not printed
  std::string layout;   ///< "legacy" (≤ 2.11 error column), "2.13" (single-space #wrong), "2.17.3" (two
                        ///< spaces), "json"; "+per_iter" / "+timestamp" / "+cputime" appended
  bool has_redop_column = true;                 ///< the header has `redop`
  bool has_root_column = true;                  ///< the header has `root` (false in legacy tables)
  std::vector<NcclTestsRow> rows;               ///< rows in file order
  std::optional<long long> out_of_bounds;       ///< `# Out of bounds values : N` (nullopt: footer missing)
  std::optional<PrintedNumber> avg_busbw_gbps;  ///< `# Avg bus bandwidth : X` (nullopt: footer missing)
  std::size_t partial_rows = 0;   ///< rows cut short (a crash or hang leaves the row preamble only)
  std::size_t rejected_rows = 0;  ///< row-shaped lines whose numbers could not be read (nan, inf, negative,
                                  ///< out of range): not imported, reported
  std::size_t first_rejected_line = 0;  ///< 1-based line number of the first of them
  std::string first_rejected;           ///< its text (first 200 characters)
};

/// The run around the tables.
struct NcclTestsRun {
  std::string format;              ///< "nccl-tests-text", "fabcheck-sweep-text" or "nccl-tests-json"
  std::string nccl_tests_version;  ///< `# nccl-tests version X` / "" when not printed
  std::string nccl_version;        ///< `NCCL version 2.x.y+cudaX` line or JSON nccl_version; ""
  int json_version = 0;            ///< JSON `version` (0 for text)
  std::string start_time;          ///< JSON start_time; ""
  std::vector<std::string> args;   ///< JSON args (argv); empty for text
  std::optional<std::int64_t> nthreads, ngpus, min_bytes, max_bytes, step_factor, step_bytes, warmup_iters,
      iters, agg_iters, validation, graph;  ///< the `# nThread ...` preamble / JSON config
  std::vector<NcclTestsDevice> devices;     ///< `# Using devices` lines, in file order
  std::vector<NcclTestsTable> tables;       ///< result tables in file order
  std::vector<std::string> errors;          ///< failure lines (`Test NCCL failure ...`, JSON errors)
  std::vector<std::string> notes;           ///< other facts worth keeping (`Reducing maxBytes ...`)
  bool tagged = false;                      ///< lines carried `[1,R]<stdout>:` or `R: ` prefixes
  std::size_t lines = 0;                    ///< lines read (text)
  std::size_t nccl_lines = 0;               ///< NCCL INFO/WARN and `NCCL version` lines skipped
  std::size_t other_lines = 0;              ///< lines that are neither nccl-tests nor NCCL (noise)
};

/// Parses nccl-tests (or fabcheck sweep) console text. Never throws on odd input: lines it does not know are
/// counted in other_lines. A run with no table row has `tables` empty (the caller decides).
/// @param text the whole file.
NcclTestsRun parse_nccl_tests_text(std::string_view text);

/// Parses the JSON file of nccl-tests `-J` (version 2 or 3: {version, start_time, args, env, nccl_version,
/// config: {..., devices: [...]}, results: [{size, count, type, redop, root, out_of_place: {time|cpu_time,
/// alg_bw, bus_bw, nwrong}, in_place, ...}], out_of_bounds, average_bus_bandwidth, errors, end_time}), with
/// its quirks: booleans as strings, root as a padded string, "nan" for NaN.
/// @throws UsageError "<origin>: ..." when the text is not JSON or not an nccl-tests result file.
NcclTestsRun parse_nccl_tests_json(std::string_view text, std::string_view origin);

/// True when `text` looks like JSON (first non-blank character is '{').
bool looks_like_json(std::string_view text);

}  // namespace fabcheck::parse
