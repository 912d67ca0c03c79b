// HTML report: incast — efficiency vs fan-in and the victim's congestion impact vs fan-in (one series per
// receiver and size), and the table of every measured point.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "fabcheck/report/html.hpp"
#include "html_internal.hpp"

namespace fabcheck::report::html {
namespace {

struct Series {
  std::string label;
  std::vector<const json*> pts;
};

// Entries grouped by (receiver, size), in report order.
std::vector<Series> group(const json& entries) {
  std::vector<Series> out;
  std::map<std::string, std::size_t> idx;
  for (const auto& e : entries) {
    const std::string key = fmt::format("{} ← {} per sender", as_string(get(e, "receiver"), "?"),
                                        size_text(num_or(get(e, "size_bytes"), -1)));
    auto [it, fresh] = idx.emplace(key, out.size());
    if (fresh) out.push_back({key, {}});
    out[it->second].pts.push_back(&e);
  }
  for (auto& s : out) {
    std::sort(s.pts.begin(), s.pts.end(), [](const json* a, const json* b) {
      return num_or(get(*a, "fan_in"), 0) < num_or(get(*b, "fan_in"), 0);
    });
  }
  return out;
}

struct Metric {
  const char* key;    // field in the entry, or in congestion_impact when `impact`
  const char* label;  // legend suffix
  bool impact;
};

std::string plot(const std::vector<Series>& groups, const std::vector<Metric>& metrics, std::string_view id,
                 std::string_view caption, std::string_view y_title, double y_ref,
                 std::string_view ref_label) {
  PlotExtent ext{.ymax = y_ref};
  bool any = false;
  for (const auto& g : groups) {
    for (const json* e : g.pts) {
      const double f = num_or(get(*e, "fan_in"), -1);
      for (const auto& m : metrics) {
        double v = 0;
        const json* src = m.impact ? get(*e, "congestion_impact") : e;
        if (f < 0 || !src || !as_number(get(*src, m.key), v)) continue;
        any = true;
        ext.add(f, v);
      }
    }
  }
  std::string out = fmt::format("<figure class=\"incast-plot\" id=\"{}\">\n<figcaption>{}</figcaption>\n", id,
                                html_escape(caption));
  if (!any) return out + notice("note", "no values to plot") + "</figure>\n";
  Plot p(ext.x_axis(false, "fan-in (senders, log2)"), linear_axis(0, ext.ymax, std::string(y_title)),
         std::string(caption), 520, 260);
  if (y_ref > 0) p.hline(y_ref, "ref-one s5", ref_label, "");
  int k = 0;
  for (const auto& g : groups) {
    for (const auto& m : metrics) {
      const std::string cls = fmt::format("s{}", k % 5);
      std::vector<std::pair<double, double>> line;
      for (const json* e : g.pts) {
        double v = 0;
        const double f = num_or(get(*e, "fan_in"), -1);
        const json* src = m.impact ? get(*e, "congestion_impact") : e;
        if (f < 0 || !src || !as_number(get(*src, m.key), v)) continue;
        line.emplace_back(f, v);
        std::string data = attr("data-receiver", as_string(get(*e, "receiver"))) +
                           num_attr("data-fan-in", f) + num_attr("data-size-bytes", get(*e, "size_bytes")) +
                           attr("data-metric", m.key) + num_attr("data-value", v);
        p.point(f, v, cls, data,
                fmt::format("{}, fan-in {}: {} {}", g.label, fmt_number(f), m.key, fmt_number(v, 4)),
                m.impact && std::string_view(m.key) == "p99");
      }
      p.line(line, cls);
      p.legend(cls, metrics.size() > 1 ? fmt::format("{} ({})", g.label, m.label) : g.label);
      ++k;
    }
  }
  return out + p.svg() + "</figure>\n";
}

}  // namespace

std::string render_incast(const json& r) {
  std::string out = section_open(r, "incast", "Incast: many senders to one receiver", {"incast"});
  const auto& entries = as_array(get(r, "incast"));
  if (entries.empty()) return out + notice("note", "no incast measurement in this report") + section_close();
  const auto groups = group(entries);
  out += "<div class=\"figs\">\n";
  out +=
      plot(groups, {{"incast_efficiency", "efficiency", false}}, "incast-efficiency",
           "incast efficiency vs fan-in (goodput(k) / goodput(1))", "incast efficiency", 1.0, "1 = no loss");
  out += plot(groups, {{"mean", "mean", true}, {"p99", "p99", true}}, "incast-impact",
              "victim congestion impact vs fan-in (congested / isolated; hollow = p99)", "congestion impact",
              1.0, "1 = unaffected");
  out += "</div>\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : entries) {
    const json* ci = get(e, "congestion_impact");
    const json* v = get(e, "victim");
    rows.push_back(
        {text(get(e, "receiver")), text(get(e, "fan_in")), size_text(num_or(get(e, "size_bytes"), -1)),
         number(get(e, "goodput_gbps")), number(get(e, "offered_load_gbps")),
         number(get(e, "incast_efficiency"), 3), number(get(e, "fairness"), 3), text(get(e, "congested")),
         number(get(e, "release_skew_us"), 3), v ? text(get(*v, "host")) : text(get(e, "victim_reason")),
         ci ? number(get(*ci, "mean"), 3) : "—", ci ? number(get(*ci, "p99"), 3) : "—"});
  }
  out += table({"receiver", "fan-in", "size", "goodput GB/s", "offered GB/s", "efficiency", "fairness",
                "congested", "release skew us", "victim", "impact mean", "impact p99"},
               rows, "incast-table");
  for (const auto& n : as_array(get_path(r, {"incast_meta", "notes"}))) out += notice("note", as_string(&n));
  return out + section_close();
}

}  // namespace fabcheck::report::html
