// HTML report: overlap — per collective and size the nonblocking collective alone, the compute
// kernel alone, both, and the overlap fraction, with and without MPI_Test polling.
#include <fmt/format.h>

#include "html_internal.hpp"

namespace fabcheck::report::html {

std::string render_overlap(const json& r) {
  std::string out =
      section_open(r, "overlap", "Overlap: does communication hide behind compute?", {"overlap"});
  const json* ov = get(r, "overlap");
  const auto& pts = as_array(ov ? get(*ov, "points") : nullptr);
  if (pts.empty()) {
    return out +
           notice("note",
                  "no overlap measurement in this report (fabcheck overlap, or fabcheck run with "
                  "configs/extended.json)") +
           section_close();
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : pts) {
    rows.push_back({text(get(p, "coll")), size_text(num_or(get(p, "size_bytes"), -1)),
                    p50_p99(get(p, "t_comm_us")), p50_p99(get(p, "t_compute_us")),
                    p50_p99(get(p, "t_both_us")), number(get(p, "overlap"), 3),
                    p50_p99(get(p, "t_both_poll_us")), number(get(p, "overlap_poll"), 3),
                    number(get(p, "compute_slowdown"), 3)});
  }
  out += table({"collective", "size", "t_comm us p50 / p99", "t_compute us p50 / p99", "t_both us p50 / p99",
                "overlap", "t_both polled us p50 / p99", "overlap polled", "compute slowdown"},
               rows, "overlap-table");
  out += notice(
      "note", fmt::format("{} ({}), {} ranks; compute kernel: {}; polled variant: MPI_Test every {} us. {}. "
                          "Definitions: docs/DESIGN.md §5 \"Overlap\".",
                          as_string(get(*ov, "backend"), "mpi"), as_string(get(*ov, "mpi_library"), "?"),
                          text(get(*ov, "nranks")), as_string(get(*ov, "compute_kernel"), "?"),
                          text(get(*ov, "poll_us")), as_string(get(*ov, "definition"), "")));
  return out + section_close();
}

}  // namespace fabcheck::report::html
