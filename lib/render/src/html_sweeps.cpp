// HTML report: busBw vs message size, one plot per sweep block (collective, dtype, redop, root), log2 x axis,
// out-of-place and in-place series, the expected line rate as a horizontal line when the report knows one.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "fabcheck/report/html.hpp"
#include "html_internal.hpp"

namespace fabcheck::report::html {
namespace {

struct LineRate {
  double gbps = 0;  // GB/s (1e9 B/s)
  std::string source;
};

// The expected per-link rate: the pairs probe's expected_gbps (from --line-rate-gbit) when given, else the
// slowest host's fastest ACTIVE RDMA port in the inventory (Gbit/s / 8). 0 when unknown.
LineRate line_rate(const json& r) {
  LineRate lr;
  if (as_number(get_path(r, {"pairs", "expected_gbps"}), lr.gbps) && lr.gbps > 0) {
    lr.source = "pairs.expected_gbps (--line-rate-gbit)";
    return lr;
  }
  lr.gbps = 0;
  double slowest = std::numeric_limits<double>::infinity();
  std::size_t hosts_with_rate = 0;
  for (const auto& h : as_array(get_path(r, {"inventory", "hosts"}))) {
    double best = 0;
    for (const auto& d : as_array(get(h, "rdma_devices"))) {
      for (const auto& p : as_array(get(d, "ports"))) {
        double rate = 0;
        if (as_string(get(p, "state")).find("ACTIVE") != std::string::npos &&
            as_number(get(p, "rate_gbit"), rate)) {
          best = std::max(best, rate);
        }
      }
    }
    if (best > 0) {
      slowest = std::min(slowest, best);
      ++hosts_with_rate;
    }
  }
  if (hosts_with_rate > 0) {
    lr.gbps = slowest / 8;
    lr.source = fmt::format("inventory: fastest ACTIVE RDMA port of the slowest host, {} Gbit/s",
                            fmt_number(slowest));
  }
  return lr;
}

std::string block_title(const json& s) {
  std::string t = as_string(get(s, "collective"), "?");
  std::vector<std::string> parts;
  if (const auto* d = get(s, "dtype")) parts.push_back(as_string(d));
  if (const auto* o = get(s, "redop"); o && as_string(o) != "none") parts.push_back(as_string(o));
  if (const auto* root = get(s, "root")) parts.push_back("root " + text(root));
  double n = 0;
  if (as_number(get(s, "nranks"), n)) parts.push_back(fmt::format("{} ranks", fmt_number(n)));
  std::string sub;
  for (const auto& p : parts) sub += (sub.empty() ? "" : ", ") + p;
  return sub.empty() ? t : fmt::format("{} ({})", t, sub);
}

std::string sweep_plot(const json& s, std::size_t index, const LineRate& lr) {
  struct Pt {
    double size, busbw;
    const json* p;
  };
  std::vector<Pt> oop, inp;
  PlotExtent ext{.ymax = lr.gbps * 1.05};
  for (const auto& p : as_array(get(s, "points"))) {
    double size = 0, bw = 0;
    if (!as_number(get(p, "size_bytes"), size) || !as_number(get(p, "busbw_gbps"), bw)) continue;
    (as_string(get(p, "placement"), "out_of_place") == "in_place" ? inp : oop).push_back({size, bw, &p});
    ext.add(size, bw);
  }
  const std::string coll = as_string(get(s, "collective"), "?");
  const std::string title = block_title(s);
  std::string out =
      fmt::format("<figure class=\"sweep\" id=\"sweep-{}\"{}{}{}>\n<figcaption>{}</figcaption>\n", index,
                  attr("data-collective", coll), attr("data-dtype", as_string(get(s, "dtype"))),
                  attr("data-redop", as_string(get(s, "redop"))), html_escape(title));
  if (oop.empty() && inp.empty()) return out + notice("note", "no measured points") + "</figure>\n";
  Plot plot(ext.x_axis(true, "message size (bytes, log2)"), linear_axis(0, ext.ymax, "busBw (GB/s)"),
            "busBw vs message size: " + title);
  if (lr.gbps > 0) {
    plot.hline(lr.gbps, "line-rate", fmt::format("line rate {} GB/s", fmt_number(lr.gbps, 3)),
               num_attr("data-line-rate-gbps", lr.gbps));
  }
  for (auto* v : {&oop, &inp}) {
    if (v->empty()) continue;
    std::sort(v->begin(), v->end(), [](const Pt& a, const Pt& b) { return a.size < b.size; });
    const bool in_place = v == &inp;
    const std::string cls = in_place ? "s1" : "s0";
    std::vector<std::pair<double, double>> line;
    for (const auto& pt : *v) line.emplace_back(pt.size, pt.busbw);
    plot.line(line, cls);
    for (const auto& pt : *v) {
      double wrong = 0;
      const bool bad = as_number(get(*pt.p, "wrong"), wrong) && wrong > 0;
      std::string data =
          attr("data-collective", coll) + attr("data-placement", in_place ? "in_place" : "out_of_place") +
          num_attr("data-size-bytes", get(*pt.p, "size_bytes")) +
          num_attr("data-busbw-gbps", get(*pt.p, "busbw_gbps")) +
          num_attr("data-algbw-gbps", get(*pt.p, "algbw_gbps")) +
          num_attr("data-time-us", get(*pt.p, "time_us")) + num_attr("data-wrong", get(*pt.p, "wrong"));
      std::string tip = fmt::format("{} {} {} B: busBw {} GB/s, algBw {} GB/s, {} us, #wrong {}", coll,
                                    in_place ? "in-place" : "out-of-place", fmt_number(pt.size, 12),
                                    number(get(*pt.p, "busbw_gbps")), number(get(*pt.p, "algbw_gbps")),
                                    number(get(*pt.p, "time_us")), number(get(*pt.p, "wrong")));
      plot.point(pt.size, pt.busbw, bad ? cls + " wrong s4" : cls, data, tip, in_place);
    }
    plot.legend(cls, in_place ? "in-place" : "out-of-place");
  }
  out += plot.svg();
  return out + "</figure>\n";
}

// The table of a block: one row per size with both placements and the per-iteration tail.
std::string sweep_table(const json& s) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : as_array(get(s, "points"))) {
    const json* pi = get(p, "per_iter");
    rows.push_back({size_text(num_or(get(p, "size_bytes"), -1)), text(get(p, "placement")),
                    number(get(p, "time_us")), number(get(p, "algbw_gbps")), number(get(p, "busbw_gbps")),
                    text(get(p, "wrong")), pi ? number(get(*pi, "p50_us")) : "—",
                    pi ? number(get(*pi, "p99_us")) : "—", pi ? text(get(*pi, "samples")) : "—"});
  }
  return "<details><summary>table</summary>\n" +
         table({"size", "placement", "time us", "algBw GB/s", "busBw GB/s", "#wrong", "per-iter p50 us",
                "per-iter p99 us", "samples"},
               rows, "sweep-table") +
         "</details>\n";
}

}  // namespace

std::string render_sweeps(const json& r) {
  std::string out = section_open(r, "sweeps", "Bandwidth: busBw vs message size", {"sweeps"});
  const auto& sweeps = as_array(get(r, "sweeps"));
  if (sweeps.empty()) return out + notice("note", "no collective sweep in this report") + section_close();
  const LineRate lr = line_rate(r);
  out += lr.gbps > 0
             ? fmt::format("<p>Dashed line: expected line rate {} GB/s ({}).</p>\n", fmt_number(lr.gbps, 4),
                           html_escape(lr.source))
             : "<p class=\"muted\">No expected line rate in this report (no ACTIVE RDMA port rate in the "
               "inventory, no --line-rate-gbit): no reference line.</p>\n";
  out +=
      "<p class=\"muted\">busBw = algBw × the collective's bus factor (nccl-tests convention); sizes on a "
      "log2 "
      "axis; hollow points are in-place.</p>\n";
  std::size_t i = 0;
  for (const auto& s : sweeps) {
    out += sweep_plot(s, i++, lr);
    double avg = 0;
    if (as_number(get(s, "avg_busbw_gbps"), avg)) {
      out += fmt::format("<p class=\"muted\">average busBw {} GB/s</p>\n", fmt_number(avg));
    }
    out += sweep_table(s);
  }
  return out + section_close();
}

}  // namespace fabcheck::report::html
