#pragma once
/// @file `fabcheck import` of perftest, OSU and IMB outputs: parsed files (parse/peer_bench.hpp)
/// → the report sections that already mean the same thing (DESIGN §6): point-to-point latency rows into
/// `latency[]` (kind p2p, the statistic each tool printed named beside it), bandwidth tables into `pairs`
/// (one `pairs.links[]` entry per file, hosts from `--link A:B` or the file name, the matrices filled),
/// collectives into `sweeps[]` (their time statistic named, busBw derived only where nccl-tests' size
/// definition holds, marked `busbw_source: derived`). Units are converted to GB/s = 1e9 B/s and the file's
/// unit is stated. Failure lines become findings.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fabcheck/parse/peer_bench.hpp"
#include "fabcheck/report/document.hpp"

namespace fabcheck::report {

/// One parsed file and where it came from.
struct PeerFile {
  std::string path;    ///< as given on the command line
  parse::PeerRun run;  ///< the reader's result
};

/// What the user told `import` beyond the files.
struct PeerImportOptions {
  std::optional<std::pair<std::string, std::string>> link;  ///< `--link A:B` (from A to B) for every file
  std::optional<int> nranks;  ///< `--nranks`: rank count of OSU collective runs (OSU does not print it)
  bool report_gbits = false;  ///< `--report-gbits`: perftest JSON files were written with --report_gbits
};

/// What one file became (the console summary).
struct PeerFileSummary {
  std::string path, tool, format, version;
  std::size_t tables = 0, rows = 0;
  std::vector<std::string> placed;  ///< "latency 23 rows (ib_write_lat, mean and median)" ...
};

/// Hosts named by a file name: `<anything>_<A>_to_<B>.<ext>` or `<A>--<B>.<ext>` (host names cannot hold
/// '_', so the separators are unambiguous); nullopt otherwise.
std::optional<std::pair<std::string, std::string>> hosts_from_file_name(const std::string& path);

/// Converts a bandwidth printed in `unit` ("MiB/s", "Gb/s", "MB/s") to GB/s (1e9 B/s).
double to_gbps(double value, const std::string& unit);

/// Fills `doc` from the files: latency, pairs, sweeps (each only when some file has rows for it; the others
/// skipped with the reason), topology, run.imported {files: [{file, tool, format, version, tables,
/// rows}]}, conventions.imported_peers, and the findings PEER_COMPLETION_ERROR (fail, decoded ibv_wc_status),
/// WRONG_DATA (fail: OSU Validation Fail / DATA VALIDATION ERROR, IMB defects), IMPORT_INCOMPLETE (warn: a
/// crash line, a table without rows, a connect error), IMPORT_ROWS_DROPPED (warn).
/// @throws UsageError when no file has a result row and none reports an error.
std::vector<PeerFileSummary> add_peer_import(Document& doc, const std::vector<PeerFile>& files,
                                             const PeerImportOptions& opts);

}  // namespace fabcheck::report
