#pragma once
/// @file Bounded reading (no input may crash fabcheck, hang it or grow it without limit). Every
/// file fabcheck reads has a size cap by kind; JSON has a nesting cap checked before parsing, so that
/// copying, rendering and hashing a document never recurse deeper than kMaxJsonDepth. Over a cap: one
/// UsageError line naming the file and the cap (exit 2).
#include <cstdint>
#include <string>
#include <string_view>

namespace fabcheck::core {

/// The deepest JSON nesting (arrays and objects) any input may have. fabcheck's own reports nest 8 deep.
inline constexpr int kMaxJsonDepth = 64;

/// Default caps in MiB, by kind of input.
/// A report. Every report fabcheck writes must fit: the pair matrices grow with the square of the hosts, and
/// a report of 4096 hosts x 8 ranks (bench/scale_report.py) is 626 MiB; 2048 x 8, 163 MiB.
inline constexpr std::uint64_t kReportCapMiB = 1024;
inline constexpr std::uint64_t kConfigCapMiB = 4;      ///< a suite config or criteria file
inline constexpr std::uint64_t kTextTableCapMiB = 64;  ///< nccl-tests output to import
inline constexpr std::uint64_t kNcclLogCapMiB = 1024;  ///< an NCCL_DEBUG log (read as a stream)

/// The largest cap that may be asked for, MiB (16 TiB).
inline constexpr std::uint64_t kMaxInputCapMiB = 1ull << 24;

/// Sets the cap of every kind for this process, MiB (the `--max-input-mb N` flag); 0 = back to the defaults.
/// Wins over FABCHECK_MAX_INPUT_MB.
void set_input_cap_mib(std::uint64_t mib);

/// The cap in bytes for a kind whose default is `default_mib`: the `--max-input-mb` value, else
/// FABCHECK_MAX_INPUT_MB (a positive integer) in the environment, replaces every default. @throws UsageError
/// when FABCHECK_MAX_INPUT_MB is set but not an integer from 1 to 16777216.
std::uint64_t input_cap_bytes(std::uint64_t default_mib);

/// "the 64 MiB cap for a report file (raise it with --max-input-mb N or FABCHECK_MAX_INPUT_MB=N)".
std::string cap_text(std::uint64_t cap_bytes, std::string_view kind);

/// Throws UsageError "<origin>: JSON nested deeper than 64 levels at line L (…)" when `text` nests arrays or
/// objects deeper than kMaxJsonDepth (strings and their escapes are skipped; invalid JSON is left to the
/// parser).
void check_json_depth(std::string_view text, std::string_view origin);

}  // namespace fabcheck::core
