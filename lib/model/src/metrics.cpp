// The metric catalogue (metrics.hpp): the table, its lookups and its text.
#include "fabcheck/model/metrics.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "embedded_text.hpp"

namespace fabcheck::model {
namespace {

using nlohmann::json;

// One field of a catalogue row: a string of the file (kept alive by the parsed file, which is never changed).
std::string_view text_of(const json& row, const char* key) {
  return row.at(key).get_ref<const std::string&>();
}

// A row's field that must be one of a few names (its unit, its direction). @throws std::logic_error
// otherwise.
[[noreturn]] void bad_field(const json& row, const char* key) {
  throw std::logic_error(
      fmt::format("lib/model/metrics.json: {} of {} is {}", key, text_of(row, "field"), text_of(row, key)));
}

std::string_view unit_of(const json& row) {
  for (std::string_view u : {kUnitGBps, kUnitUs, kUnitS, kUnitBytes, kUnitRatio, kUnitCount}) {
    if (u == text_of(row, "unit")) return u;
  }
  bad_field(row, "unit");
}

BetterIs better_of(const json& row) {
  for (BetterIs b : {BetterIs::kHigher, BetterIs::kLower, BetterIs::kNone}) {
    if (name(b) == text_of(row, "better")) return b;
  }
  bad_field(row, "better");
}

// The catalogue: lib/model/metrics.json, read once, grouped by section in report order.
const std::vector<Metric>& catalogue() {
  static const json file = json::parse(detail::embedded_text("metrics"));
  static const std::vector<Metric> rows = [] {
    std::vector<Metric> out;
    for (const json& section : file.at("sections")) {
      for (const json& m : section.at("metrics")) {
        out.push_back({text_of(section, "section"), text_of(m, "field"), text_of(m, "report_path"),
                       text_of(m, "gate_path"), unit_of(m), better_of(m), m.at("compared").get<bool>(),
                       text_of(m, "meaning")});
      }
    }
    return out;
  }();
  return rows;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::string location_shape(std::string_view location) {
  if (!location.empty() && location.front() == '.') location.remove_prefix(1);
  std::string out;
  out.reserve(location.size());
  for (std::size_t i = 0; i < location.size(); ++i) {
    out += location[i];
    if (location[i] != '[') continue;
    while (i + 1 < location.size() && location[i + 1] != ']') ++i;
  }
  return out;
}

namespace {

// A location shape against a report_path: '.'-segments equal, or `*` against a plain key.
bool matches(std::string_view pattern, std::string_view loc) {
  while (true) {
    const auto pd = pattern.find('.'), ld = loc.find('.');
    const auto p = pattern.substr(0, pd), l = loc.substr(0, ld);
    if (!(p == l || (p == "*" && !l.empty() && l.find('[') == std::string_view::npos))) return false;
    if (pd == std::string_view::npos || ld == std::string_view::npos) return pd == ld;
    pattern.remove_prefix(pd + 1);
    loc.remove_prefix(ld + 1);
  }
}

}  // namespace

std::string_view name(BetterIs b) {
  static constexpr std::string_view kNames[] = {"higher", "lower", "none"};  // enum order
  return kNames[static_cast<std::size_t>(b)];
}

std::span<const Metric> metric_catalogue() {
  return catalogue();
}

const Metric* find_metric(std::string_view section, std::string_view field) {
  static const auto by_key = [] {
    std::map<std::pair<std::string_view, std::string_view>, const Metric*> m;
    for (const auto& e : catalogue()) m.emplace(std::pair{e.section, e.field}, &e);
    return m;
  }();
  const auto it = by_key.find({section, field});
  return it == by_key.end() ? nullptr : it->second;
}

const Metric& metric(std::string_view section, std::string_view field) {
  if (const Metric* m = find_metric(section, field)) return *m;
  throw std::logic_error(
      fmt::format("metric {}.{} is not in the catalogue (lib/model/metrics.json)", section, field));
}

const Metric* find_metric_at(std::string_view location) {
  const std::string loc = location_shape(location);
  for (const auto& e : catalogue()) {
    if (!e.report_path.empty() && matches(e.report_path, loc)) return &e;
  }
  return nullptr;
}

std::optional<std::string_view> unit_from_suffix(std::string_view field) {
  if (const auto dot = field.rfind('.'); dot != std::string_view::npos) field.remove_prefix(dot + 1);
  // "_us" before "_s": the longest suffix that ends the name.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kSuffixes = {
      {{"_gbps", kUnitGBps}, {"_us", kUnitUs}, {"_bytes", kUnitBytes}, {"_s", kUnitS}}};
  for (const auto& [suffix, unit] : kSuffixes) {
    if (ends_with(field, suffix) && field.size() > suffix.size()) return unit;
  }
  return std::nullopt;
}

std::string_view unit_at(std::string_view location) {
  if (const Metric* m = find_metric_at(location)) return m->unit;
  std::string loc = location_shape(location);
  while (ends_with(loc, "[]")) loc.resize(loc.size() - 2);
  return unit_from_suffix(loc).value_or("");
}

std::string metric_catalogue_text() {
  constexpr auto kRow = "{:<9} {:<50} {:<6} {:<7} {:<8} {}\n";
  std::string out = fmt::format(kRow, "section", "gate path", "unit", "better", "compare", "meaning");
  for (const auto& e : catalogue()) {
    const std::string path =
        e.gate_path.empty() ? fmt::format("- ({}.{})", e.section, e.field) : std::string(e.gate_path);
    out += fmt::format(kRow, e.section, path, e.unit, name(e.better), e.compared ? "yes" : "-", e.meaning);
  }
  return out;
}

}  // namespace fabcheck::model
