#include "fabcheck/report/workloads.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "fabcheck/core/error.hpp"
#include "fabcheck/core/input_limits.hpp"
#include "fabcheck/core/read_bounded.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck_workloads_embedded.hpp"

namespace fabcheck::report {

namespace {

using nlohmann::json;

std::string value_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number()) return fmt::format("{}", v.get<double>());
  return v.dump();
}

struct Reader {
  const std::string& source;
  [[noreturn]] void fail(const std::string& pointer, const std::string& msg) const {
    throw UsageError(fmt::format("{} {}: {}", source, pointer, msg));
  }
};

}  // namespace

namespace {

/// Reads one profile's fields: every number is {"value": ..., "why": "..."}, and errors name the JSON
/// pointer.
struct ProfileReader {
  const Reader& r;
  const json& w;
  const std::string& base;
  WorkloadProfile& p;

  const json* field(const char* key, bool required) {
    const std::string ptr = base + "/" + key;
    if (!w.contains(key)) {
      if (required) r.fail(ptr, "missing (write {\"value\": ..., \"why\": \"...\"})");
      return nullptr;
    }
    const json& f = w[key];
    if (!f.is_object() || !f.contains("value") || !f.contains("why")) {
      r.fail(ptr, "must be {\"value\": ..., \"why\": \"the assumption behind it\"}");
    }
    for (const auto& [k, v] : f.items()) {
      if (k != "value" && k != "why") r.fail(ptr + "/" + k, "unknown key (allowed: value, why)");
    }
    if (!f["why"].is_string() || f["why"].get<std::string>().empty()) {
      r.fail(ptr + "/why", "must be a non-empty string: every number needs its assumption");
    }
    p.assumptions.push_back({key, value_text(f["value"]), f["why"].get<std::string>()});
    return &f["value"];
  }
  double number(const char* key, const json* v) const {
    if (!v->is_number()) r.fail(base + "/" + key + "/value", "must be a number");
    const double d = v->get<double>();
    if (!std::isfinite(d)) r.fail(base + "/" + key + "/value", "must be finite");
    return d;
  }
  int integer(const char* key, bool required) {
    const json* v = field(key, required);
    if (v == nullptr) return 0;
    if (!v->is_number_integer()) r.fail(base + "/" + key + "/value", "must be an integer");
    const long long n = v->get<long long>();
    if (n < 1 || n > 1000000) r.fail(base + "/" + key + "/value", "must be between 1 and 1000000");
    return static_cast<int>(n);
  }
  /// A size such as "25M" (core::parse_size), the error prefixed with the file.
  std::uint64_t size_text(const json* v, const std::string& ptr) const {
    try {
      return core::parse_size(v->get<std::string>(), ptr);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{} {}", r.source, e.what()));
    }
  }
};

void check_profile_keys(const Reader& r, const json& w, const std::string& base) {
  static const std::set<std::string> kKnown = {"name",
                                               "description",
                                               "parallelism",
                                               "parameters",
                                               "bytes_per_grad",
                                               "bytes_per_param",
                                               "bucket_bytes",
                                               "fsdp_units",
                                               "compute_s",
                                               "overlap",
                                               "pp_stages",
                                               "pp_micro_batches",
                                               "pp_activation_bytes",
                                               "pp_forward_s",
                                               "pp_backward_s"};
  for (const auto& [k, v] : w.items()) {
    if (!kKnown.count(k)) {
      r.fail(base + "/" + k,
             "unknown key (allowed: name, description, parallelism, parameters, bytes_per_grad, "
             "bytes_per_param, bucket_bytes, fsdp_units, compute_s, overlap, pp_stages, pp_micro_batches, "
             "pp_activation_bytes, pp_forward_s, pp_backward_s)");
    }
  }
}

/// The pipeline-parallel fields; its compute is m x (t_f + t_b).
void read_pp_fields(ProfileReader& in) {
  WorkloadProfile& p = in.p;
  p.pp_stages = in.integer("pp_stages", true);
  p.pp_micro_batches = in.integer("pp_micro_batches", true);
  const json* act = in.field("pp_activation_bytes", true);
  p.pp_activation_bytes = act->is_string()
                              ? static_cast<double>(in.size_text(act, in.base + "/pp_activation_bytes/value"))
                              : in.number("pp_activation_bytes", act);
  p.pp_forward_s = in.number("pp_forward_s", in.field("pp_forward_s", true));
  p.pp_backward_s = in.number("pp_backward_s", in.field("pp_backward_s", true));
  for (const char* k : {"parameters", "bytes_per_grad", "bytes_per_param", "bucket_bytes", "fsdp_units",
                        "compute_s", "overlap"}) {
    if (in.w.contains(k))
      in.r.fail(in.base + "/" + k,
                "not a pp field (pp takes pp_stages, pp_micro_batches, pp_activation_bytes, "
                "pp_forward_s, pp_backward_s; its compute is m x (t_f + t_b))");
  }
  p.compute_s = p.pp_micro_batches * (p.pp_forward_s + p.pp_backward_s);
}

/// The data-parallel (DDP / FSDP) fields.
void read_dp_fields(ProfileReader& in) {
  WorkloadProfile& p = in.p;
  p.parameters = in.number("parameters", in.field("parameters", true));
  p.bytes_per_grad = in.number("bytes_per_grad", in.field("bytes_per_grad", true));
  if (const json* v = in.field("bytes_per_param", false)) {
    p.bytes_per_param = in.number("bytes_per_param", v);
  } else {
    p.bytes_per_param = p.bytes_per_grad;
  }
  p.compute_s = in.number("compute_s", in.field("compute_s", true));
  p.overlap = in.number("overlap", in.field("overlap", true));
  const bool ddp = p.parallelism == Parallelism::kDdp;
  if (const json* v = in.field("bucket_bytes", ddp)) {
    const std::string ptr = in.base + "/bucket_bytes/value";
    if (v->is_string()) {
      p.bucket_bytes = in.size_text(v, ptr);
    } else if (v->is_number_unsigned() || (v->is_number_integer() && v->get<long long>() > 0)) {
      p.bucket_bytes = v->get<std::uint64_t>();
    } else {
      in.r.fail(ptr, "must be a positive byte count or a size such as \"25M\"");
    }
  }
  if (const int units = in.integer("fsdp_units", !ddp); units > 0) p.fsdp_units = units;
}

WorkloadProfile read_profile(const Reader& r, const json& w, const std::string& base,
                             std::set<std::string>& names) {
  if (!w.is_object()) r.fail(base, "must be an object");
  WorkloadProfile p;
  if (!w.contains("name") || !w["name"].is_string() || w["name"].get<std::string>().empty()) {
    r.fail(base + "/name", "missing (a string such as \"llama-7b-ddp-bf16\")");
  }
  p.name = w["name"].get<std::string>();
  if (!names.insert(p.name).second)
    r.fail(base + "/name", fmt::format("duplicate workload name '{}'", p.name));
  if (w.contains("description")) {
    if (!w["description"].is_string()) r.fail(base + "/description", "must be a string");
    p.description = w["description"].get<std::string>();
  }
  check_profile_keys(r, w, base);
  ProfileReader in{r, w, base, p};
  const json* par = in.field("parallelism", true);
  const std::string par_s = par->is_string() ? par->get<std::string>() : "";
  if (par_s == "ddp") {
    p.parallelism = Parallelism::kDdp;
  } else if (par_s == "fsdp") {
    p.parallelism = Parallelism::kFsdp;
  } else if (par_s == "pp") {
    p.parallelism = Parallelism::kPp;
  } else {
    r.fail(base + "/parallelism/value", "must be \"ddp\", \"fsdp\" or \"pp\"");
  }
  if (p.parallelism == Parallelism::kPp) {
    read_pp_fields(in);
  } else {
    read_dp_fields(in);
  }
  validate(p, fmt::format("{} {} ({})", r.source, base, p.name));
  return p;
}

}  // namespace

WorkloadSet parse_workloads(std::string_view text, const std::string& source) {
  Reader r{source};
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number past a double ("1e309")
    throw UsageError(fmt::format("{}: not valid JSON ({})", source, e.what()));
  }
  if (!doc.is_object()) r.fail("/", "must be an object with \"workloads\": [...]");
  for (const auto& [k, v] : doc.items()) {
    if (k != "about" && k != "default" && k != "workloads") {
      r.fail("/" + k, "unknown key (allowed: about, default, workloads)");
    }
  }
  if (!doc.contains("workloads") || !doc["workloads"].is_array() || doc["workloads"].empty()) {
    r.fail("/workloads", "must be a non-empty array of profiles");
  }
  WorkloadSet set;
  set.source = source;
  std::set<std::string> names;
  for (std::size_t i = 0; i < doc["workloads"].size(); ++i)
    set.profiles.push_back(read_profile(r, doc["workloads"][i], fmt::format("/workloads/{}", i), names));
  if (doc.contains("default")) {
    if (!doc["default"].is_string()) r.fail("/default", "must be a workload name");
    set.default_name = doc["default"].get<std::string>();
    if (!names.count(set.default_name)) {
      r.fail("/default", fmt::format("names no workload ('{}')", set.default_name));
    }
  } else {
    set.default_name = set.profiles.front().name;
  }
  return set;
}

const WorkloadSet& builtin_workloads() {
  static const WorkloadSet set =
      parse_workloads(embedded::kWorkloadsJson, "configs/workloads.json (built in)");
  return set;
}

WorkloadSet load_workloads(const std::string& path, std::string_view flag) {
  if (path.empty()) return builtin_workloads();
  return parse_workloads(core::read_input_file(path, fmt::format("{} {}", flag, path), "workloads JSON file",
                                               core::input_cap_bytes(core::kConfigCapMiB)),
                         path);
}

const WorkloadProfile& find_workload(const WorkloadSet& set, const std::string& name, std::string_view flag) {
  const std::string& want = name.empty() ? set.default_name : name;
  for (const auto& p : set.profiles) {
    if (p.name == want) return p;
  }
  std::string known;
  for (const auto& p : set.profiles) known += (known.empty() ? "" : ", ") + p.name;
  throw UsageError(fmt::format("{}: unknown workload '{}' (known: {})", flag, want, known));
}

}  // namespace fabcheck::report
