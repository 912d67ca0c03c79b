#include "fabcheck/report/findings_text.hpp"

#include <fmt/format.h>

namespace fabcheck::report {

std::string render_findings(const nlohmann::json& findings) {
  if (!findings.is_array()) return "# findings: none\n";
  int nf = 0, nw = 0, ni = 0;
  for (const auto& f : findings) {
    const auto sev = f.value("severity", "");
    nf += sev == "fail";
    nw += sev == "warn";
    ni += sev == "info";
  }
  std::string o = fmt::format("# findings: {} fail, {} warn, {} info\n", nf, nw, ni);
  for (const char* sev : {"fail", "warn"}) {
    for (const auto& f : findings) {
      if (f.value("severity", "") != sev) continue;
      o += fmt::format("#   [{}] {}: {}\n", sev, f.value("code", ""), f.value("message", ""));
    }
  }
  return o;
}

}  // namespace fabcheck::report
