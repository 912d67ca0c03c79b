// Normalization of option values: one implementation for config files and command lines.
#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/model/json_value.hpp"
#include "fabcheck/model/option_table.hpp"

namespace fabcheck::model {

using nlohmann::json;

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep)) out.push_back(item);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

// A list given as an array or as one comma-separated string; "all" (when allowed) stays the word.
json as_items(const json& v, std::string_view where, const char* what) {
  if (v.is_string()) {
    json items = json::array();
    for (const auto& s : split(v.get<std::string>(), ',')) items.push_back(s);
    return items;
  }
  if (!v.is_array()) bad_value(where, fmt::format("expected {}, got {}", what, brief(v)));
  return v;
}

template <class T, class Parse, class All>
json names(const OptionInfo& o, const json& v, std::string_view where, const char* what, Parse parse, All all,
           const char* known) {
  if (v.is_string() && v.get<std::string>() == "all") {
    json out = json::array();
    for (const auto& x : all()) out.push_back(std::string(core::name(x)));
    return out;
  }
  const json items = as_items(v, where, what);
  if (items.empty() && !o.empty_ok) bad_value(where, fmt::format("empty list (give {}, or all)", known));
  json out = json::array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string ip = v.is_array() ? fmt::format("{}/{}", where, i) : std::string(where);
    const auto& s = want_string(items[i], ip);
    const std::optional<T> x = parse(s);
    if (!x) bad_value(ip, fmt::format("\"{}\" is not {} ({})", s, what, known));
    out.push_back(std::string(core::name(*x)));
  }
  return out;
}

json numbers(const OptionInfo& o, const json& v, std::string_view where) {
  json items = v;
  if (o.kind == OptKind::kSizeList && v.is_string()) {  // "8,4K,64K" as on the command line
    items = json::array();
    for (auto b : core::parse_size_list(v.get_ref<const std::string&>(), where)) items.push_back(b);
  } else if (o.kind == OptKind::kIntList && v.is_string()) {  // "0,1" as on the command line
    items = v.get_ref<const std::string&>().empty() ? json::array()
                                                    : from_cli_text(o, v.get<std::string>(), where);
  }
  if (!items.is_array())
    bad_value(where, fmt::format("expected an array, got {} {}", type_word(v), brief(v)));
  if (items.empty() && !o.empty_ok)
    bad_value(where, "empty list (give at least one value, or remove the key for the default)");
  json out = json::array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string ip = fmt::format("{}/{}", where, i);
    out.push_back(o.kind == OptKind::kSizeList ? json(want_size(items[i], ip, o.min))
                                               : json(want_int(items[i], ip, o.min, o.max)));
  }
  if (o.kind == OptKind::kIntList && o.max_items > 0 && out.size() > o.max_items) {
    bad_value(where, fmt::format("{} values given, at most {}", out.size(), o.max_items));
  }
  return out;
}

}  // namespace

json normalize_value(const OptionInfo& o, const json& v, std::string_view where) {
  if (v.is_null() && o.nullable) return v;
  switch (o.kind) {
    case OptKind::kBool:
      return want_bool(v, where);
    case OptKind::kInt:
      if (o.bool_ok && v.is_boolean()) return v.get<bool>() ? 1 : 0;
      return want_int(v, where, o.min, o.max);
    case OptKind::kNumber:
      return want_number(v, where, o.min, o.max);
    case OptKind::kSize:
      return want_size(v, where, o.min);
    case OptKind::kString:
      return want_string(v, where);
    case OptKind::kSizeList:
    case OptKind::kIntList:
      return numbers(o, v, where);
    case OptKind::kChoice: {
      const auto& s = want_string(v, where);
      for (const auto& c : split(o.choices, '|')) {
        if (c == s) return v;
      }
      bad_value(where, fmt::format("\"{}\" is not one of {}", s, o.choices));
    }
    case OptKind::kCollective: {
      const auto& s = want_string(v, where);
      const auto c = core::parse_collective(s);
      if (!c) bad_value(where, fmt::format("\"{}\" is not a collective (see fabcheck --list)", s));
      return std::string(core::name(*c));
    }
    case OptKind::kCollectives:
      return names<core::Collective>(
          o, v, where, "a collective", [](const std::string& s) { return core::parse_collective(s); },
          [] { return core::all_collectives(); }, "see fabcheck --list");
    case OptKind::kDtypes:
      return names<core::Dtype>(
          o, v, where, "a dtype", [](const std::string& s) { return core::parse_dtype(s); },
          [] { return core::all_dtypes(); },
          "int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 f8e5m2");
    case OptKind::kRedops:
      return names<core::RedOp>(
          o, v, where, "a reduction op", [](const std::string& s) { return core::parse_redop(s); },
          [] { return core::all_redops(); }, "sum prod min max avg, or mulsum on the nccl backend");
  }
  return v;
}

json from_cli_text(const OptionInfo& o, const std::string& text, std::string_view where) {
  auto integer = [&](const std::string& s) -> json {
    errno = 0;
    char* end = nullptr;
    const long long x = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno == ERANGE)
      bad_value(where, fmt::format("\"{}\" is not an integer", s));
    return x;
  };
  switch (o.kind) {
    case OptKind::kInt:
      return integer(text);
    case OptKind::kNumber: {
      char* end = nullptr;
      const double x = std::strtod(text.c_str(), &end);
      // strtod reads "nan" and "inf", which no range check refuses (every comparison with nan is false).
      if (text.empty() || *end != '\0' || !std::isfinite(x))
        bad_value(where, fmt::format("\"{}\" is not a number", text));
      return x;
    }
    case OptKind::kIntList: {
      json out = json::array();
      for (const auto& s : split(text, ',')) out.push_back(integer(s));
      return out;
    }
    case OptKind::kBool:
      if (text == "true" || text == "1") return true;
      if (text == "false" || text == "0") return false;
      bad_value(where, fmt::format("\"{}\" is not true or false", text));
    default:
      return text;
  }
}

std::vector<std::string> long_flags(const OptionInfo& o) {
  std::vector<std::string> out;
  for (const auto& f : split(o.flags, ',')) {
    if (f.rfind("--", 0) == 0) out.push_back(f.substr(2));
  }
  return out;
}

std::vector<std::string> negating_flags(const OptionInfo& o) {
  std::vector<std::string> out;
  for (const auto& f : split(o.flags, ',')) {
    if (f.rfind("!--", 0) == 0) out.push_back(f.substr(3));
  }
  return out;
}

std::string flag_display(const OptionInfo& o) {
  std::string shrt, lng;
  for (const auto& f : split(o.flags, ',')) {
    if (f.rfind("--", 0) == 0 && lng.empty()) lng = f;
    if (f.size() == 2 && f[0] == '-' && shrt.empty()) shrt = f;
  }
  if (lng.empty()) return shrt;
  return shrt.empty() ? lng : shrt + "/" + lng;
}

std::string value_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ",") + value_text(x);
    return out;
  }
  return v.dump();
}

}  // namespace fabcheck::model
