// HTML report: the emulated training step — the scaled step, t_step and t_compute, the measured
// efficiency beside the projection of the same step.
#include <fmt/format.h>

#include "html_internal.hpp"

namespace fabcheck::report::html {

std::string render_step(const json& r) {
  std::string out = section_open(r, "step", "Training step: measured against projected", {"step"});
  const json* st = get(r, "step");
  if (!st || !st->is_object()) {
    return out +
           notice("note",
                  "no emulated training step in this report (fabcheck step, or fabcheck run with "
                  "configs/extended.json)") +
           section_close();
  }
  const json* pr = get(*st, "projected");
  const bool have_pr = pr && pr->is_object();
  out += table(
      {"workload", "buckets", "t_step us p50 / p99", "t_compute us p50 / p99", "exposed us",
       "measured efficiency", "projected efficiency", "measured / projected", "overlap used"},
      {{text(get(*st, "workload")),
        fmt::format("{} of {}", text(get(*st, "buckets")), text(get(*st, "real_buckets"))),
        p50_p99(get(*st, "t_step_us")), p50_p99(get(*st, "t_compute_us")), number(get(*st, "exposed_us")),
        number(get(*st, "measured_efficiency"), 3), have_pr ? number(get(*pr, "efficiency"), 3) : "—",
        number(get(*st, "measured_vs_projected"), 3), have_pr ? number(get(*pr, "overlap"), 3) : "—"}},
      "step-table");
  out += notice("note",
                fmt::format("{}. {}. {}; agreement factor {}. Definitions: docs/DESIGN.md §5 \"Training "
                            "step\".",
                            as_string(get(*st, "scaled_note"), ""), as_string(get(*st, "description"), ""),
                            as_string(get(*st, "definition"), ""), text(get(*st, "agreement_factor"))));
  return out + section_close();
}

}  // namespace fabcheck::report::html
