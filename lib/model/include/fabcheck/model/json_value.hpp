#pragma once
/// @file Checked reads of user-given JSON values (config files, criteria): each error is one line naming the
/// field (a JSON pointer or a flag) and what was expected.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::model {

/// A measured number as JSON: the value, or null when absent or not finite (JSON has no NaN or infinity).
inline nlohmann::json number_or_null(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}

/// An optional field as JSON: its value, or null when absent (strings, counts, ids).
template <typename T>
nlohmann::json value_or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

/// A matrix of measurements (row-major, nullopt cells as null); null for an empty matrix.
inline nlohmann::json matrix_or_null(const std::vector<std::vector<std::optional<double>>>& m) {
  if (m.empty()) return nullptr;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : m) {
    nlohmann::json r = nlohmann::json::array();
    for (const auto& c : row) r.push_back(number_or_null(c));
    rows.push_back(std::move(r));
  }
  return rows;
}

/// "a string", "an array", ... for error messages.
std::string type_word(const nlohmann::json& v);
/// The value as compact JSON, cut to 60 characters.
std::string brief(const nlohmann::json& v);
/// @throws UsageError "<where>: <what>".
[[noreturn]] void bad_value(std::string_view where, std::string_view what);

/// An integer in [lo, hi]. @throws UsageError naming `where`.
std::int64_t want_int(const nlohmann::json& v, std::string_view where, double lo, double hi);
/// A finite number in [lo, hi]. @throws UsageError naming `where`.
double want_number(const nlohmann::json& v, std::string_view where, double lo, double hi);
/// A string. @throws UsageError naming `where`.
const std::string& want_string(const nlohmann::json& v, std::string_view where);
/// true or false. @throws UsageError naming `where`.
bool want_bool(const nlohmann::json& v, std::string_view where);
/// Bytes: a non-negative integer or a size string ("64M", binary suffixes), at least `min_bytes`.
/// @throws UsageError naming `where`.
std::uint64_t want_size(const nlohmann::json& v, std::string_view where, double min_bytes);

}  // namespace fabcheck::model
