// HTML report: the hosts' loss and error counters around each step (report/counters.hpp judges
// them). One row per step and host where a loss or error counter moved; the rest are counted, not listed.
#include <fmt/format.h>

#include <algorithm>

#include "fabcheck/model/counters.hpp"
#include "html_internal.hpp"

namespace fabcheck::report::html {
namespace {

std::int64_t int_at(const json* d, const char* k) {
  const json* v = d ? get(*d, k) : nullptr;
  return v && v->is_number_integer() ? v->get<std::int64_t>() : 0;
}

}  // namespace

std::string render_host_counters(const json& r) {
  std::string out = section_open(r, "counters", "Host counters: what moved during each step", {});
  std::vector<std::vector<std::string>> rows;
  int quiet = 0, records = 0;
  std::vector<std::string> skipped;  // "host: source: reason", once each
  static const json kNoSections = json::object();
  const json* secs = get_path(r, {"run", "sections"});
  for (const auto& [step, entry] : (secs && secs->is_object() ? *secs : kNoSections).items()) {
    const json* rec = get(entry, "counters");
    if (!rec) continue;
    ++records;
    for (const auto& h : as_array(get(*rec, "hosts"))) {
      for (const auto& s : as_array(get(h, "skipped"))) {
        const std::string line = as_string(get(h, "host")) + ": " + as_string(&s);
        if (std::find(skipped.begin(), skipped.end(), line) == skipped.end()) skipped.push_back(line);
      }
      const json* dp = get(h, "deltas");
      const json* tcp = get(h, "tcp");  // counters_json's TCP summary
      const auto retrans = int_at(tcp, "retrans_segs");
      std::string moved;
      if (dp && dp->is_object())
        for (const auto& [k, v] : dp->items())
          if (model::is_shown_counter(k)) moved += (moved.empty() ? "" : ", ") + k + " +" + v.dump();
      if (retrans == 0 && moved.empty()) {
        ++quiet;
        continue;
      }
      rows.push_back({html_escape(step), text(get(h, "host")), fmt::format("{}", int_at(tcp, "out_segs")),
                      fmt::format("{}", retrans), fmt::format("{}", int_at(tcp, "spurious_segs")),
                      moved.empty() ? "—" : html_escape(moved)});
    }
  }
  if (records == 0) {
    out += notice("note", "this report has no counter records (written by an older fabcheck, or imported)");
  } else {
    if (!rows.empty())
      out += table({"step", "host", "TCP segments sent", "retransmitted", "of them spurious (DSACK)",
                    "loss and error counters that moved"},
                   rows, "counters");
    out += notice("note", fmt::format("{} step/host reading(s) with no retransmission and no loss or error "
                                      "counter moved. Thresholds and sources: docs/DESIGN.md §5.",
                                      quiet));
    for (std::size_t i = 0; i < skipped.size() && i < 8; ++i)
      out += notice("skipped", "skipped: " + skipped[i]);
    if (skipped.size() > 8)
      out += notice("skipped", fmt::format("… and {} more skipped sources", skipped.size() - 8));
  }
  out += section_close();
  return out;
}

}  // namespace fabcheck::report::html
