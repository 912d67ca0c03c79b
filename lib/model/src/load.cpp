#include "fabcheck/report/load.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>

#include "fabcheck/core/error.hpp"
#include "fabcheck/core/input_limits.hpp"
#include "fabcheck/core/read_bounded.hpp"
#include "fabcheck/report/document.hpp"
#include "json_fast_parse.hpp"

namespace fabcheck::report {

namespace {

using nlohmann::json;

[[noreturn]] void not_a_report(std::string_view origin, std::string_view why) {
  throw UsageError(fmt::format(
      "{}: not a fabcheck report ({}; give a file written by fabcheck --json, or convert nccl-tests output "
      "with 'fabcheck import')",
      origin, why));
}

}  // namespace

void check_report(const json& doc, std::string_view origin) {
  if (!doc.is_object())
    not_a_report(origin, fmt::format("top level is a {}, not an object", doc.type_name()));
  if (!doc.contains("schema_version")) not_a_report(origin, "no schema_version");
  const auto& v = doc["schema_version"];
  if (!v.is_number_integer()) not_a_report(origin, "schema_version is not an integer");
  const auto tool = doc.find("tool");
  if (tool == doc.end() || !tool->is_object() || tool->value("name", json()) != "fabcheck") {
    not_a_report(origin, "no tool.name \"fabcheck\"");
  }
  const auto version = v.get<long long>();
  if (version < 1) not_a_report(origin, fmt::format("schema_version {} is not a version", version));
  if (version > kSchemaVersion) {
    std::string writer = "a newer fabcheck";
    if (tool->contains("version") && (*tool)["version"].is_string()) {
      writer = fmt::format("fabcheck {}", (*tool)["version"].get<std::string>());
    }
    throw UsageError(fmt::format(
        "{}: schema_version {} is newer than this fabcheck reads ({}) (read it with {} or later, the build "
        "that wrote it)",
        origin, version, kSchemaVersion, writer));
  }
}

namespace {

/// nlohmann's parser: the slow path, taken only for text simdjson refuses, for nlohmann's exact message (line
/// and column) or its reading of what simdjson is stricter about.
json parse_slow(std::string_view text, std::string_view origin) {
  try {
    return json::parse(text.begin(), text.end(), nullptr, true, /*ignore_comments=*/false);
  } catch (const json::out_of_range& e) {  // "number overflow parsing '1e309'"
    std::string msg = e.what();
    if (auto p = msg.find("] "); p != std::string::npos) msg = msg.substr(p + 2);
    throw UsageError(
        fmt::format("{}: not valid JSON here: {} (numbers must be finite doubles)", origin, msg));
  } catch (const json::parse_error& e) {
    std::string msg = e.what();
    // nlohmann: "[json.exception.parse_error.101] parse error at line 3, column 5: ..." -> keep the rest.
    if (auto p = msg.find("] "); p != std::string::npos) msg = msg.substr(p + 2);
    for (char& c : msg) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    const bool truncated = e.byte >= text.size();
    throw UsageError(
        fmt::format("{}: {}: {} ({})", origin, truncated ? "truncated JSON" : "not valid JSON", msg,
                    truncated ? "the file ends early: the writer was interrupted; use a complete "
                                "report or re-run with --json"
                              : "give a report written by fabcheck --json"));
  }
}

// Removes the values at `path` ("*": every key or element), as the fast path leaves them out.
void erase_path(json& at, const std::vector<std::string>& path, std::size_t depth = 0) {
  if (depth >= path.size()) return;
  const std::string& k = path[depth];
  const bool last = depth + 1 == path.size();
  if (at.is_object()) {
    if (k == "*") {
      if (last) {
        at = json::object();
        return;
      }
      for (auto& [key, v] : at.items()) erase_path(v, path, depth + 1);
    } else if (auto it = at.find(k); it != at.end()) {
      if (last) {
        at.erase(it);
      } else {
        erase_path(*it, path, depth + 1);
      }
    }
  } else if (at.is_array() && k == "*") {
    if (last) {
      at = json::array();
      return;
    }
    for (auto& v : at) erase_path(v, path, depth + 1);
  }
}

json parse_owned(std::string text, std::string_view origin, const LoadOptions& opts) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw UsageError(fmt::format("{}: empty file (give a report written by fabcheck --json)", origin));
  }
  // No input may crash fabcheck: nothing downstream recurses deeper than the cap (the fast path refuses
  // deeper text, and check_json_depth says where)
  json doc;
  if (auto fast = detail::fast_parse(text, opts, static_cast<std::size_t>(core::kMaxJsonDepth))) {
    doc = std::move(*fast);
  } else {
    core::check_json_depth(text, origin);
    doc = parse_slow(text, origin);
    for (const auto& path : opts.skip) erase_path(doc, path);
  }
  check_report(doc, origin);
  return doc;
}

}  // namespace

namespace {

// Every place a pairs matrix or schedule sits: the top-level pairs section (the first rail) and each rail.
void add_pairs(LoadOptions& o, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    o.skip.push_back({"pairs", k});
    o.skip.push_back({"pairs", "rails", "*", k});
  }
}

}  // namespace

LoadOptions html_load_options() {
  LoadOptions o;
  add_pairs(o, {"schedule", "lat_min_us", "lat_p99_us", "bidir_gbps"});
  o.skip.push_back({"nics", "schedule"});
  return o;
}

LoadOptions compare_load_options() {
  LoadOptions o;
  add_pairs(o, {"schedule", "lat_min_us", "bidir_gbps"});
  o.skip.push_back({"nics", "schedule"});
  for (const char* k : {"bw_gbps", "lat_p50_us", "lat_p99_us"}) {
    o.dense.push_back({"pairs", k});
    o.dense.push_back({"pairs", "rails", "*", k});
  }
  return o;
}

std::optional<DenseMatrix> dense_matrix(const json& v) {
  DenseMatrix m;
  if (v.is_binary()) {
    const auto& b = v.get_binary();
    if (!b.has_subtype() || b.subtype() != kDenseMatrixSubtype || b.size() < 2 * sizeof(std::uint64_t))
      return std::nullopt;
    std::uint64_t dims[2];
    std::memcpy(dims, b.data(), sizeof dims);
    m.rows = dims[0];
    m.cols = dims[1];
    if (b.size() != sizeof dims + m.rows * m.cols * sizeof(double)) return std::nullopt;
    m.values.resize(m.rows * m.cols);
    if (!m.values.empty())
      std::memcpy(m.values.data(), b.data() + sizeof dims, m.values.size() * sizeof(double));
    return m;
  }
  if (!v.is_array()) return std::nullopt;
  m.rows = v.size();
  for (const auto& r : v)
    if (r.is_array()) m.cols = std::max(m.cols, r.size());
  m.values.assign(m.rows * m.cols, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t i = 0; i < m.rows; ++i)
    for (std::size_t j = 0; v[i].is_array() && j < v[i].size(); ++j)
      if (v[i][j].is_number()) m.values[i * m.cols + j] = v[i][j].get<double>();
  return m;
}

LoadOptions gate_load_options() {
  LoadOptions o;
  add_pairs(o, {"schedule", "bw_gbps", "lat_p50_us", "lat_min_us", "lat_p99_us", "bidir_gbps"});
  o.skip.push_back({"nics", "schedule"});
  return o;
}

bool names_skipped(const LoadOptions& o, const std::vector<std::string>& metrics) {
  for (const auto& m : metrics) {
    // a metric path's words: "pairs.bw_gbps[][]" -> pairs, bw_gbps
    std::size_t i = 0;
    while (i < m.size()) {
      auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
      while (i < m.size() && !word(m[i])) ++i;
      std::size_t e = i;
      while (e < m.size() && word(m[e])) ++e;
      const std::string_view w(m.data() + i, e - i);
      for (const auto& path : o.skip)
        if (!w.empty() && path.back() == w) return true;
      i = e;
    }
  }
  return false;
}

json parse_report_text(std::string_view text, std::string_view origin, const LoadOptions& opts) {
  return parse_owned(std::string(text), origin, opts);
}

std::string read_input_file(const std::string& path, std::string_view origin, std::string_view kind,
                            std::uint64_t cap_mib) {
  // room for the JSON parser's padding, so that a report is parsed where it was read (not copied)
  return core::read_input_file(path, origin, kind, core::input_cap_bytes(cap_mib),
                               detail::fast_parse_padding());
}

json load_report(const std::string& path, std::string_view what, const LoadOptions& opts) {
  const std::string origin = fmt::format("{} {}", what, path);
  return parse_owned(read_input_file(path, origin, "report file"), origin, opts);
}

}  // namespace fabcheck::report
