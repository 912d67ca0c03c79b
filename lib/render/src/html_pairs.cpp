// HTML report: the pairs heatmaps (bandwidth per direction, latency p50 per pair) with outliers marked, and
// the suspects.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

#include "fabcheck/report/html.hpp"
#include "html_internal.hpp"

namespace fabcheck::report::html {
namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

}  // namespace

double heat_position(double goodness) {
  return std::clamp((goodness - kWorstGoodness) / (1 - kWorstGoodness), 0.0, 1.0);
}

std::string heat_fill(double goodness) {
  const double g = heat_position(goodness);
  return fmt::format("hsl({:.0f},70%,{:.0f}%)", 120 * g, 78 - 8 * g);
}

std::string heat_legend(double med, const HeatmapSpec& spec) {
  const bool higher_better = spec.higher_better;
  auto at = [&](double goodness) { return higher_better ? med * goodness : med / goodness; };
  std::string s = fmt::format(
      "<svg class=\"legend\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 360 34\" width=\"360\" "
      "height=\"34\" role=\"img\" aria-label=\"colour scale\"><defs><linearGradient id=\"{}-scale\">",
      spec.id);
  for (double g : {0.0, 0.5, 1.0})
    s += fmt::format("<stop offset=\"{:.0f}%\" stop-color=\"{}\"/>", 100 * g,
                     heat_fill(kWorstGoodness + g * (1 - kWorstGoodness)));
  s += fmt::format(
      "</linearGradient></defs><rect x=\"0\" y=\"2\" width=\"360\" height=\"12\" fill=\"url(#{}-scale)\"/>",
      spec.id);
  s += fmt::format("<text x=\"0\" y=\"30\" class=\"muted\">worst: {} {} {} (0.5x median)</text>",
                   higher_better ? "&le;" : "&ge;", fmt_number(at(0.5), 3), html_escape(spec.unit));
  s += fmt::format(
      "<text x=\"360\" y=\"30\" text-anchor=\"end\" class=\"muted\">best: median {} {} or {}</text>",
      fmt_number(med, 4), html_escape(spec.unit), higher_better ? "more" : "less");
  return s + "</svg>\n";
}

namespace {

// One heatmap: rows = source host, columns = destination host. `higher_better` for bandwidth.
std::string heatmap(const json& rail, const HeatmapSpec& spec, const std::vector<std::string>& hosts) {
  const std::string_view kind = spec.kind, title = spec.title, unit = spec.unit;
  const std::string_view id = spec.id;
  const bool higher_better = spec.higher_better;
  const json* m = get(rail, spec.key);
  if (!m || !m->is_array()) return "";
  const std::size_t n = hosts.size();
  // The section's own median (the outlier rule's); the matrix's lower median only for reports without it.
  const std::string med_key = kind == "bw" ? "bw_median_gbps" : "lat_median_us";
  double med = 0;
  if (!as_number(get(rail, med_key), med) || med <= 0) {
    std::vector<double> vals;
    for (const auto& row : *m) {
      for (const auto& c : as_array(&row)) {
        double v = 0;
        if (as_number(&c, v) && v > 0) vals.push_back(v);
      }
    }
    med = median_of(vals);
  }
  if (n > kSvgHeatmapMaxHosts) return raster_heatmap(*m, spec, hosts, med);
  std::set<std::pair<std::string, std::string>> outl;
  for (const auto& o : as_array(get(rail, "outliers"))) {
    if (as_string(get(o, "kind")) != kind) continue;
    const std::string a = as_string(get(o, "from")), b = as_string(get(o, "to"));
    outl.emplace(a, b);
    if (kind == "lat") outl.emplace(b, a);  // latency has no direction: one value per unordered pair
  }
  const double cell = std::clamp(560.0 / static_cast<double>(std::max<std::size_t>(n, 1)), 12.0, 64.0);
  const double left = 110, top = 90;
  const double w = left + cell * static_cast<double>(n) + 10, h = top + cell * static_cast<double>(n) + 10;
  std::string s = fmt::format(
      "<figure class=\"heatmap\" id=\"{}\"{}>\n<figcaption>{}</figcaption>\n<svg class=\"heat\" "
      "xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {:.0f} {:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "role=\"img\"{}>\n",
      id, attr("data-kind", kind), html_escape(title), w, h, w, h, attr("aria-label", title));
  for (std::size_t j = 0; j < n; ++j) {
    const double x = left + cell * (static_cast<double>(j) + 0.5);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" transform=\"rotate(-45 {:.1f} {:.1f})\">{}</text>\n", x,
                     top - 6, x, top - 6, html_escape(hosts[j]));
  }
  s += fmt::format("<text x=\"4\" y=\"14\" class=\"muted\">from ↓ to →</text>\n");
  for (std::size_t i = 0; i < n; ++i) {
    const double y = top + cell * static_cast<double>(i);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", left - 6,
                     y + cell / 2 + 4, html_escape(hosts[i]));
    const json* row = i < m->size() ? &(*m)[i] : nullptr;
    for (std::size_t j = 0; j < n; ++j) {
      const double x = left + cell * static_cast<double>(j);
      if (i == j) {
        s += fmt::format(
            "<rect class=\"self\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
            "fill=\"#f6f8fa\"/>\n",
            x, y, cell, cell);
        continue;
      }
      const json* c = row && row->is_array() && j < row->size() ? &(*row)[j] : nullptr;
      double v = 0;
      const bool have = as_number(c, v);
      const bool is_out = outl.count({hosts[i], hosts[j]}) > 0;
      const double goodness = !have || med <= 0 ? 0 : higher_better ? v / med : (v > 0 ? med / v : 0);
      std::string tip = fmt::format("{} → {}: {} {}{}", hosts[i], hosts[j],
                                    have ? fmt_number(v, 4) : "no value", unit, is_out ? " (outlier)" : "");
      s += fmt::format(
          "<rect class=\"cell{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
          "fill=\"{}\"{}{}{}{}{}{}>"
          "<title>{}</title></rect>\n",
          is_out ? " outlier" : "", x, y, cell, cell, have ? heat_fill(goodness) : "#ddd",
          attr("data-kind", kind), attr("data-from", hosts[i]), attr("data-to", hosts[j]),
          num_attr("data-value", have ? v : std::numeric_limits<double>::quiet_NaN()),
          num_attr("data-scale", have ? heat_position(goodness) : std::numeric_limits<double>::quiet_NaN()),
          attr("data-outlier", is_out ? "true" : "false"), html_escape(tip));
      if (cell >= 34 && have) {
        s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", x + cell / 2,
                         y + cell / 2 + 4, fmt_number(v, 3));
      }
      if (is_out) {
        s += fmt::format("<text class=\"mark\" x=\"{:.1f}\" y=\"{:.1f}\">!</text>\n", x + 3, y + 11);
      }
    }
  }
  s += "</svg>\n";
  s += heat_legend(med, spec);
  s += fmt::format(
      "<p class=\"muted\">{} {}; colour = value against the median <span class=\"median\"{}>{}</span> {} "
      "(green: the median or better, red: half as good or worse); red outline and ! = outlier "
      "(docs/DESIGN.md §4).</p>\n",
      html_escape(title), higher_better ? "(higher is better)" : "(lower is better)",
      num_attr("data-median", med), fmt_number(med, 4), html_escape(unit));
  return s + "</figure>\n";
}

std::string rail_html(const json& rail, const std::vector<std::string>& hosts, std::string_view suffix) {
  std::string out = "<div class=\"figs\">\n";
  out += heatmap(
      rail,
      {"bw", "bandwidth per direction (GB/s)", "GB/s", "bw_gbps", true, fmt::format("pairs-bw{}", suffix)},
      hosts);
  out += heatmap(
      rail,
      {"lat", "8 B latency p50 per pair (us)", "us", "lat_p50_us", false, fmt::format("pairs-lat{}", suffix)},
      hosts);
  out += "</div>\n";
  const auto& outliers = as_array(get(rail, "outliers"));
  if (!outliers.empty()) {
    // A large matrix: the most extreme outliers (|robust z|), the rest in the report's JSON.
    std::vector<const json*> shown;
    for (const auto& o : outliers) shown.push_back(&o);
    const bool capped = hosts.size() > kSvgHeatmapMaxHosts && shown.size() > kOutlierRowsShown;
    if (capped) {
      auto extreme = [](const json* o) { return std::fabs(num_or(get(*o, "z"), 0)); };
      std::stable_sort(shown.begin(), shown.end(),
                       [&](const json* x, const json* y) { return extreme(x) > extreme(y); });
      shown.resize(kOutlierRowsShown);
    }
    std::vector<std::vector<std::string>> rows;
    for (const json* op : shown) {
      const json& o = *op;
      rows.push_back({text(get(o, "kind")), text(get(o, "from")), text(get(o, "to")), number(get(o, "value")),
                      number(get(o, "median")), number(get(o, "z"), 3), text(get(o, "rule")),
                      text(get(o, "confirmed"))});
    }
    out += "<h3>Outliers</h3>\n";
    if (capped)
      out += fmt::format(
          "<p class=\"muted capped\"{}>The {} most extreme of {} outlier links (largest |robust z|); every "
          "one "
          "is in the report's JSON (pairs.outliers).</p>\n",
          num_attr("data-outliers", static_cast<double>(outliers.size())), shown.size(), outliers.size());
    out +=
        table({"kind", "from", "to", "value", "median", "robust z", "rule", "confirmed"}, rows, "outliers");
  } else {
    out += notice("note", "no outlier link");
  }
  const auto& sus = as_array(get(rail, "suspects"));
  for (const auto& s : sus) {
    const json* c = get(s, "confirmed");
    out += fmt::format(
        "<p class=\"notice failed suspect\"{}><b>suspect host {}</b>: {} of its links are outliers{}</p>\n",
        attr("data-host", as_string(get(s, "host"))), text(get(s, "host")), as_array(get(s, "links")).size(),
        c && c->is_boolean() ? (c->get<bool>() ? " (confirmed by the retest)" : " (not confirmed)")
                             : " (not retested)");
  }
  for (const auto& note : as_array(get(rail, "notes"))) out += notice("note", as_string(&note));
  return out;
}

}  // namespace

std::string render_pairs(const json& r) {
  std::string out = section_open(r, "pairs", "Every host pair", {"pairs"});
  const json* p = get(r, "pairs");
  if (!p || !p->is_object())
    return out + notice("note", "no pairs measurement in this report") + section_close();
  std::vector<std::string> hosts;
  for (const auto& h : as_array(get(*p, "hosts"))) hosts.push_back(as_string(&h, "?"));
  out += fmt::format("<p>{} hosts; {} per direction ({} messages in flight).</p>\n", hosts.size(),
                     size_text(num_or(get(*p, "size_bytes"), -1)), text(get(*p, "window")));
  const auto& rails = as_array(get(*p, "rails"));
  if (rails.size() > 1) {
    std::size_t k = 0;
    for (const auto& rail : rails) {
      out += fmt::format("<h3>rail of local rank {}</h3>\n", text(get(rail, "local_rank")));
      out += rail_html(rail, hosts, fmt::format("-{}", k++));
    }
  } else {
    out += rail_html(*p, hosts, "");
  }
  return out + section_close();
}

}  // namespace fabcheck::report::html
