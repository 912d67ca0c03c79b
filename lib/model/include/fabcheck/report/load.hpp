#pragma once
/// @file Reading a fabcheck report file back (DESIGN §6): the one loader every offline subcommand uses
/// (`gate`, `report`, `compare`, ...), so that a missing, truncated, foreign or too-new file is refused the
/// same way everywhere: one line naming the file and the fix, thrown as UsageError (exit 2).
#include <nlohmann/json.hpp>

#include "fabcheck/core/input_limits.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::report {

/// What a reader leaves out of the document it loads.
struct LoadOptions {
  /// Paths of object keys from the top (e.g. {"pairs", "schedule"}; "*" matches any key or array element)
  /// whose values are not loaded: the key is absent from the document, as if the report had not written it.
  std::vector<std::vector<std::string>> skip;
  /// Paths (as `skip`) of matrices — arrays of arrays of numbers and nulls — held packed: one binary value
  /// of doubles (NaN for null) instead of one JSON value per cell; read them with dense_matrix(). A value
  /// there that is not such a matrix is loaded as it is.
  std::vector<std::vector<std::string>> dense;
  /// Values larger than this are parsed member by member (element by element), so that the parser's buffers
  /// are the size of a part, not of the document; tests set it small to split everything.
  std::size_t split_bytes = std::size_t{4} << 20;
};

/// A matrix of doubles, row-major, NaN where the report has null or no cell.
struct DenseMatrix {
  std::size_t rows = 0, cols = 0;
  std::vector<double> values;  ///< rows × cols
  double at(std::size_t i, std::size_t j) const { return values[i * cols + j]; }
};

/// The subtype of the binary value a packed matrix is held in (LoadOptions::dense).
inline constexpr std::uint8_t kDenseMatrixSubtype = 0xd5;

/// Reads a matrix value: an array of rows (numbers; null or anything else is NaN; a row that is not an array
/// and short rows padded with NaN to the longest) or a matrix the loader packed. nullopt when `v` is neither
/// (null, absent, an object).
std::optional<DenseMatrix> dense_matrix(const nlohmann::json& v);

// What each offline reader leaves out: the pairs schedules and matrices grow with the square of the host
// count (a 2048-host report: ~170 MB, two million schedule entries and four 4-million-cell matrices), and
// most readers read few of them. Each set is checked by a test that the reader's output is the same with the
// whole document (tests/unit/model/test_load_fast.cpp).

/// `report --html`, `run --html`: the page draws `bw_gbps` and `lat_p50_us` (DESIGN §6 "Reports at scale");
/// leaves out the schedules, `lat_min_us`, `lat_p99_us` and `bidir_gbps` (of the pairs section and each
/// rail).
LoadOptions html_load_options();

/// `compare`: reads `bw_gbps`, `lat_p50_us` (per link) and `lat_p99_us` (its largest cell), packed (dense);
/// leaves out the schedules, `lat_min_us` and `bidir_gbps`.
LoadOptions compare_load_options();

/// `gate` when it writes no report: no gate metric reads a pairs matrix or schedule (fabcheck gate
/// --list-metrics); all of them are left out.
LoadOptions gate_load_options();

/// True when one of `metrics` (gate metric paths, e.g. "pairs.bw_gbps[][]") has a word that is a key `o`
/// leaves out: the reader then loads the whole document instead.
bool names_skipped(const LoadOptions& o, const std::vector<std::string>& metrics);

/// Checks that `doc` is a fabcheck report this build can read: a JSON object with an integer
/// `schema_version` in [1, kSchemaVersion] and `tool: {name: "fabcheck", ...}`.
/// @param doc    the parsed document.
/// @param origin how the error names the input, e.g. "report r.json" or "compare B.json".
/// @throws UsageError "<origin>: is not a fabcheck report (...)" / "<origin>: schema_version N is newer
///         than this fabcheck reads (1) (...)".
void check_report(const nlohmann::json& doc, std::string_view origin);

/// Parses report text (already read) and checks it with check_report.
/// @param text   the file contents.
/// @param origin how errors name the input ("report r.json").
/// @param opts   what to leave out (default: nothing).
/// @throws UsageError on empty input, invalid or truncated JSON (with line and column), or check_report.
/// Parsed with simdjson (~10x nlohmann's parser on a number-heavy report) into the same nlohmann document
/// nlohmann::json::parse builds; text simdjson refuses is parsed again by nlohmann for its error message.
nlohmann::json parse_report_text(std::string_view text, std::string_view origin,
                                 const LoadOptions& opts = {});

/// Reads a whole input file as text (reports, nccl-tests outputs). Errors read "<origin>: <problem> (<fix>)".
/// @param path    the file. @param origin how errors name the input ("report r.json", "import out.txt").
/// @param kind    what the caller expects, used in the fixes ("report file", "nccl-tests output file").
/// @param cap_mib the size cap of this kind of input (core/input_limits.hpp; FABCHECK_MAX_INPUT_MB
/// overrides).
/// @throws UsageError when the file is missing, a directory, unreadable, a read fails, or it holds more than
/// the cap (also a pipe or a device that never ends). Empty text is returned.
std::string read_input_file(const std::string& path, std::string_view origin, std::string_view kind,
                            std::uint64_t cap_mib = core::kReportCapMiB);

/// Reads and checks one report file: the shared entry point for every command that reads a report.
/// @param path the report file.
/// @param what the argument or flag named in errors ("report", "A", "--baseline"); errors read
///             "<what> <path>: <problem> (<fix>)".
/// @return the whole document (schema_version ≤ kSchemaVersion, tool.name == "fabcheck").
/// @throws UsageError when the file is missing, a directory, unreadable, empty, not valid JSON (truncated),
///         not a fabcheck report (no schema_version or tool), or has a newer schema_version than this build.
/// @param opts what to leave out (default: nothing; see html_load_options and its siblings).
nlohmann::json load_report(const std::string& path, std::string_view what = "report",
                           const LoadOptions& opts = {});

}  // namespace fabcheck::report
