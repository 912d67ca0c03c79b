// nccl-tests `-J` JSON (nccl-tests src/util.cu, JSON_FILE_VERSION 2/3), with its quirks:
// booleans written as strings, root as a "%6i" string, doubles as %lf (6 decimals), NaN as "nan".
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "fabcheck/core/ascii.hpp"
#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/parse/nccl_tests.hpp"
#include "nccl_tests_util.hpp"

namespace fabcheck::parse {

namespace {

using nlohmann::json;

/// %lf prints 6 decimals: half a unit in the last place.
constexpr double kLfHalfUlp = 0.5e-6;

std::optional<std::int64_t> opt_int(const json& obj, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  if (it->is_number_integer()) return it->get<std::int64_t>();
  if (it->is_number_unsigned()) return static_cast<std::int64_t>(it->get<std::uint64_t>());
  if (it->is_string()) {
    const auto s = it->get<std::string>();
    if (s == "true") return 1;
    if (s == "false") return 0;
    if (auto v = detail::parse_int(core::trim_blanks(s))) return *v;
  }
  return std::nullopt;
}

[[noreturn]] void bad(std::string_view origin, const std::string& what) {
  throw UsageError(
      fmt::format("{}: {} (give the file nccl-tests wrote with -J, or its console output)", origin, what));
}

std::optional<PrintedNumber> number(const json& v) {
  if (!v.is_number()) return std::nullopt;  // "nan" strings and nulls
  const double d = v.get<double>();
  if (!std::isfinite(d)) return std::nullopt;
  return PrintedNumber{d, kLfHalfUlp};
}

/// nccl-tests' JSON writer prints a NaN or infinite double as the string "nan"/"inf" (`-nan`, `-inf` from
/// glibc's %lf): the value nccl-tests could not compute, not a malformed file.
/// Source: nccl-tests src/util.cu (JSON_FILE_VERSION 3), its double writer.
bool printed_non_finite(const json& v) {
  if (!v.is_string()) return false;
  std::string s = core::ascii_lower(core::trim_blanks(v.get_ref<const std::string&>()));
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.erase(0, 1);
  return s == "nan" || s == "inf" || s == "infinity";
}

/// The first field of a row's blocks that nccl-tests printed as non-finite ("in_place.alg_bw"), or "".
std::string non_finite_field(const json& r) {
  for (const char* which : {"out_of_place", "in_place"}) {
    const auto b = r.find(which);
    if (b == r.end() || !b->is_object()) continue;
    for (const char* k : {"time", "cpu_time", "alg_bw", "bus_bw"})
      if (const auto v = b->find(k); v != b->end() && printed_non_finite(*v))
        return fmt::format("{}.{} {}", which, k, v->dump());
  }
  return "";
}

std::optional<NcclTestsBlock> block(const json& b, std::string_view origin, std::size_t i,
                                    const char* which) {
  if (b.is_null()) return std::nullopt;
  if (!b.is_object()) bad(origin, fmt::format("results[{}].{} is not an object", i, which));
  NcclTestsBlock out;
  const json& t = b.contains("time") ? b["time"] : b.contains("cpu_time") ? b["cpu_time"] : json();
  auto time = number(t), alg = number(b.value("alg_bw", json())), bus = number(b.value("bus_bw", json()));
  if (!time || !alg || !bus) {
    bad(origin, fmt::format("results[{}].{} lacks a numeric time, alg_bw or bus_bw", i, which));
  }
  out.time_us = *time;
  out.algbw_gbps = *alg;
  out.busbw_gbps = *bus;
  if (const auto w = b.find("nwrong"); w != b.end() && w->is_number()) out.wrong = w->get<double>();
  return out;
}

}  // namespace

bool looks_like_json(std::string_view text) {
  const auto p = text.find_first_not_of(" \t\r\n");
  return p != std::string_view::npos && text[p] == '{';
}

NcclTestsRun parse_nccl_tests_json(std::string_view text, std::string_view origin) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    std::string msg = e.what();
    if (auto p = msg.find("] "); p != std::string::npos) msg = msg.substr(p + 2);
    for (char& c : msg) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    bad(origin, fmt::format("{}: {}", e.byte >= text.size() ? "truncated JSON" : "not valid JSON", msg));
  } catch (const json::out_of_range& e) {  // "number overflow parsing '1E073741824'"
    std::string msg = e.what();
    if (auto p = msg.find("] "); p != std::string::npos) msg = msg.substr(p + 2);
    bad(origin, fmt::format("not valid JSON here: {} (numbers must be finite doubles)", msg));
  }
  if (!doc.is_object()) bad(origin, "not an nccl-tests JSON file (top level is not an object)");
  if (doc.contains("schema_version")) {
    bad(origin, "this is a fabcheck report already, not nccl-tests output (use it directly)");
  }
  if (!doc.contains("results") || !doc["results"].is_array()) {
    bad(origin, "not an nccl-tests JSON file (no \"results\" array)");
  }
  NcclTestsRun run;
  run.format = "nccl-tests-json";
  run.json_version = static_cast<int>(opt_int(doc, "version").value_or(0));
  if (doc.contains("start_time") && doc["start_time"].is_string()) run.start_time = doc["start_time"];
  if (doc.contains("args") && doc["args"].is_array()) {
    for (const auto& a : doc["args"]) {
      if (a.is_string()) run.args.push_back(a.get<std::string>());
    }
  }
  if (const auto v = opt_int(doc, "nccl_version"); v && *v > 0) {
    // NCCL_VERSION_CODE: major*10000 + minor*100 + patch since 2.9 (2.18.3 -> 21803).
    run.nccl_version = fmt::format("{}.{}.{}", *v / 10000, (*v / 100) % 100, *v % 100);
  }
  if (doc.contains("config") && doc["config"].is_object()) {
    const json& c = doc["config"];
    run.nthreads = opt_int(c, "nthreads");
    run.ngpus = opt_int(c, "ngpus");
    run.min_bytes = opt_int(c, "minimum_bytes");
    run.max_bytes = opt_int(c, "maximum_bytes");
    run.step_factor = opt_int(c, "step_factor");
    run.step_bytes = opt_int(c, "step_bytes");
    run.warmup_iters = opt_int(c, "warmup_iters");
    run.iters = opt_int(c, "iterations");
    run.agg_iters = opt_int(c, "aggregated_iterations");
    run.validation = opt_int(c, "validation");
    run.graph = opt_int(c, "graph");
    if (c.contains("devices") && c["devices"].is_array()) {
      for (const auto& d : c["devices"]) {
        if (!d.is_object()) continue;
        NcclTestsDevice dev;
        const auto rank = opt_int(d, "rank");
        if (!rank || *rank < 0 || *rank > 100000000) continue;
        dev.rank = static_cast<int>(*rank);
        dev.group = static_cast<int>(opt_int(d, "group").value_or(0));
        dev.pid = static_cast<int>(opt_int(d, "pid").value_or(0));
        dev.device = static_cast<int>(opt_int(d, "device").value_or(-1));
        if (d.contains("hostname") && d["hostname"].is_string()) dev.host = d["hostname"];
        if (d.contains("device_hex") && d["device_hex"].is_string()) dev.bus = d["device_hex"];
        if (d.contains("device_info") && d["device_info"].is_string()) dev.name = d["device_info"];
        run.devices.push_back(std::move(dev));
      }
    }
  }
  NcclTestsTable t;
  t.layout = "json";
  if (!run.args.empty()) {
    const auto& a0 = run.args.front();
    const auto slash = a0.find_last_of('/');
    t.program = slash == std::string::npos ? a0 : a0.substr(slash + 1);
  }
  // fabcheck's own `-J` file (report/nccl_tests_json_writer.hpp) names its collective in an env entry, since
  // args[0] is `fabcheck`, not an nccl-tests binary.
  if (doc.contains("env") && doc["env"].is_array()) {
    for (const auto& e : doc["env"]) {
      if (!e.is_string()) continue;
      const auto& s = e.get_ref<const std::string&>();
      if (s.starts_with("FABCHECK_COLLECTIVE=")) {
        if (auto c = core::parse_collective(s.substr(20))) t.program = core::nccl_tests_binary(*c);
      } else if (s.starts_with("FABCHECK_VERSION=")) {
        run.notes.push_back("written by fabcheck " + s.substr(17));
      }
    }
  }
  const json& results = doc["results"];
  for (std::size_t i = 0; i < results.size(); ++i) {
    const json& r = results[i];
    if (!r.is_object()) bad(origin, fmt::format("results[{}] is not an object", i));
    NcclTestsRow row;
    const auto size = opt_int(r, "size"), count = opt_int(r, "count");
    if (!size || !count || *size < 0 || *count < 0) {
      bad(origin, fmt::format("results[{}] lacks an integer size or count", i));
    }
    row.size_bytes = static_cast<std::uint64_t>(*size);
    row.count = static_cast<std::uint64_t>(*count);
    if (r.contains("type") && r["type"].is_string()) row.dtype = r["type"];
    if (r.contains("redop") && r["redop"].is_string()) row.redop = r["redop"];
    const auto root = opt_int(r, "root");
    row.root = root && *root >= -1 && *root <= 100000000 ? static_cast<int>(*root) : -1;
    // A row nccl-tests printed with a non-finite number is dropped and counted, as in its console table.
    if (const auto field = non_finite_field(r); !field.empty()) {
      if (t.rejected_rows++ == 0) t.first_rejected = fmt::format("results[{}].{}", i, field);
      continue;
    }
    row.out_of_place = block(r.value("out_of_place", json()), origin, i, "out_of_place");
    auto ip = block(r.value("in_place", json()), origin, i, "in_place");
    if (!ip) bad(origin, fmt::format("results[{}] has no in_place result", i));
    row.in_place = *ip;
    t.rows.push_back(std::move(row));
  }
  if (doc.contains("out_of_bounds") && doc["out_of_bounds"].is_object()) {
    t.out_of_bounds = opt_int(doc["out_of_bounds"], "count");
  }
  if (doc.contains("average_bus_bandwidth") && doc["average_bus_bandwidth"].is_object()) {
    if (auto v = number(doc["average_bus_bandwidth"].value("bandwidth", json()))) t.avg_busbw_gbps = *v;
  }
  run.tables.push_back(std::move(t));
  if (doc.contains("errors") && doc["errors"].is_array()) {
    for (const auto& e : doc["errors"]) {
      if (e.is_string() && !e.get<std::string>().empty()) run.errors.push_back(e.get<std::string>());
    }
  }
  return run;
}

}  // namespace fabcheck::parse
