#include "fabcheck/report/summary_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "fabcheck/report/findings_text.hpp"
#include "fabcheck/report/reconcile.hpp"

namespace fabcheck::report {

using nlohmann::json;

namespace {

FindingCounts counts(const json& doc) {
  return doc.contains("findings") ? count_findings(doc["findings"]) : FindingCounts{};
}

/// "PAIRS_SLOW_HOST (dev-h3), GATE_CHECK_FAILED" for the fail findings.
std::string fail_places(const json& doc) {
  std::string o;
  for (const auto& f : doc["findings"]) {
    if (!f.is_object() || f.value("severity", "") != "fail") continue;
    std::string item = f.value("code", "");
    const auto hosts = hosts_named(f);
    if (!hosts.empty()) {
      std::string h;
      for (const auto& x : hosts) h += (h.empty() ? "" : ", ") + x;
      const auto& e = f["evidence"];
      if (e.is_object() && e.contains("from") && e.contains("to") && e["from"].is_string() &&
          e["to"].is_string())
        h = e["from"].get<std::string>() + " -> " + e["to"].get<std::string>();
      item += " (" + h + ")";
    }
    o += (o.empty() ? "" : ", ") + item;
  }
  return o;
}

std::string transport_line(const json& doc) {
  if (!doc.contains("transport") || !doc["transport"].is_object() || !doc["transport"].contains("verdict"))
    return "# transport: not assessed (the inspect step did not run)\n";
  const auto& t = doc["transport"];
  auto text = [&](const char* k) {
    if (!t.contains(k) || t[k].is_null()) return std::string("-");
    if (t[k].is_string()) return t[k].get<std::string>();
    if (t[k].is_boolean()) return std::string(t[k].get<bool>() ? "yes" : "no");
    return t[k].dump();
  };
  // The verdict says what was attempted; the health whether it worked.
  std::string health;
  if (t.contains("health") && t["health"].is_object()) {
    const auto& h = t["health"];
    if (h.contains("headline") && h["headline"].is_string())
      health = " \u2014 " + h["headline"].get<std::string>();
    else if (h.contains("status") && h["status"].is_string())
      health = ", health " + h["status"].get<std::string>();
  }
  return fmt::format("# transport: {}{} (network {}, link_layer {}, gdr {}, inter_node {})\n",
                     text("verdict"), health, text("network"), text("link_layer"), text("gdr"),
                     t.contains("inter_node") && t["inter_node"].is_null() ? "unknown" : text("inter_node"));
}

std::string score_line(const json& doc) {
  if (!doc.contains("score") || !doc["score"].is_object()) return {};
  const auto& s = doc["score"];
  if (!s.contains("scaling_efficiency") || !s["scaling_efficiency"].is_number()) {
    return fmt::format("# score: none ({})\n", s.contains("reason") && s["reason"].is_string()
                                                   ? s["reason"].get<std::string>()
                                                   : "no sweep");
  }
  const double eff = s["scaling_efficiency"].get<double>();
  const int hosts = s.value("hosts", 0);
  std::string o = fmt::format("# score: {:.1f} % of ideal scaling for {} on {} host{}", 100.0 * eff,
                              s.value("workload", "?"), hosts, hosts == 1 ? "" : "s");
  if (s.contains("inputs") && s["inputs"].is_object()) {
    const auto& in = s["inputs"];
    if (in.contains("exposed_s") && in["exposed_s"].is_number() && in.contains("t_compute_s") &&
        in["t_compute_s"].is_number()) {
      o += fmt::format(": each step waits {:.3g} s on communication for {:.3g} s of compute",
                       in["exposed_s"].get<double>(), in["t_compute_s"].get<double>());
    }
  }
  if (s.value("intra_node_only", false)) o += " (one host: the fabric was not crossed)";
  return o + "\n";
}

std::string steps_line(const json& doc, const SummaryFacts& f) {
  std::string o = fmt::format("# steps ({} ranks on {} host{}, {:.1f} s of a {:.0f} s budget):", f.nranks,
                              f.nhosts, f.nhosts == 1 ? "" : "s", f.duration_s, f.budget_s);
  std::string notes;
  if (doc.contains("run") && doc["run"].contains("sections") && doc["run"]["sections"].is_object()) {
    const auto& secs = doc["run"]["sections"];
    // In run order (a JSON object has no order of its own), then any other section.
    std::vector<std::string> names = {"inventory", "sweeps",  "latency", "incast", "pairs",
                                      "nics",      "overlap", "step",    "scaling"};
    for (const auto& [k, v] : secs.items())
      if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
    for (const auto& name : names) {
      if (!secs.contains(name) || !secs[name].is_object()) continue;
      const auto& s = secs[name];
      const std::string status = s.value("status", "?");
      if (name == "gate" || name == "transport") continue;  // the gate and the verdict have their own lines
      std::string t;
      if (s.contains("elapsed_s") && s["elapsed_s"].is_number())
        t = fmt::format(" {:.1f} s", s["elapsed_s"].get<double>());
      o += fmt::format(" {} {}{};", name, status, t);
      if (status != "ok" && s.contains("reason") && s["reason"].is_string())
        notes += fmt::format("#   {} {}: {}\n", name, status, s["reason"].get<std::string>());
    }
  }
  if (!o.empty() && o.back() == ';') o.pop_back();
  return o + "\n" + notes;
}

std::string gate_line(const json& doc, const SummaryFacts& f) {
  if (!doc.contains("gate") || !doc["gate"].is_object() || !doc["gate"].contains("checks"))
    return fmt::format("# gate: {}\n", f.gate_disabled_reason.empty() ? "not run" : f.gate_disabled_reason);
  std::size_t np = 0, n = 0;
  for (const auto& c : doc["gate"]["checks"]) {
    ++n;
    np += c.value("passed", false) ? 1 : 0;
  }
  return fmt::format("# gate: {} ({} of {} checks passed)\n",
                     doc["gate"].value("passed", false) ? "PASSED" : "FAILED", np, n);
}

}  // namespace

SummaryFacts summary_facts_of(const json& doc, std::string report_path) {
  SummaryFacts f;
  const auto number = [](const json& o, const char* k) {
    return o.is_object() && o.contains(k) && o[k].is_number() ? o[k].get<double>() : 0.0;
  };
  const json& topo = doc.contains("topology") ? doc["topology"] : json();
  f.nranks = static_cast<int>(number(topo, "nranks"));
  f.nhosts = topo.is_object() && topo.contains("hosts") && topo["hosts"].is_array()
                 ? static_cast<int>(topo["hosts"].size())
                 : 0;
  const json& run = doc.contains("run") ? doc["run"] : json();
  f.duration_s = number(run, "duration_s");
  f.budget_s = number(run, "budget_s");
  f.report_path = std::move(report_path);
  if (run.is_object() && run.contains("sections") && run["sections"].is_object() &&
      run["sections"].contains("gate")) {
    const json& g = run["sections"]["gate"];
    if (g.is_object() && g.value("status", "") == "skipped" && g.contains("reason") &&
        g["reason"].is_string())
      f.gate_disabled_reason = g["reason"].get<std::string>();
  }
  return f;
}

std::string verdict_word(const json& doc) {
  const int code =
      doc.contains("run") && doc["run"].contains("exit_code") && doc["run"]["exit_code"].is_number()
          ? doc["run"]["exit_code"].get<int>()
          : 3;
  if (code == 1) return "FAIL";
  if (code != 0) return "INCOMPLETE";
  // Nothing measured is not a pass (a config that enables no step).
  bool any_ran = false;
  if (doc.contains("run") && doc["run"].contains("sections") && doc["run"]["sections"].is_object())
    for (const auto& [name, s] : doc["run"]["sections"].items())
      any_ran = any_ran || (name != "gate" && s.is_object() && s.value("status", "") != "skipped");
  if (!any_ran) return "NOTHING RUN";
  const int nw = counts(doc).warn;
  return nw == 0 ? "PASS" : fmt::format("PASS with {} warning{}", nw, nw == 1 ? "" : "s");
}

std::string render_summary(const json& doc, const SummaryFacts& facts) {
  const std::string word = verdict_word(doc);
  const auto [nf, nw, ni] = counts(doc);
  std::string why;
  if (word == "FAIL") {
    why = fmt::format("{} fail finding{}: {}", nf, nf == 1 ? "" : "s", fail_places(doc));
  } else if (word == "INCOMPLETE") {
    why = "the run did not finish every step (see the steps below and the report)";
  } else if (word == "NOTHING RUN") {
    why = "every step was skipped, nothing was measured (enable a step in the config)";
  } else if (nw > 0) {
    why = "no fail finding; the warnings below need a look";
  } else {
    why = "no fail or warn finding";
  }
  if (word != "FAIL" && facts.nhosts == 1) why += " (one host: the fabric between hosts was not tested)";
  std::string o = "#\n";
  o += fmt::format("# fabcheck run: {} - {}\n", word, why);
  o += render_findings(doc.contains("findings") ? doc["findings"] : json::array());
  o += transport_line(doc);
  o += score_line(doc);
  o += steps_line(doc, facts);
  o += gate_line(doc, facts);
  // A report written before its run finished has run.exit_code null (INCOMPLETE): say so, not a code.
  const bool has_code = doc.contains("run") && doc["run"].is_object() && doc["run"].contains("exit_code") &&
                        doc["run"]["exit_code"].is_number_integer();
  o += fmt::format("# fabcheck run: {} (exit {}); report: {}\n", word,
                   has_code ? std::to_string(doc["run"]["exit_code"].get<int>()) : std::string("none yet"),
                   facts.report_path);
  return o;
}

}  // namespace fabcheck::report
