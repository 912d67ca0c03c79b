#pragma once
/// @file Byte-size parsing and formatting. Sizes are binary (K = 1024), as nccl-tests' `parsesize`.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::core {

/// Parses a size such as `8`, `4K`, `64M`, `1G` (suffix K/M/G/T, case-insensitive, binary units; an optional
/// trailing `B` or `iB` is accepted). Integers only: fractions, signs and unknown suffixes are refused.
/// @param text  the user's text.
/// @param field the flag or config field named in the error (e.g. "-b/--minbytes").
/// @return the size in bytes.
/// @throws UsageError naming `field` when the text is not a size or exceeds 2^62 bytes.
std::uint64_t parse_size(std::string_view text, std::string_view field);

/// Parses a comma-separated list of sizes (`8,4K,64K`). Empty lists and empty items are refused.
/// @throws UsageError naming `field`.
std::vector<std::uint64_t> parse_size_list(std::string_view text, std::string_view field);

/// Formats bytes with the largest binary suffix that divides it exactly (`65536` → "64K", `100` → "100").
std::string format_size(std::uint64_t bytes);

}  // namespace fabcheck::core
