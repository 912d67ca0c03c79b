#include "fabcheck/model/json_value.hpp"

#include <fmt/format.h>

#include <cmath>

#include "fabcheck/core/error.hpp"
#include "fabcheck/core/size.hpp"

namespace fabcheck::model {

using nlohmann::json;

std::string type_word(const json& v) {
  // nlohmann's type names ("boolean", "array", ...) with their article; a float is told from an integer,
  // since an integer is what the errors that name it asked for.
  if (v.is_null()) return "null";
  if (v.is_number_float()) return "a fractional number";
  const std::string t = v.type_name();
  return (t == "array" || t == "object" ? "an " : "a ") + t;
}

std::string brief(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

namespace {
// "a string \"x\"", "an array [1]", or just "null".
std::string got(const json& v) {
  return v.is_null() ? "null" : fmt::format("{} {}", type_word(v), brief(v));
}
}  // namespace

void bad_value(std::string_view where, std::string_view what) {
  throw UsageError(fmt::format("{}: {}", where, what));
}

std::int64_t want_int(const json& v, std::string_view where, double lo, double hi) {
  if (!v.is_number_integer() && !v.is_number_unsigned()) {
    bad_value(where, fmt::format("expected an integer, got {}", got(v)));
  }
  const double d = v.get<double>();
  if (d < lo || d > hi)
    bad_value(where, fmt::format("{} is out of range (allowed {}..{})", brief(v), lo, hi));
  return v.get<std::int64_t>();
}

double want_number(const json& v, std::string_view where, double lo, double hi) {
  if (!v.is_number()) bad_value(where, fmt::format("expected a number, got {}", got(v)));
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < lo || d > hi) {
    bad_value(where, fmt::format("{} is out of range (allowed {}..{})", brief(v), lo, hi));
  }
  return d;
}

const std::string& want_string(const json& v, std::string_view where) {
  if (!v.is_string()) bad_value(where, fmt::format("expected a string, got {}", got(v)));
  return v.get_ref<const std::string&>();
}

bool want_bool(const json& v, std::string_view where) {
  if (!v.is_boolean()) bad_value(where, fmt::format("expected true or false, got {}", got(v)));
  return v.get<bool>();
}

std::uint64_t want_size(const json& v, std::string_view where, double min_bytes) {
  std::uint64_t b = 0;
  if (v.is_number_unsigned() || v.is_number_integer()) {
    if (v.get<std::int64_t>() < 0)
      bad_value(where, fmt::format("{} is not a size (sizes are not negative)", brief(v)));
    b = v.get<std::uint64_t>();
  } else if (v.is_string()) {
    b = core::parse_size(v.get_ref<const std::string&>(), where);
  } else {
    bad_value(where, fmt::format("{} is not a size (give bytes as an integer or a string such as \"64M\")",
                                 brief(v)));
  }
  if (static_cast<double>(b) < min_bytes) {
    bad_value(where, fmt::format("{} is too small (at least {} bytes)", brief(v),
                                 static_cast<std::uint64_t>(min_bytes)));
  }
  return b;
}

}  // namespace fabcheck::model
