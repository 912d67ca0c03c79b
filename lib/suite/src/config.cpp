#include "fabcheck/suite/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/input_limits.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/model/json_value.hpp"
#include "fabcheck/report/gate.hpp"
#include "fabcheck/report/load.hpp"
#include "fabcheck/suite/probe_spec.hpp"

namespace fabcheck::suite {

using nlohmann::json;

const std::vector<StepKind>& all_steps() {
  static const std::vector<StepKind> k = [] {
    std::vector<StepKind> out;
    for (const auto& s : probe_specs()) out.push_back(s.kind);
    return out;
  }();
  return k;
}

std::string_view config_key(StepKind k) {
  return probe_spec(k).config_key;
}

std::string_view section_name(StepKind k) {
  return probe_spec(k).section;
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

using model::bad_value;
using model::brief;
using model::type_word;
using model::want_number;
using model::want_string;

[[noreturn]] void bad(std::string_view ptr, std::string_view what) {
  bad_value(ptr, what);
}

bool is_comment_key(std::string_view k) {
  return !k.empty() && k.front() == '_';
}

const ProbeOptions& step_options(StepKind k) {
  return probe_spec(k).options;
}

std::string known_keys(StepKind k) {
  std::string out = k == StepKind::kGate ? "enabled, checks" : "enabled, budget_s";
  for (const auto& f : step_options(k).infos) out += fmt::format(", {}", f.key);
  return out;
}

void compute_effective(Step& st, const std::string& ptr) {
  st.effective =
      step_options(st.kind).effective(st.options, [&](std::string_view key) { return ptr_join(ptr, key); });
}

Step make_step(StepKind kind, const json* section, const std::string& ptr) {
  Step st;
  st.kind = kind;
  if (!section) {
    st.disabled_reason = fmt::format("not in the config (add a \"{}\" section to run it)", config_key(kind));
    compute_effective(st, ptr);
    return st;
  }
  if (!section->is_object())
    bad(ptr, fmt::format("expected an object, got {} {}", type_word(*section), brief(*section)));
  st.enabled = true;
  const auto& fields = step_options(kind).infos;
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
    auto it =
        std::find_if(fields.begin(), fields.end(), [&](const model::OptionInfo& f) { return key == f.key; });
    if (it == fields.end())
      bad(kp, fmt::format("unknown key (known: {}; comments start with _)", known_keys(kind)));
    st.options[key] = model::normalize_value(*it, v, kp);
  }
  compute_effective(st, ptr);
  return st;
}

}  // namespace

json parse_json_text(std::string_view text, std::string_view origin) {
  core::check_json_depth(text, origin);  // bounded nesting, also under "_" comment keys
  try {
    return json::parse(text.begin(), text.end(), nullptr, true, /*ignore_comments=*/false);
  } catch (const json::out_of_range& e) {  // "number overflow parsing '1e309'"
    std::string msg = e.what();
    if (auto p = msg.find("] "); p != std::string::npos) msg = msg.substr(p + 2);
    throw UsageError(fmt::format("{}: not valid JSON here: {} (numbers must be finite)", origin, msg));
  } catch (const json::parse_error& e) {
    std::string msg = e.what();
    // nlohmann: "[json.exception.parse_error.101] parse error at line 3, column 5: ..."
    auto p = msg.find("] ");
    if (p != std::string::npos) msg = msg.substr(p + 2);
    throw UsageError(fmt::format("{}: not valid JSON: {}", origin, msg));
  }
}

json load_json_file(const std::string& path, std::string_view flag) {
  const std::string origin = fmt::format("{} {}", flag, path);
  return parse_json_text(report::read_input_file(path, origin, "config file", core::kConfigCapMiB), origin);
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
    for (const auto& [key, v] : config.items()) {
      if (is_comment_key(key)) continue;
      const std::string kp = ptr_join("", key);
      if (key == "name") {
        plan.name = want_string(v, kp);
      } else if (key == "timeout_s") {
        plan.timeout_s = want_number(v, kp, 0.1, 1e7);
      } else if (key == "counters") {
        if (!v.is_boolean())
          bad(kp,
              fmt::format("{} is not true or false (the hosts' loss counters around each step)", v.dump()));
        plan.counters = v.get<bool>();
      } else if (key == "extends") {
        // resolved above
      } else {
        const auto& specs = probe_specs();
        if (std::none_of(specs.begin(), specs.end(),
                         [&](const ProbeSpec& p) { return key == p.config_key; })) {
          std::string known = "extends, name, timeout_s, counters";
          for (const auto& p : specs) known += fmt::format(", {}", p.config_key);
          bad(kp, fmt::format("unknown key (known: {}; comments start with _)", known));
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

Step make_single_step(StepKind kind, const json& options) {
  const std::string ptr = "/" + std::string(config_key(kind));
  return make_step(kind, &options, ptr);
}

json effective_config(const Plan& plan) {
  json out = json::object();
  if (!plan.name.empty()) out["name"] = plan.name;
  out["timeout_s"] = plan.timeout_s;
  out["counters"] = plan.counters;
  for (const auto& st : plan.steps) {
    json sec = json::object();
    sec["enabled"] = st.enabled;
    if (st.kind == StepKind::kGate) {
      sec["checks"] = plan.gate_checks;
    } else {
      sec["budget_s"] = st.budget_s;
      for (const auto& [k, v] : st.effective.items()) sec[k] = v;
    }
    out[std::string(config_key(st.kind))] = sec;
  }
  return out;
}

void set_option(Plan& plan, StepKind kind, const std::string& key, const json& value,
                std::string_view where) {
  for (auto& st : plan.steps) {
    if (st.kind != kind) continue;
    const auto& infos = step_options(kind).infos;
    auto it =
        std::find_if(infos.begin(), infos.end(), [&](const model::OptionInfo& f) { return key == f.key; });
    if (it == infos.end()) throw std::logic_error("set_option: no such option");
    st.options[key] = model::normalize_value(*it, value, where);
    compute_effective(st, "/" + std::string(config_key(kind)));
  }
}

std::string render_plan(const Plan& plan, int nranks, int nhosts) {
  std::string out = fmt::format("# fabcheck run plan: {}{}\n", plan.source,
                                plan.name.empty() ? "" : fmt::format(" ({})", plan.name));
  out += fmt::format("# {} ranks on {} host(s); watchdog timeout {} s per operation; loss counters {}\n",
                     nranks, nhosts, plan.timeout_s,
                     plan.counters ? "read around each step" : "not read (counters: false)");
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
    // The backend decides what a sweep's figures can reach (host buffers or GPU buffers): always shown.
    if (st.kind == StepKind::kSweep && !st.options.contains("backend") && st.effective.contains("backend")) {
      opts += fmt::format(" backend={} (default)", st.effective["backend"].get<std::string>());
    }
    out += fmt::format("{:>2}. {:<8} budget {:>5.0f} s {}\n", i, config_key(st.kind), st.budget_s,
                       opts.empty() ? " (probe defaults)" : opts);
  }
  out += fmt::format("# time budget: {:.0f} s in total\n", plan.total_budget_s());
  return out;
}

}  // namespace fabcheck::suite
