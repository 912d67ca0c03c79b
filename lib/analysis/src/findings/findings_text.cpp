#include "fabcheck/report/findings_text.hpp"

#include <fmt/format.h>

namespace fabcheck::report {

namespace {

/// The evidence other probes gave for a headline (report::reconcile_findings), at most `limit` lines.
std::string corroboration(const nlohmann::json& f, std::size_t limit) {
  if (!f.contains("evidence") || !f["evidence"].is_object() || !f["evidence"].contains("corroborated_by") ||
      !f["evidence"]["corroborated_by"].is_array())
    return {};
  const auto& c = f["evidence"]["corroborated_by"];
  std::string o;
  std::size_t shown = 0;
  // The gate's failed checks first (what failed the run), then the other probes' warnings.
  for (const char* sev : {"fail", "warn"}) {
    for (const auto& e : c) {
      if (!e.is_object() || e.value("severity", "") != sev || shown == limit) continue;
      o += fmt::format("#          also: {} ({}): {}\n", e.value("code", ""), sev, e.value("message", ""));
      ++shown;
    }
  }
  if (c.size() > shown) o += fmt::format("#          also: {} more (see the report)\n", c.size() - shown);
  return o;
}

}  // namespace

FindingCounts count_findings(const nlohmann::json& findings) {
  FindingCounts n;
  if (!findings.is_array()) return n;
  for (const auto& f : findings) {
    if (!f.is_object()) continue;
    const auto sev = f.value("severity", "");
    n.fail += sev == "fail";
    n.warn += sev == "warn";
    n.info += sev == "info";
  }
  return n;
}

std::string render_findings(const nlohmann::json& findings) {
  if (!findings.is_array()) return "# findings: none\n";
  const auto [nf, nw, ni] = count_findings(findings);
  std::string o = fmt::format("# findings: {} fail, {} warn, {} info{}\n", nf, nw, ni,
                              ni > 0 ? " (info: context, listed in the report and its HTML)" : "");
  for (const char* sev : {"fail", "warn"}) {
    for (const auto& f : findings) {
      if (f.value("severity", "") != sev) continue;
      o += fmt::format("#   [{}] {}: {}\n", sev, f.value("code", ""), f.value("message", ""));
      o += corroboration(f, 4);
    }
  }
  return o;
}

}  // namespace fabcheck::report
