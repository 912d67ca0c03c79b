#pragma once
/// @file Readers of the point-to-point and collective benchmarks teams already run beside nccl-tests:
/// perftest (linux-rdma/perftest: `ib_write_bw`, `ib_read_bw`, `ib_send_bw`, `ib_*_lat`; the
/// console table in MiB/sec (older builds print "MB/sec" for the same 2^20 B/s), with `--report_gbits`
/// (Gb/sec = 1e9 bit/s), `-a` sweeps, and the `--out_json` file, whose keys and strings were unquoted from
/// 2021-05 (perftest 45e574b) until 2024-01 (f9e82f7)), OSU Micro-Benchmarks 5.x – 7.x (`# OSU MPI ...
/// Test vX` header, `# Size` column line, `-f` min/max/iterations columns, `-z` P50/P90/P99 tail columns,
/// `-c` Validation column; MB/s = 1e6 B/s) and IMB-MPI1 (`# Benchmarking X`, `# #processes = N`, `#bytes
/// #repetitions t[usec] Mbytes/sec` or `t_min[usec] t_max[usec] t_avg[usec]`, the `defects` column of a
/// -DCHECK build; Mbytes/sec = 1e6 B/s). Facts only: the numbers as printed, their units as the header
/// names them. Turning them into report sections happens in lib/analysis (report/peer_import.hpp).
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fabcheck/parse/nccl_tests.hpp"

namespace fabcheck::parse {

/// One row of a result table.
struct PeerRow {
  std::uint64_t size_bytes = 0;  ///< message size (`#bytes`, `# Size`, perftest `MsgSize`); 0 for Barrier
  /// Canonical column → value as printed. Names: `iterations`, `bw_peak`, `bw_avg` (in the table's bw_unit),
  /// `msg_rate_mpps`, `msg_rate_per_s`, `t_min_us`, `t_max_us`, `t_typical_us` (perftest: the median),
  /// `t_avg_us`, `t_stdev_us`, `p50_us`, `p90_us`, `p99_us`, `p999_us`, `bw_p50`, `bw_p90`, `bw_p99`,
  /// `defects`, `tps_avg`.
  std::map<std::string, PrintedNumber> values;
  std::string validation;  ///< OSU `-c` column ("Pass", "Fail"); "" when absent
  std::size_t line = 0;    ///< 1-based line in the file (0 for JSON)
};

/// One result table (one test, one header).
struct PeerTable {
  std::string test;   ///< "ib_write_bw", "osu_latency", "osu_allreduce", "PingPong", "Allreduce", ...
  std::string title;  ///< the title line as printed ("RDMA_Write BW Test", "# OSU MPI Latency Test v5.0")
  std::string kind;   ///< "latency" | "bandwidth" | "collective"
  /// Unit of bw_* columns as the header names it: "MiB/s" (perftest MB/sec or MiB/sec, 2^20 B/s), "Gb/s"
  /// (perftest --report_gbits, 1e9 bit/s), "MB/s" (OSU and IMB, 1e6 B/s); "" when the table has none.
  std::string bw_unit;
  std::vector<std::string> columns;  ///< canonical names in header order (size first)
  bool bidirectional = false;        ///< perftest `-b`, osu_bibw, IMB Sendrecv/Exchange/PingPing
  int processes = 0;                 ///< IMB `# #processes = N`; OSU mbw_mr `pairs: N` × 2; 0 unknown
  int pairs = 0;                     ///< OSU mbw_mr `[ pairs: N ]`; 0 when not printed
  std::string datatype;              ///< OSU `# Datatype: X.`, IMB `MPI_Datatype` lines; "" unknown
  std::string reduction_datatype;    ///< IMB `MPI_Datatype for reductions`; ""
  std::vector<PeerRow> rows;         ///< in file order
  bool closed = false;   ///< perftest: a dashed line followed the rows; OSU/IMB: another header or the end
  std::size_t line = 0;  ///< 1-based line of the column header
  std::size_t rejected_rows = 0;  ///< row-shaped lines whose numbers could not be read (negative, nan, ...)
  std::size_t first_rejected_line = 0;  ///< first of them
  std::string first_rejected;           ///< its text (200 characters at most)
};

/// A failure line of the run (perftest completion errors, OSU validation errors, MPI aborts, crashes).
struct PeerError {
  /// "completion_error", "validation_error", "crash", "connect_error", "error", or "no_results" (perftest:
  /// the test's header and no result table)
  std::string kind;
  std::string text;           ///< the line (200 characters at most)
  std::size_t line = 0;       ///< 1-based line
  std::optional<int> status;  ///< perftest `Failed status N` (ibv_wc_status); nullopt otherwise
};

/// One imported file.
struct PeerRun {
  std::string tool;     ///< "perftest" | "osu" | "imb"
  std::string format;   ///< "perftest-text" | "perftest-json" | "osu-text" | "imb-text"
  std::string version;  ///< "v5.0" (OSU header), "2021.11" (IMB header), perftest "Version:"; "" unknown
  std::vector<PeerTable> tables;
  std::vector<PeerError> errors;
  std::vector<std::string> notes;           ///< facts worth keeping (IMB "Calling sequence", perftest device)
  std::map<std::string, std::string> info;  ///< header key/values (perftest `Device`, `Link type`, ...)
  bool finished = false;  ///< IMB "All processes entering MPI_Finalize"; perftest closing dashes; OSU: last
                          ///< table has rows
  std::size_t lines = 0;  ///< lines read
};

/// Which reader fits `text`, by its headers: "perftest-text", "perftest-json", "osu-text", "imb-text", or ""
/// when none does (the caller then tries nccl-tests).
std::string detect_peer_format(std::string_view text);

/// perftest console output (client or server side). Never throws.
PeerRun parse_perftest_text(std::string_view text);
/// perftest `--out_json` file, quoted or not (tolerant reader: bare keys and strings, trailing commas).
/// @throws UsageError "<origin>: ..." when the text is not such a file.
PeerRun parse_perftest_json(std::string_view text, std::string_view origin);
/// OSU Micro-Benchmarks console output (one or more tests). Never throws.
PeerRun parse_osu_text(std::string_view text);
/// IMB-MPI1 console output (any number of benchmarks and `#processes` blocks). Never throws.
PeerRun parse_imb_text(std::string_view text);
/// Dispatches on `format` (detect_peer_format's names). @throws UsageError for an unknown format.
PeerRun parse_peer(std::string_view text, std::string_view format, std::string_view origin);

/// ibv_wc_status names (libibverbs `ibv_wc_status_str`): 12 → "transport retry counter exceeded"; "" unknown.
std::string_view wc_status_name(int status);

}  // namespace fabcheck::parse
