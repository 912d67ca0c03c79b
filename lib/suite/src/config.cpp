#include "fabcheck/suite/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/report/gate.hpp"

namespace fabcheck::suite {

using nlohmann::json;

const std::vector<StepKind>& all_steps() {
  static const std::vector<StepKind> k = {StepKind::kInspect, StepKind::kSweep, StepKind::kLatency,
                                          StepKind::kIncast,  StepKind::kPairs, StepKind::kScaling,
                                          StepKind::kGate};
  return k;
}

std::string_view config_key(StepKind k) {
  switch (k) {
    case StepKind::kInspect:
      return "inspect";
    case StepKind::kSweep:
      return "sweep";
    case StepKind::kLatency:
      return "latency";
    case StepKind::kIncast:
      return "incast";
    case StepKind::kPairs:
      return "pairs";
    case StepKind::kScaling:
      return "scaling";
    case StepKind::kGate:
      return "gate";
  }
  return "?";
}

std::string_view section_name(StepKind k) {
  switch (k) {
    case StepKind::kInspect:
      return "inventory";
    case StepKind::kSweep:
      return "sweeps";
    default:
      return config_key(k);
  }
}

double Plan::total_budget_s() const {
  double t = 0;
  for (const auto& s : steps) {
    if (s.enabled) t += s.budget_s;
  }
  return t;
}

const Step& Plan::step(StepKind k) const {
  for (const auto& s : steps) {
    if (s.kind == k) return s;
  }
  throw std::logic_error("plan without step");
}

namespace {

std::string ptr_join(std::string_view base, std::string_view key) {
  std::string k(key);
  std::string esc;
  for (char c : k) {
    if (c == '~') {
      esc += "~0";
    } else if (c == '/') {
      esc += "~1";
    } else {
      esc += c;
    }
  }
  return fmt::format("{}/{}", base, esc);
}

std::string brief(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::string type_word(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::string:
      return "a string";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    case json::value_t::number_float:
      return "a fractional number";
    default:
      return "a number";
  }
}

[[noreturn]] void bad(std::string_view ptr, std::string_view what) {
  throw UsageError(fmt::format("{}: {}", ptr, what));
}

bool is_comment_key(std::string_view k) {
  return !k.empty() && k.front() == '_';
}

enum class Kind {
  kBool,
  kInt,
  kNumber,
  kSize,
  kSizeList,
  kIntList,
  kString,
  kCollectiveList,
  kCollective,
  kDtype,
  kRedop,
  kEnum
};

struct Field {
  const char* key;
  Kind kind;
  double min = 0;         // kInt/kNumber/kIntList: lower bound (inclusive); kSize/kSizeList: min bytes
  double max = 1e18;      // upper bound
  const char* help = "";  // enum values ("ring|all-pairs") or a hint
};

// The schema of every step section (besides enabled/budget_s). Keys are the probes' long flags with '_'.
const std::map<StepKind, std::vector<Field>>& schema() {
  static const std::map<StepKind, std::vector<Field>> s = {
      {StepKind::kInspect,
       {{"sysfs_root", Kind::kString},
        {"etc_root", Kind::kString},
        {"nvidia_smi", Kind::kBool},
        {"nccl_version", Kind::kString}}},
      {StepKind::kSweep,
       {{"collectives", Kind::kCollectiveList},
        {"min_bytes", Kind::kSize, 0},
        {"max_bytes", Kind::kSize, 0},
        {"step_factor", Kind::kInt, 2, 1024},
        {"step_bytes", Kind::kSize, 1},
        {"iters", Kind::kInt, 1, 1e9},
        {"warmup_iters", Kind::kInt, 0, 1e9},
        {"per_iter_iters", Kind::kInt, 0, 1e9},
        {"per_iter_rounds", Kind::kInt, 1, 1e6},
        {"check", Kind::kBool},
        {"dtype", Kind::kDtype},
        {"op", Kind::kRedop},
        {"average", Kind::kInt, 0, 3},
        {"backend", Kind::kEnum, 0, 0, "mpi|nccl"}}},
      {StepKind::kLatency,
       {{"pattern", Kind::kEnum, 0, 0, "ring|all-pairs"},
        {"sizes", Kind::kSizeList, 0},
        {"iters", Kind::kInt, 1, 1e9},
        {"warmup_iters", Kind::kInt, 0, 1e9},
        {"duration_s", Kind::kNumber, 0, 1e6},
        {"collectives", Kind::kBool},
        {"passes", Kind::kInt, 1, 1e6}}},
      {StepKind::kIncast,
       {{"receiver", Kind::kString},
        {"fan_in", Kind::kIntList, 1, 1e6},
        {"sizes", Kind::kSizeList, 1},
        {"rounds", Kind::kInt, 1, 1e9},
        {"duration_s", Kind::kNumber, 0, 1e6},
        {"victim", Kind::kBool},
        {"victim_iters", Kind::kInt, 1, 1e9},
        {"victim_interval_us", Kind::kNumber, 0, 1e6}}},
      {StepKind::kPairs,
       {{"size", Kind::kSize, 1},
        {"window", Kind::kInt, 1, 1e6},
        {"iters", Kind::kInt, 1, 1e9},
        {"lat_iters", Kind::kInt, 1, 1e9},
        {"retest", Kind::kBool},
        {"bidir", Kind::kBool},
        {"all_ranks", Kind::kBool}}},
      {StepKind::kScaling,
       {{"collective", Kind::kCollective},
        {"workload", Kind::kString},
        {"workloads_file", Kind::kString},
        {"max_bytes", Kind::kSize, 1},
        {"iters", Kind::kInt, 1, 1e9}}},
      {StepKind::kGate, {}},
  };
  return s;
}

std::string known_keys(StepKind k) {
  std::string out = k == StepKind::kGate ? "enabled, checks" : "enabled, budget_s";
  for (const auto& f : schema().at(k)) out += fmt::format(", {}", f.key);
  return out;
}

std::int64_t want_int(const json& v, std::string_view ptr, double lo, double hi) {
  if (!v.is_number_integer() && !v.is_number_unsigned()) {
    bad(ptr, fmt::format("expected an integer, got {} {}", type_word(v), brief(v)));
  }
  const double d = v.get<double>();
  if (d < lo || d > hi) bad(ptr, fmt::format("{} is out of range (allowed {}..{})", brief(v), lo, hi));
  return v.get<std::int64_t>();
}

double want_number(const json& v, std::string_view ptr, double lo, double hi) {
  if (!v.is_number()) bad(ptr, fmt::format("expected a number, got {} {}", type_word(v), brief(v)));
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < lo || d > hi) {
    bad(ptr, fmt::format("{} is out of range (allowed {}..{})", brief(v), lo, hi));
  }
  return d;
}

const std::string& want_string(const json& v, std::string_view ptr) {
  if (!v.is_string()) bad(ptr, fmt::format("expected a string, got {} {}", type_word(v), brief(v)));
  return v.get_ref<const std::string&>();
}

std::uint64_t want_size(const json& v, std::string_view ptr, double min_bytes) {
  std::uint64_t b = 0;
  if (v.is_number_unsigned() || v.is_number_integer()) {
    if (v.get<std::int64_t>() < 0)
      bad(ptr, fmt::format("{} is not a size (sizes are not negative)", brief(v)));
    b = v.get<std::uint64_t>();
  } else if (v.is_string()) {
    b = core::parse_size(v.get_ref<const std::string&>(), ptr);
  } else {
    bad(ptr,
        fmt::format("{} is not a size (give bytes as an integer or a string such as \"64M\")", brief(v)));
  }
  if (static_cast<double>(b) < min_bytes) {
    bad(ptr,
        fmt::format("{} is too small (at least {} bytes)", brief(v), static_cast<std::uint64_t>(min_bytes)));
  }
  return b;
}

json normalize_field(const Field& f, const json& v, const std::string& ptr) {
  switch (f.kind) {
    case Kind::kBool:
      if (!v.is_boolean()) bad(ptr, fmt::format("expected true or false, got {} {}", type_word(v), brief(v)));
      return v;
    case Kind::kInt:
      return want_int(v, ptr, f.min, f.max);
    case Kind::kNumber:
      return want_number(v, ptr, f.min, f.max);
    case Kind::kSize:
      return want_size(v, ptr, f.min);
    case Kind::kString:
      return want_string(v, ptr);
    case Kind::kSizeList:
    case Kind::kIntList: {
      json items = v;
      if (f.kind == Kind::kSizeList && v.is_string()) {  // "8,4K,64K" as on the command line
        items = json::array();
        for (auto b : core::parse_size_list(v.get_ref<const std::string&>(), ptr)) items.push_back(b);
      }
      if (!items.is_array()) bad(ptr, fmt::format("expected an array, got {} {}", type_word(v), brief(v)));
      if (items.empty()) bad(ptr, "empty list (give at least one value, or remove the key for the default)");
      json out = json::array();
      for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string ip = fmt::format("{}/{}", ptr, i);
        out.push_back(f.kind == Kind::kSizeList ? json(want_size(items[i], ip, f.min))
                                                : json(want_int(items[i], ip, f.min, f.max)));
      }
      return out;
    }
    case Kind::kCollectiveList: {
      if (v.is_string() && v.get<std::string>() == "all") return v;
      if (!v.is_array())
        bad(ptr, fmt::format("expected an array of collective names or \"all\", got {}", brief(v)));
      if (v.empty()) bad(ptr, "empty list (give collective names, e.g. [\"allreduce\"], or \"all\")");
      json out = json::array();
      for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string ip = fmt::format("{}/{}", ptr, i);
        const auto& s = want_string(v[i], ip);
        auto c = core::parse_collective(s);
        if (!c) bad(ip, fmt::format("\"{}\" is not a collective (see fabcheck --list)", s));
        out.push_back(std::string(core::name(*c)));
      }
      return out;
    }
    case Kind::kCollective: {
      const auto& s = want_string(v, ptr);
      auto c = core::parse_collective(s);
      if (!c) bad(ptr, fmt::format("\"{}\" is not a collective (see fabcheck --list)", s));
      return std::string(core::name(*c));
    }
    case Kind::kDtype: {
      const auto& s = want_string(v, ptr);
      auto d = core::parse_dtype(s);
      if (!d)
        bad(ptr,
            fmt::format(
                "\"{}\" is not a dtype (int8 uint8 int32 uint32 int64 uint64 half float double bfloat16)",
                s));
      return std::string(core::name(*d));
    }
    case Kind::kRedop: {
      const auto& s = want_string(v, ptr);
      auto o = core::parse_redop(s);
      if (!o) bad(ptr, fmt::format("\"{}\" is not a reduction op (sum prod min max)", s));
      return std::string(core::name(*o));
    }
    case Kind::kEnum: {
      const auto& s = want_string(v, ptr);
      std::string allowed = f.help;
      std::stringstream ss(allowed);
      std::string item;
      while (std::getline(ss, item, '|')) {
        if (item == s) return v;
      }
      bad(ptr, fmt::format("\"{}\" is not one of {}", s, allowed));
    }
  }
  return v;
}

Step make_step(StepKind kind, const json* section, const std::string& ptr) {
  Step st;
  st.kind = kind;
  if (!section) {
    st.disabled_reason = fmt::format("not in the config (add a \"{}\" section to run it)", config_key(kind));
    return st;
  }
  if (!section->is_object())
    bad(ptr, fmt::format("expected an object, got {} {}", type_word(*section), brief(*section)));
  st.enabled = true;
  const auto& fields = schema().at(kind);
  for (const auto& [key, v] : section->items()) {
    const std::string kp = ptr_join(ptr, key);
    if (is_comment_key(key)) continue;
    if (key == "enabled") {
      if (!v.is_boolean()) bad(kp, fmt::format("expected true or false, got {} {}", type_word(v), brief(v)));
      st.enabled = v.get<bool>();
      if (!st.enabled) st.disabled_reason = "disabled in the config (enabled: false)";
      continue;
    }
    if (key == "budget_s" && kind != StepKind::kGate) {
      st.budget_s = want_number(v, kp, 0, 1e7);
      continue;
    }
    if (key == "checks" && kind == StepKind::kGate) continue;  // validated by validate_gate_block
    auto it = std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return key == f.key; });
    if (it == fields.end())
      bad(kp, fmt::format("unknown key (known: {}; comments start with _)", known_keys(kind)));
    st.options[key] = normalize_field(*it, v, kp);
  }
  if (kind == StepKind::kSweep && st.options.contains("min_bytes") && st.options.contains("max_bytes") &&
      st.options["min_bytes"].get<std::uint64_t>() > st.options["max_bytes"].get<std::uint64_t>()) {
    bad(ptr_join(ptr, "min_bytes"), "is larger than max_bytes (give min_bytes <= max_bytes)");
  }
  if (kind == StepKind::kSweep && st.options.contains("step_factor") && st.options.contains("step_bytes")) {
    bad(ptr_join(ptr, "step_bytes"), "give step_factor or step_bytes, not both");
  }
  return st;
}

}  // namespace

json parse_json_text(std::string_view text, std::string_view origin) {
  try {
    return json::parse(text.begin(), text.end(), nullptr, true, /*ignore_comments=*/false);
  } catch (const json::parse_error& e) {
    std::string msg = e.what();
    // nlohmann: "[json.exception.parse_error.101] parse error at line 3, column 5: ..."
    auto p = msg.find("] ");
    if (p != std::string::npos) msg = msg.substr(p + 2);
    throw UsageError(fmt::format("{}: not valid JSON: {}", origin, msg));
  }
}

json load_json_file(const std::string& path, std::string_view flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{}: cannot read {} (give an existing JSON file)", flag, path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_json_text(ss.str(), fmt::format("{} {}", flag, path));
}

json validate_gate_block(const json& gate, std::string_view pointer) {
  const std::string base(pointer);
  if (!gate.is_object())
    bad(base.empty() ? "/" : base, fmt::format("expected an object with \"checks\", got {}", brief(gate)));
  json out = json::array();
  for (const auto& [key, v] : gate.items()) {
    if (is_comment_key(key) || key == "checks" || key == "enabled") continue;
    bad(ptr_join(base, key), "unknown key (known: enabled, checks; comments start with _)");
  }
  if (gate.contains("enabled") && !gate["enabled"].is_boolean()) {
    bad(ptr_join(base, "enabled"), fmt::format("expected true or false, got {}", brief(gate["enabled"])));
  }
  if (!gate.contains("checks")) return out;
  const auto& checks = gate["checks"];
  const std::string cp = ptr_join(base, "checks");
  if (!checks.is_array())
    bad(cp, fmt::format("expected an array of checks, got {} {}", type_word(checks), brief(checks)));
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const std::string ip = fmt::format("{}/{}", cp, i);
    const auto& c = checks[i];
    if (!c.is_object())
      bad(ip, fmt::format("expected an object {{metric, op, threshold}}, got {}", brief(c)));
    json norm = json::object();
    for (const auto& [key, v] : c.items()) {
      const std::string kp = ptr_join(ip, key);
      if (is_comment_key(key)) continue;
      if (key == "metric") {
        const auto& m = want_string(v, kp);
        try {
          report::parse_metric_path(m);
        } catch (const UsageError& e) {
          bad(kp, e.what());
        }
        norm["metric"] = m;
      } else if (key == "op") {
        const auto& o = want_string(v, kp);
        if (!report::parse_gate_op(o))
          bad(kp, fmt::format("\"{}\" is not an operator (use >=, <=, == or !=)", o));
        norm["op"] = o;
      } else if (key == "threshold") {
        if (!(v.is_number() || v.is_string() || v.is_boolean())) {
          bad(kp, fmt::format("expected a number, string or boolean, got {} {}", type_word(v), brief(v)));
        }
        if (v.is_number_float() && !std::isfinite(v.get<double>())) bad(kp, "must be finite");
        norm["threshold"] = v;
      } else if (key == "why") {
        norm["why"] = want_string(v, kp);
      } else {
        bad(kp, "unknown key (known: metric, op, threshold, why; comments start with _)");
      }
    }
    for (const char* req : {"metric", "op", "threshold"}) {
      if (!norm.contains(req))
        bad(ip, fmt::format("missing \"{}\" (a check is {{metric, op, threshold}})", req));
    }
    const auto op = *report::parse_gate_op(norm["op"].get<std::string>());
    if ((op == report::GateOp::kGe || op == report::GateOp::kLe) && !norm["threshold"].is_number()) {
      bad(ptr_join(ip, "threshold"),
          fmt::format("{} needs a number, got {}", norm["op"].get<std::string>(), brief(norm["threshold"])));
    }
    out.push_back(norm);
  }
  return out;
}

Plan make_plan(const json& config_in, std::string_view source) {
  const std::string prefix(source);
  try {
    if (!config_in.is_object())
      bad("/", fmt::format("a config is a JSON object, got {}", type_word(config_in)));
    json config = config_in;
    if (config.contains("extends")) {
      const auto& ext = config["extends"];
      if (!ext.is_string() || ext.get<std::string>() != "default") {
        bad("/extends", fmt::format("{} is not a base config (the only one is \"default\")", brief(ext)));
      }
      json base = parse_json_text(default_config_text(), "embedded default");
      json patch = config;
      patch.erase("extends");
      base.merge_patch(patch);
      config = base;
    }
    Plan plan;
    plan.source = prefix;
    plan.config = config;
    for (const auto& [key, v] : config.items()) {
      if (is_comment_key(key)) continue;
      const std::string kp = ptr_join("", key);
      if (key == "name") {
        plan.name = want_string(v, kp);
      } else if (key == "timeout_s") {
        plan.timeout_s = want_number(v, kp, 0.1, 1e7);
      } else if (key == "extends") {
        // resolved above
      } else {
        auto steps = all_steps();
        auto it = std::find_if(steps.begin(), steps.end(), [&](StepKind k) { return key == config_key(k); });
        if (it == steps.end()) {
          bad(kp,
              "unknown key (known: extends, name, timeout_s, inspect, sweep, latency, incast, pairs, "
              "scaling, "
              "gate; comments start with _)");
        }
      }
    }
    for (StepKind k : all_steps()) {
      const std::string key(config_key(k));
      const json* sec = config.contains(key) ? &config[key] : nullptr;
      plan.steps.push_back(make_step(k, sec, "/" + key));
      if (k == StepKind::kGate && sec) {
        plan.gate_checks = validate_gate_block(*sec, "/gate");
        if (plan.steps.back().enabled && plan.gate_checks.empty()) {
          plan.steps.back().enabled = false;
          plan.steps.back().disabled_reason = "no checks in the config (give gate.checks or --criteria FILE)";
        }
      }
    }
    return plan;
  } catch (const UsageError& e) {
    if (prefix.empty()) throw;
    throw UsageError(fmt::format("{}: {}", prefix, e.what()));
  }
}

json load_criteria(const std::string& path, std::string_view flag) {
  json j = load_json_file(path, flag);
  const std::string origin = fmt::format("{} {}", flag, path);
  try {
    if (j.is_object() && j.contains("gate")) {
      // A whole config (validated as one, so a typo elsewhere is not silently ignored) or {"gate": {...}}.
      for (const auto& [key, v] : j.items()) {
        (void)v;
        if (key != "gate" && !is_comment_key(key)) {
          make_plan(j, "");
          break;
        }
      }
      auto checks = validate_gate_block(j["gate"], "/gate");
      if (checks.empty()) bad("/gate/checks", "no checks (a criteria file needs at least one check)");
      return checks;
    }
    if (j.is_object() && j.contains("checks")) {
      auto checks = validate_gate_block(j, "");
      if (checks.empty()) bad("/checks", "no checks (a criteria file needs at least one check)");
      return checks;
    }
    bad("/", "no gate block (give {\"gate\": {\"checks\": [...]}} or a config with a gate section)");
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: {}", origin, e.what()));
  }
}

std::string render_plan(const Plan& plan, int nranks, int nhosts) {
  std::string out = fmt::format("# fabcheck run plan: {}{}\n", plan.source,
                                plan.name.empty() ? "" : fmt::format(" ({})", plan.name));
  out += fmt::format("# {} ranks on {} host(s); watchdog timeout {} s per operation\n", nranks, nhosts,
                     plan.timeout_s);
  int i = 0;
  for (const auto& st : plan.steps) {
    ++i;
    if (!st.enabled) {
      out += fmt::format("{:>2}. {:<8} skipped: {}\n", i, config_key(st.kind), st.disabled_reason);
      continue;
    }
    if (st.kind == StepKind::kGate) {
      out += fmt::format("{:>2}. {:<8} {} check(s)\n", i, "gate", plan.gate_checks.size());
      for (const auto& c : plan.gate_checks) {
        out += fmt::format("      {} {} {}\n", c["metric"].get<std::string>(), c["op"].get<std::string>(),
                           c["threshold"].dump());
      }
      continue;
    }
    std::string opts;
    for (const auto& [k, v] : st.options.items()) {
      opts += fmt::format(" {}={}", k, v.is_string() ? v.get<std::string>() : v.dump());
    }
    out += fmt::format("{:>2}. {:<8} budget {:>5.0f} s {}\n", i, config_key(st.kind), st.budget_s,
                       opts.empty() ? " (probe defaults)" : opts);
  }
  out += fmt::format("# time budget: {:.0f} s in total\n", plan.total_budget_s());
  return out;
}

}  // namespace fabcheck::suite
