#pragma once
/// @file Parses JSON text with simdjson and builds the nlohmann document every reader uses (a
/// 2048-host report is ~170 MB; nlohmann's own parser takes ~3 s and ~1.2 GB on it, most of it in strtod and
/// in the pairs schedule's two million small arrays). Private to the model library: simdjson never reaches a
/// public header.
#include <nlohmann/json.hpp>

#include "fabcheck/report/load.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::report::detail {

/// Parses `text` into the document nlohmann::json::parse would build, leaving out the values at opts.skip and
/// packing the matrices at opts.dense (LoadOptions).
/// Numbers are typed as nlohmann types them: a non-negative integer is number_unsigned, a negative one
/// number_integer ("-0" excepted: simdjson reads it as 0, unsigned), anything with a fraction or exponent
/// number_float; a duplicate key keeps its last value.
/// Values larger than 4 MiB are split into their members or elements (a light scan: brackets paired, strings
/// closed) and each part is parsed on its own, so simdjson's memory is that of a part and a value left out is
/// never parsed; every value that is kept is parsed and validated by simdjson. The root must be an object.
/// @param text    the document; its capacity beyond size() is used as simdjson's padding when large enough
///                (otherwise the text is copied once).
/// @param opts    what to leave out or pack.
/// @param max_depth text nested deeper is refused (std::nullopt; the slow path says where).
/// @return the document, or std::nullopt when simdjson refuses the text (invalid JSON, a number out of
///         range, invalid UTF-8, ...): the caller then parses it with nlohmann for its exact error message.
std::optional<nlohmann::json> fast_parse(std::string& text, const LoadOptions& opts, std::size_t max_depth);

/// The padding simdjson needs beyond the text (SIMDJSON_PADDING), for readers that size their buffers.
std::size_t fast_parse_padding();

}  // namespace fabcheck::report::detail
