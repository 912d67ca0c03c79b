#include "fabcheck/report/reconcile.hpp"

#include "fabcheck/report/cpu_load.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

namespace fabcheck::report {

using nlohmann::json;

namespace {

std::string sev(const json& f) {
  return f.is_object() ? f.value("severity", "") : "";
}
std::string code(const json& f) {
  return f.is_object() ? f.value("code", "") : "";
}

const json& evidence(const json& f) {
  static const json empty = json::object();
  return f.is_object() && f.contains("evidence") && f["evidence"].is_object() ? f["evidence"] : empty;
}

int severity_rank(const std::string& s) {
  return s == "fail" ? 0 : s == "warn" ? 1 : 2;
}

/// Root causes first (DESIGN §5 ordering), the gate's restatement of them last.
int code_rank(const std::string& c) {
  // A failed transport (QP setup, CQ errors, bootstrap) comes right after wrong data and lost
  // ranks; a lost control connection and a job error restate it when it is there.
  static const std::vector<std::string> order = {"WRONG_DATA",
                                                 "WATCHDOG_TIMEOUT",
                                                 "SECTION_FAILED",
                                                 "NCCL_IB_CONNECT_FAILED",
                                                 "NCCL_IB_RESOURCE_FAILED",
                                                 "NCCL_IB_COMPLETION_ERROR",
                                                 "NCCL_BOOTSTRAP_FAILED",
                                                 "RDMA_FALLBACK_SOCKET",
                                                 "NCCL_NET_PLUGIN_FAILED",
                                                 "NCCL_PEER_CONNECTION_LOST",
                                                 "NCCL_JOB_ERROR",
                                                 "PAIRS_SLOW_HOST",
                                                 "PAIRS_SLOW_LINK",
                                                 "PORT_DOWN",
                                                 "PCIE_DOWNTRAINED"};
  if (c == "GATE_CHECK_FAILED") return 100;
  const auto it = std::find(order.begin(), order.end(), c);
  return it == order.end() ? 50 : static_cast<int>(it - order.begin());
}

double impact(const json& f) {
  const auto& e = evidence(f);
  return e.contains("impact") && e["impact"].is_number() ? e["impact"].get<double>() : 0.0;
}

/// The fabric-wide consequences of one fault (folded into it when it is the only one).
bool is_consequence(const std::string& c) {
  return c == "GATE_CHECK_FAILED" || c == "SCALING_BUSBW_DROP" || c == "SCALING_EFFICIENCY_LOW" ||
         c == "SWEEP_TRUNCATED" || c == "SCALING_TRUNCATED";
}

/// What a slow link's sending host shows in its own counters (report/counters.hpp): folded into that link.
bool is_sender_symptom(const std::string& c) {
  return c == "TCP_RETRANSMITS" || c == "RDMA_XMIT_DISCARDS" || c == "ROCE_PACKET_LOSS";
}

/// The sending host of a link headline ("" for a host headline).
std::string link_from(const json& f) {
  const auto& e = evidence(f);
  return e.contains("from") && e["from"].is_string() && e.contains("to") ? e["from"].get<std::string>() : "";
}

bool is_latency_pair(const std::string& c) {
  return c == "LATENCY_PAIR_OUTLIER" || c == "LATENCY_PAIR_TAIL";
}

/// The place a headline names: one host, or the two hosts of a link. Empty: not a headline.
std::vector<std::string> headline_place(const json& f) {
  if (sev(f) != "fail" || code(f) == "GATE_CHECK_FAILED") return {};
  const auto& e = evidence(f);
  if (e.contains("host") && e["host"].is_string()) return {e["host"].get<std::string>()};
  if (e.contains("from") && e["from"].is_string() && e.contains("to") && e["to"].is_string()) {
    std::vector<std::string> v{e["from"].get<std::string>(), e["to"].get<std::string>()};
    std::sort(v.begin(), v.end());
    return v;
  }
  return {};
}

void add_string(std::set<std::string>& out, const json& v) {
  if (!v.is_string()) return;
  auto s = v.get<std::string>();
  const auto slash = s.find('/');
  if (slash != std::string::npos) s = s.substr(0, slash);
  if (!s.empty()) out.insert(s);
}

bool pairs_ran(const json& doc) {
  return doc.contains("pairs") && doc["pairs"].is_object() && doc["pairs"].contains("hosts");
}

/// A pairs finding that flags a host or a link (not a refuted suspect, not a note on the rule's limits).
bool pairs_flag(const json& f) {
  const auto c = code(f);
  return c.rfind("PAIRS_", 0) == 0 && c != "PAIRS_SUSPECT_REFUTED" && c != "PAIRS_RULE_LIMIT";
}

/// True when `pairs` flagged no host and no link at all (its concurrent rounds load every host's link).
bool pairs_flagged_nothing(const json& doc) {
  return pairs_ran(doc) && std::none_of(doc["findings"].begin(), doc["findings"].end(), pairs_flag);
}

/// True when `pairs` measured both hosts and flagged neither them nor the pair.
bool refuted_by_pairs(const json& doc, const json& f) {
  if (!pairs_ran(doc)) return false;
  const auto named = hosts_named(f);
  if (named.size() != 2) return false;
  std::set<std::string> measured;
  for (const auto& h : doc["pairs"]["hosts"]) add_string(measured, h);
  for (const auto& h : named)
    if (!measured.count(h)) return false;
  // A host pairs flagged keeps every pair with it; a link pairs flagged keeps that pair only (a slow link
  // h2 -> h4 says nothing about the latency of h1 <-> h2: measured, the two latency pairs beside a throttled
  // link stayed warnings at +21 %).
  for (const auto& g : doc["findings"]) {
    if (!pairs_flag(g)) continue;
    const auto place = hosts_named(g);
    const bool host_finding = evidence(g).contains("host");
    const bool same_pair = std::all_of(named.begin(), named.end(), [&](const std::string& h) {
      return std::find(place.begin(), place.end(), h) != place.end();
    });
    const bool touches = std::any_of(named.begin(), named.end(), [&](const std::string& h) {
      return std::find(place.begin(), place.end(), h) != place.end();
    });
    if (host_finding ? touches : same_pair) return false;
  }
  return true;
}

/// A warning the pairs retest did not reproduce becomes context (also when a foreign report's evidence is not
/// an object).
void demote_refuted(json& f, std::string_view why) {
  f["severity"] = "info";
  if (!f["evidence"].is_object()) f["evidence"] = json::object();
  f["evidence"]["refuted_by"] = "pairs";
  f["message"] = f.value("message", "") + " (not reproduced: " + std::string(why) + ")";
}

void corroborate(json& headline, const json& f) {
  auto& e = headline["evidence"];
  if (!e.is_object()) e = json::object();
  if (!e.contains("corroborated_by") || !e["corroborated_by"].is_array())
    e["corroborated_by"] = json::array();
  const json entry = {{"code", code(f)}, {"severity", sev(f)}, {"message", f.value("message", "")}};
  // A report gated again offline restates the same gate check: keep one copy.
  for (const auto& c : e["corroborated_by"])
    if (c == entry) return;
  e["corroborated_by"].push_back(entry);
}

}  // namespace

std::vector<std::string> hosts_named(const json& finding) {
  std::set<std::string> out;
  const auto& e = evidence(finding);
  for (const char* k : {"host", "from", "to", "receiver", "victim"})
    if (e.contains(k)) add_string(out, e[k]);
  for (const char* k : {"hosts", "senders"})
    if (e.contains(k) && e[k].is_array())
      for (const auto& h : e[k]) add_string(out, h);
  return {out.begin(), out.end()};
}

void reconcile_findings(json& doc) {
  if (!doc.is_object() || !doc.contains("findings") || !doc["findings"].is_array()) return;
  // 0. What busy CPUs explain is context, with one HOST_CPU_BUSY warning (cpu_load.hpp).
  explain_cpu_load(doc);
  json& findings = doc["findings"];

  // 1. Latency-pair symptoms the pairs retest did not reproduce are context, not a warning.
  for (auto& f : findings) {
    if (is_latency_pair(code(f)) && sev(f) == "warn" && refuted_by_pairs(doc, f))
      demote_refuted(f, "pairs measured both hosts and flagged neither");
  }

  // A moderate group-scaling drop (to >= 0.5 of the 2-host value) that pairs does not reproduce — every host
  // pair measured, in concurrent rounds, none flagged — is context: on shared cores the larger group measures
  // the CPU as much as the fabric. A drop below half stays a warning.
  for (auto& f : findings) {
    if (code(f) != "SCALING_BUSBW_DROP" || sev(f) != "warn" || !pairs_flagged_nothing(doc)) continue;
    const auto& e = evidence(f);
    if (e.contains("ratio") && e["ratio"].is_number() && e["ratio"].get<double>() >= 0.5)
      demote_refuted(f, "pairs flagged no host and no link");
  }

  // 2. Fold what restates a headline into it.
  std::vector<std::size_t> heads;
  std::size_t other_fails = 0;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    if (!headline_place(findings[i]).empty()) heads.push_back(i);
    if (sev(findings[i]) == "fail" && code(findings[i]) != "GATE_CHECK_FAILED") ++other_fails;
  }
  std::vector<bool> folded(findings.size(), false);
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const auto& f = findings[i];
    const auto s = sev(f);
    const bool gate = code(f) == "GATE_CHECK_FAILED";
    // Only what claims a problem is folded: warnings and the gate's restatement; info (context about a host,
    // such as its MPI settings) stays where it is.
    if ((s == "fail" && !gate) || s == "info" || !headline_place(f).empty()) continue;
    const auto named = hosts_named(f);
    std::optional<std::size_t> into;
    if (!named.empty()) {
      for (auto h : heads) {
        const auto place = headline_place(findings[h]);
        const bool inside = std::all_of(named.begin(), named.end(), [&](const std::string& n) {
          return std::find(place.begin(), place.end(), n) != place.end();
        });
        // A host headline takes every warning that names that host (a pair with it, an incast it sent to, a
        // victim on it) and the gate checks that failed on it alone; a link headline what names only its two
        // hosts.
        const bool host_head = place.size() == 1;
        const bool touches = std::find(named.begin(), named.end(), place[0]) != named.end();
        const bool sender_of_link = !host_head && is_sender_symptom(code(f)) && named.size() == 1 &&
                                    named[0] == link_from(findings[h]);
        if (host_head ? (touches && !gate) || (gate && inside)
                      : (inside && named.size() == place.size()) || sender_of_link) {
          into = h;
          break;
        }
      }
    }
    if (!into && other_fails == 1 && is_consequence(code(f)) && heads.size() == 1) into = heads[0];
    if (!into && other_fails == 1 && gate && heads.empty()) {
      // The one root cause has no place (wrong data, a failed transport): the gate still restates it.
      for (std::size_t h = 0; h < findings.size(); ++h)
        if (sev(findings[h]) == "fail" && code(findings[h]) != "GATE_CHECK_FAILED") into = h;
    }
    if (!into) continue;
    corroborate(findings[*into], f);
    folded[i] = true;
  }
  std::vector<json> v;
  for (std::size_t i = 0; i < findings.size(); ++i)
    if (!folded[i]) v.push_back(std::move(findings[i]));

  // 3. Order: severity, root cause, impact, then as written (stable).
  std::stable_sort(v.begin(), v.end(), [](const json& a, const json& b) {
    const auto ka = std::make_tuple(severity_rank(sev(a)), code_rank(code(a)), -impact(a));
    const auto kb = std::make_tuple(severity_rank(sev(b)), code_rank(code(b)), -impact(b));
    return ka < kb;
  });
  findings = json(v);
}

}  // namespace fabcheck::report
