// The head of the compare page (it leads with overlaid busBw curves, the top
// regressions and improvements, and the per-host/per-link changes; the long table goes below, collapsed):
// formats rows that compare_reports() computed, computes no statistic.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "compare_html_lead.hpp"
#include "fabcheck/report/html.hpp"
#include "html_internal.hpp"

namespace fabcheck::report::html {
namespace {

std::string key_text(const json& key, const char* k) {
  if (!key.is_object() || !key.contains(k) || key[k].is_null()) return "";
  return key[k].is_string() ? key[k].get<std::string>() : key[k].dump();
}

/// The improvement of B over A in the metric's own direction, in % (negative = B worse).
double gain_pct(const CompareRow& r) {
  if (!r.delta_pct) return 0;
  return r.a_metric.better == BetterIs::kHigher ? *r.delta_pct : -*r.delta_pct;
}

std::string row_line(const CompareRow& r) {
  return fmt::format("<li{}{}><b>{}</b> {} {}: {} &rarr; {} ({:+.1f} %)</li>\n",
                     attr("data-section", r.a_metric.section),
                     attr("data-verdict", std::string(name(r.verdict))), html_escape(r.a_metric.section),
                     html_escape(r.a_metric.item), html_escape(r.a_metric.metric), fmt_number(r.a, 4),
                     fmt_number(r.b, 4), r.delta_pct.value_or(0));
}

/// One busBw chart per sweep series: A and B out-of-place busBw against size, points B flagged worse in red.
std::string curves(const CompareResult& c) {
  using Series = std::map<double, std::tuple<double, double, CompareVerdict>>;  // size -> (a, b, verdict)
  std::map<std::string, Series> by_block;
  for (const auto& r : c.rows) {
    const auto& k = r.a_metric.key;
    if (r.a_metric.section != "sweeps" || r.a_metric.metric != "busbw_gbps") continue;
    if (key_text(k, "placement") != "out_of_place" || !k.contains("size_bytes") ||
        !k["size_bytes"].is_number())
      continue;
    const std::string block =
        fmt::format("{} {} {}{}", key_text(k, "collective"), key_text(k, "dtype"), key_text(k, "redop"),
                    key_text(k, "root").empty() ? "" : " root=" + key_text(k, "root"));
    by_block[block][k["size_bytes"].get<double>()] = {r.a, r.b, r.verdict};
  }
  if (by_block.empty()) return "<p class=\"muted\">No sweep in both reports: no busBw curves.</p>\n";
  std::string out = "<div class=\"figs\">\n";
  for (const auto& [block, pts] : by_block) {
    double lo = 0, hi = 0, ymax = 0;
    bool zero = false, first = true;
    for (const auto& [size, v] : pts) {
      if (size <= 0) {
        zero = true;
        continue;
      }
      lo = first ? size : std::min(lo, size);
      hi = first ? size : std::max(hi, size);
      first = false;
      ymax = std::max({ymax, std::get<0>(v), std::get<1>(v)});
    }
    if (first) continue;
    Plot plot(log2_axis(lo, hi, zero, true, "message size (bytes, log2)"),
              linear_axis(0, ymax, "busBw (GB/s)"), "busBw of " + block + ": A and B");
    std::vector<std::pair<double, double>> la, lb;
    for (const auto& [size, v] : pts) {
      const auto [a, b, verdict] = v;
      la.emplace_back(size, a);
      lb.emplace_back(size, b);
    }
    plot.line(la, "s0");
    plot.line(lb, "s1");
    for (const auto& [size, v] : pts) {
      const auto [a, b, verdict] = v;
      const std::string attrs =
          num_attr("data-size-bytes", size) + attr("data-verdict", std::string(name(verdict)));
      plot.point(size, a, "s0", attrs + attr("data-side", "a"),
                 fmt::format("A {}: {} GB/s", size_text(size), fmt_number(a, 4)));
      plot.point(size, b, verdict == CompareVerdict::kWorse ? "s4" : "s1", attrs + attr("data-side", "b"),
                 fmt::format("B {}: {} GB/s ({})", size_text(size), fmt_number(b, 4), name(verdict)),
                 verdict != CompareVerdict::kWorse);
    }
    plot.legend("s0", "A " + c.a.label);
    plot.legend("s1", "B " + c.b.label);
    plot.legend("s4", "B worse (tested)");
    out += fmt::format("<figure class=\"curve\"{}><figcaption>{}</figcaption>\n{}</figure>\n",
                       attr("data-block", block), html_escape(block), plot.svg());
  }
  return out + "</div>\n";
}

/// The `limit` rows with the largest change in one direction among those the test called (worse/better).
std::string top(const CompareResult& c, CompareVerdict want, std::size_t limit, const char* id,
                const char* title) {
  std::vector<const CompareRow*> v;
  for (const auto& r : c.rows)
    if (r.verdict == want) v.push_back(&r);
  std::sort(v.begin(), v.end(), [&](const CompareRow* x, const CompareRow* y) {
    return want == CompareVerdict::kWorse ? gain_pct(*x) < gain_pct(*y) : gain_pct(*x) > gain_pct(*y);
  });
  std::string out = fmt::format("<h2 id=\"{}\">{} ({} in all)</h2>\n", id, title, v.size());
  if (v.empty()) return out + "<p class=\"muted\">none</p>\n";
  out += "<ol>\n";
  for (std::size_t i = 0; i < v.size() && i < limit; ++i) out += row_line(*v[i]);
  return out + "</ol>\n";
}

/// Per link: for each pairs matrix the counts, the distribution of the per-link deltas and the
/// links that changed by min_delta or more, worst first (the first kChangedLinksShown; all in the JSON).
constexpr std::size_t kChangedLinksShown = 50;
std::string places(const CompareResult& c) {
  std::string out = "<h2 id=\"places\">Per link</h2>\n";
  if (c.links.empty()) return out + "<p class=\"muted\">no pairs section in both reports</p>\n";
  for (const auto& l : c.links) {
    const std::size_t changed = l.worse + l.improved;
    out +=
        fmt::format("<div class=\"links\"{}{}{}{}><h3>{} {} ({} is better)</h3>\n",
                    attr("data-metric", l.metric), num_attr("data-compared", static_cast<double>(l.compared)),
                    num_attr("data-changed", static_cast<double>(changed)),
                    num_attr("data-worse", static_cast<double>(l.worse)), html_escape(l.item),
                    html_escape(l.metric), model::name(l.better));
    out += fmt::format(
        "<p>{} links compared: <b>{} changed by {} % or more</b> ({} worse, {} better), {} within it; {} "
        "only in "
        "{}, {} only in {}. No samples per link: the change is not tested against noise.</p>\n",
        l.compared, changed, fmt_number(c.rule.min_delta * 100.0, 3), l.worse, l.improved,
        l.compared - changed, l.only_in_a, html_escape(c.a.label), l.only_in_b, html_escape(c.b.label));
    if (l.delta_quantiles.size() == kLinkDeltaQuantilesBp.size()) {
      std::vector<std::string> head, cells;
      for (std::size_t i = 0; i < l.delta_quantiles.size(); ++i) {
        const int bp = kLinkDeltaQuantilesBp[i];
        head.push_back(bp == 0 ? "min" : bp == 10000 ? "max" : fmt::format("p{}", bp / 100));
        cells.push_back(fmt::format("{:+.1f}", l.delta_quantiles[i]));
      }
      out += "<p class=\"muted\">Distribution of delta % over the links</p>\n" +
             table(head, {cells}, "link-deltas");
    }
    if (!l.changed.empty()) {
      std::vector<std::vector<std::string>> rows;
      for (std::size_t i = 0; i < l.changed.size() && i < kChangedLinksShown; ++i) {
        const auto& ch = l.changed[i];
        rows.push_back({html_escape(ch.from), html_escape(ch.to), fmt_number(ch.a, 4), fmt_number(ch.b, 4),
                        ch.delta_pct ? fmt::format("{:+.1f}", *ch.delta_pct) : std::string("n/a"),
                        ch.worse ? "worse" : "better"});
      }
      if (changed > rows.size())
        out += fmt::format(
            "<p class=\"muted\">The {} largest changes of {}; every one is in the JSON "
            "(compare.links[].changed_links).</p>\n",
            rows.size(), changed);
      out += table({"from", "to", html_escape(c.a.label), html_escape(c.b.label), "delta %", "B"}, rows,
                   "changed-links");
    }
    out += "</div>\n";
  }
  return out;
}

}  // namespace

std::string compare_lead(const CompareResult& c) {
  std::string out = "<h2 id=\"curves\">busBw, A against B</h2>\n";
  out += curves(c);
  out += top(c, CompareVerdict::kWorse, 10, "regressions", "Top regressions (B worse, tested)");
  out += top(c, CompareVerdict::kBetter, 10, "improvements", "Top improvements (B better, tested)");
  out += places(c);
  return out;
}

std::string compare_css() {
  return std::string(kPlotCss) +
         R"(.s0{stroke:#0969da;fill:#0969da}.s1{stroke:#bc4c00;fill:#bc4c00}.s4{stroke:#cf222e;fill:#cf222e}
.figs{display:flex;flex-wrap:wrap;gap:1em}
figure.curve{margin:0}
.muted{color:#57606a}
details summary{cursor:pointer;font-weight:600;margin:0.8em 0}
)";
}

}  // namespace fabcheck::report::html
