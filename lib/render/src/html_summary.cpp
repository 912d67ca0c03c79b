// HTML report: the top of the page — score, transport verdict, gate result, run status (cards), the section
// overview, the findings and the gate checks.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>

#include "fabcheck/report/html.hpp"
#include "html_internal.hpp"

namespace fabcheck::report::html {
namespace {

std::string card(std::string_view id, std::string_view cls, std::string_view heading, const std::string& big,
                 const std::string& sub, const std::string& data_attrs = "") {
  return fmt::format(
      "<div class=\"card {}\" id=\"{}\"{}><h3>{}</h3><div class=\"big\">{}</div><div class=\"sub\">{}</div>"
      "</div>\n",
      cls, id, data_attrs, heading, big, sub);
}

std::string score_card(const json& r) {
  const json* score = get(r, "score");
  double eff = 0;
  if (score && as_number(get(*score, "scaling_efficiency"), eff)) {
    std::string sub = fmt::format("scaling efficiency of {}", text(get(*score, "workload")));
    double hosts = 0;
    if (as_number(get(*score, "hosts"), hosts)) sub += fmt::format(" on {} host(s)", fmt_number(hosts));
    double exposed = 0;
    if (as_number(get_path(*score, {"inputs", "exposed_s"}), exposed)) {
      sub += fmt::format("; communication exposes {} ms per step", fmt_number(exposed * 1e3, 3));
    }
    if (const auto* in = get(*score, "intra_node_only"); in && in->is_boolean() && in->get<bool>()) {
      sub += " (intra-node only: no fabric crossed)";
    }
    return card("score", "", "Score", fmt::format("{} %", fmt_number(eff * 100, 3)), sub,
                num_attr("data-scaling-efficiency", eff));
  }
  std::string why = score ? as_string(get(*score, "reason")) : "";
  if (why.empty())
    why = as_string(get_path(r, {"run", "sections", "scaling", "reason"}), "no score in this report");
  return card("score", "", "Score", "—", html_escape(why));
}

std::string transport_card(const json& r) {
  const json* t = get(r, "transport");
  const std::string verdict = t ? as_string(get(*t, "verdict")) : "";
  if (verdict.empty()) {
    std::string why = as_string(get_path(r, {"run", "sections", "transport", "reason"}));
    if (why.empty())
      why = as_string(get_path(r, {"run", "sections", "inventory", "reason"}), "no transport verdict");
    return card("transport", "", "Transport verdict", "—", html_escape(why));
  }
  // The verdict says what was attempted; the health whether it worked: an `rdma` whose
  // connections failed is never shown as good.
  const std::string health = as_string(get_path(r, {"transport", "health", "status"}));
  const std::string headline = as_string(get_path(r, {"transport", "health", "headline"}));
  std::string cls = health == "failed"                                        ? "bad"
                    : verdict == "rdma" && (health.empty() || health == "ok") ? "good"
                    : verdict == "socket_fallback"                            ? "bad"
                                                                              : "warn";
  std::string sub =
      fmt::format("network {} · link layer {} · GPUDirect {} · inter-node {}", text(get(*t, "network")),
                  text(get(*t, "link_layer")), text(get(*t, "gdr")), text(get(*t, "inter_node")));
  if (!headline.empty()) sub = html_escape(headline) + "<br>" + sub;
  std::string value =
      html_escape(verdict) + (health.empty() || health == "ok" ? "" : " · " + html_escape(health));
  return card("transport", cls, "Transport verdict", value, sub);
}

std::string gate_card(const json& r) {
  const json* g = get(r, "gate");
  const json* passed = g ? get(*g, "passed") : nullptr;
  if (!passed || !passed->is_boolean()) {
    std::string why = as_string(get_path(r, {"run", "sections", "gate", "reason"}), "no gate in this report");
    return card("gate-result", "", "Gate", "not evaluated", html_escape(why));
  }
  std::size_t n = 0, np = 0;
  for (const auto& c : as_array(get(*g, "checks"))) {
    ++n;
    if (const auto* p = get(c, "passed"); p && p->is_boolean() && p->get<bool>()) ++np;
  }
  const bool ok = passed->get<bool>();
  return card(
      "gate-result", ok ? "good" : "bad", "Gate", ok ? "PASSED" : "FAILED",
      fmt::format("{} of {} checks passed · criteria {}", np, n, text(get_path(*g, {"criteria", "source"}))));
}

std::string run_card(const json& r) {
  const std::string status = as_string(get_path(r, {"run", "status"}), "unknown");
  std::array<int, 3> counts{0, 0, 0};
  for (const auto& f : as_array(get(r, "findings"))) {
    const auto sev = as_string(get(f, "severity"));
    counts[0] += sev == "fail";
    counts[1] += sev == "warn";
    counts[2] += sev == "info";
  }
  std::string sub = fmt::format("exit code {} · findings: {} fail, {} warn, {} info",
                                text(get_path(r, {"run", "exit_code"})), counts[0], counts[1], counts[2]);
  std::string cls = status == "complete" ? "good" : status == "failed" ? "bad" : "warn";
  return card("run-status", cls, "Run", html_escape(status), sub);
}

}  // namespace

std::string render_summary(const json& r) {
  std::string out = "<section id=\"summary\">\n<h2>Summary</h2>\n<div class=\"cards\">\n";
  out += score_card(r) + transport_card(r) + gate_card(r) + run_card(r);
  out += "</div>\n";
  if (const json* ev = get_path(r, {"transport", "evidence"}); ev && ev->is_array() && !ev->empty()) {
    out += "<details><summary>transport evidence</summary><ul>\n";
    for (const auto& e : *ev) {
      out += fmt::format("<li><b>{}</b> {}: {}</li>\n", text(get(e, "source")), text(get(e, "host")),
                         text(get(e, "message")));
    }
    out += "</ul></details>\n";
  }
  const json* sections = get_path(r, {"run", "sections"});
  if (sections && sections->is_object()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& [name, s] : sections->items()) {
      const std::string st = as_string(get(s, "status"), "?");
      rows.push_back({html_escape(name),
                      fmt::format("<span class=\"badge {}\">{}</span>", status_class(st), html_escape(st)),
                      number(get(s, "elapsed_s"), 3), text(get(s, "reason"))});
    }
    out += "<h3>Sections</h3>\n" + table({"section", "status", "elapsed s", "reason"}, rows, "sections");
    // Sections that no part of the page shows (e.g. a subcommand's own) say why here.
    for (const auto& [name, s] : sections->items()) {
      static constexpr std::string_view kShown[] = {"sweeps",  "latency", "pairs",     "incast",
                                                    "scaling", "gate",    "inventory", "transport"};
      if (std::find(std::begin(kShown), std::end(kShown), name) == std::end(kShown)) {
        out += section_notices(r, {name});
      }
    }
  }
  return out + section_close();
}

std::string render_findings(const json& r) {
  std::string out = section_open(r, "findings", "Findings", {});
  const auto& all = as_array(get(r, "findings"));
  if (all.empty()) return out + notice("note", "no findings") + section_close();
  std::vector<std::vector<std::string>> rows;
  for (std::string_view sev : {"fail", "warn", "info", ""}) {
    for (const auto& f : all) {
      const std::string s = as_string(get(f, "severity"));
      const bool known = s == "fail" || s == "warn" || s == "info";
      if (sev.empty() ? known : s != sev) continue;
      std::string ev;
      if (const json* e = get(f, "evidence"); e && !(e->is_object() && e->empty())) {
        std::string dump = e->dump(1);
        if (dump.size() > 4000) dump = dump.substr(0, 4000) + " …";
        ev = "<details><summary>evidence</summary><pre>" + html_escape(dump) + "</pre></details>";
      }
      rows.push_back({fmt::format("<span class=\"badge {}\">{}</span>", status_class(s), html_escape(s)),
                      "<code>" + text(get(f, "code")) + "</code>", text(get(f, "message")) + ev,
                      text(get(f, "remedy"))});
    }
  }
  out += table({"severity", "code", "message", "remedy"}, rows, "findings");
  return out + section_close();
}

std::string render_gate(const json& r) {
  std::string out = section_open(r, "gate", "Gate", {"gate"});
  const json* g = get(r, "gate");
  const auto& checks = as_array(g ? get(*g, "checks") : nullptr);
  if (!g) return out + notice("note", "no gate was evaluated for this report") + section_close();
  out += fmt::format("<p>criteria: {}</p>\n", text(get_path(*g, {"criteria", "source"})));
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : checks) {
    const json* p = get(c, "passed");
    const bool ok = p && p->is_boolean() && p->get<bool>();
    std::string value = text(get(c, "value"));
    if (const json* fh = get(c, "failed_hosts"); fh && fh->is_array() && !fh->empty()) {
      value += " <span class=\"muted\">failed hosts: " + html_escape(fh->dump()) + "</span>";
    }
    rows.push_back(
        {fmt::format("<span class=\"badge {}\">{}</span>", ok ? "good" : "bad", ok ? "PASS" : "FAIL"),
         "<code>" + text(get(c, "metric")) + "</code>", text(get(c, "op")), text(get(c, "threshold")), value,
         text(get(c, "reason")), text(get(c, "why"))});
  }
  out += table({"result", "metric", "op", "threshold", "value", "reason", "why"}, rows, "gate-checks");
  if (const json* hf = get_path(*g, {"hosts", "failed"}); hf && hf->is_array() && !hf->empty()) {
    std::string list;
    for (const auto& h : *hf) list += (list.empty() ? "" : ", ") + text(&h);
    out += "<p>hosts failing a per-host check: " + list + "</p>\n";
  }
  return out + section_close();
}

}  // namespace fabcheck::report::html
