// Console table and self-contained HTML page of a comparison.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "compare_html_lead.hpp"
#include "fabcheck/report/compare_render.hpp"
#include "fabcheck/report/html.hpp"

namespace fabcheck::report {
namespace {

std::string value_text(double v) {
  const double a = std::fabs(v);
  if (a >= 1000) return fmt::format("{:.0f}", v);
  if (a >= 100) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.3f}", v);
  if (a == 0) return "0";
  return fmt::format("{:.4g}", v);
}

std::string delta_text(const CompareRow& r) {
  if (!r.delta_pct) return "n/a";
  return fmt::format("{:+.1f}", *r.delta_pct);
}

std::string p_text(const std::optional<double>& p) {
  if (!p) return "-";
  if (*p >= 0.001) return fmt::format("{:.3f}", *p);
  return fmt::format("{:.1e}", *p);
}

std::string better_text(const CompareResult& c, const CompareRow& r) {
  if (r.better == "equal") return "=";
  return r.better == "b" ? c.b.label : c.a.label;
}

std::string verdict_text(const CompareResult& c, const CompareRow& r) {
  switch (r.verdict) {
    case CompareVerdict::kWorse:
      return fmt::format("{} worse", c.b.label);
    case CompareVerdict::kBetter:
      return fmt::format("{} better", c.b.label);
    case CompareVerdict::kWithinNoise:
      return r.within_run_spread ? "within run spread" : "within noise";
    case CompareVerdict::kNoiseUnknown:
      return "noise unknown";
    case CompareVerdict::kNotTestable:
      return fmt::format("not testable (n = {}/{})", r.n_a, r.n_b);
    case CompareVerdict::kInconclusive:
      return fmt::format("inconclusive (x{:.2g}, samples overlap: p_holm {:.2g})",
                         r.fold_change.value_or(0.0), r.p_holm.value_or(1.0));
  }
  return "";
}

std::string rule_text(const CompareResult& c) {
  std::string t = fmt::format(
      "significant when the Holm-adjusted two-sided Mann-Whitney p < {} (over {} tests of raw per-iteration "
      "samples) and |delta| >= {:.0f} %",
      c.rule.alpha, c.tests, c.rule.min_delta * 100.0);
  if (c.a.runs > 1 || c.b.runs > 1) {
    t += fmt::format(
        " and |ln(B/A)| >= {} x the larger run-to-run spread ln(max/min) (a side of several runs: the median "
        "of its runs, samples pooled)",
        c.rule.run_spread_factor);
  } else {
    t += " (one run per side: a drift lasting a whole run is not seen; give each side several runs, "
         "A1.json,A2.json)";
  }
  return t + fmt::format("; delta = ({} - {}) / {}", c.b.label, c.a.label, c.a.label);
}

std::string side_text(const CompareSide& s) {
  return s.runs > 1 ? fmt::format("{} ({} runs: {})", s.label, s.runs, s.path)
                    : fmt::format("{} ({})", s.label, s.path);
}

std::string summary_rows_text(const CompareResult& c, std::size_t spread);

std::string summary_text(const CompareResult& c) {
  const std::size_t spread = c.count_within_run_spread();
  std::size_t links = 0, changed = 0;
  for (const auto& l : c.links) {
    links += l.compared;
    changed += l.worse + l.improved;
  }
  const std::string link_text = c.links.empty()
                                    ? std::string()
                                    : fmt::format("; {} links compared, {} changed by {:.0f} % or more",
                                                  links, changed, c.rule.min_delta * 100.0);
  return link_text.empty() ? summary_rows_text(c, spread) : summary_rows_text(c, spread) + link_text;
}

std::string summary_rows_text(const CompareResult& c, std::size_t spread) {
  return fmt::format(
      "{} metrics compared: {} {} worse, {} {} better, {} within noise{}, {} not testable (too few samples "
      "for the rule), {} inconclusive (moved {}x or more, samples overlap), {} noise unknown (no raw "
      "samples); {} only in {}, {} only in {}{}",
      c.rows.size(), c.count(CompareVerdict::kWorse), c.b.label, c.count(CompareVerdict::kBetter), c.b.label,
      c.count(CompareVerdict::kWithinNoise),
      spread ? fmt::format(" ({} of them within the run-to-run spread only)", spread) : std::string(),
      c.count(CompareVerdict::kNotTestable), c.count(CompareVerdict::kInconclusive),
      c.rule.inconclusive_factor, c.count(CompareVerdict::kNoiseUnknown), c.only_in_a.size(), c.a.label,
      c.only_in_b.size(), c.b.label,
      c.not_in_every_run_a.size() + c.not_in_every_run_b.size()
          ? fmt::format(", {} not in every run of {} and {} not in every run of {} (left out)",
                        c.not_in_every_run_a.size(), c.a.label, c.not_in_every_run_b.size(), c.b.label)
          : std::string());
}

/// A loss counter at 0 in both runs: a clean fabric's eight zeros per step are not a finding.
bool quiet_counter(const CompareRow& r) {
  return r.a_metric.section == "counters" && r.a == 0 && r.b == 0;
}

/// A row the text shows: every row but the per-host/per-pair ones the test did not call (2048 pairs
/// are 2048 rows of "within noise"; the JSON keeps them all) and the loss counters at 0 on both sides.
bool shown(const CompareRow& r) {
  if (quiet_counter(r)) return false;
  return !r.a_metric.per_place || r.verdict == CompareVerdict::kWorse || r.verdict == CompareVerdict::kBetter;
}

std::string per_place_text(const CompareResult& c) {
  std::size_t n = 0, hidden = 0, quiet = 0;
  for (const auto& r : c.rows) {
    n += r.a_metric.per_place;
    hidden += r.a_metric.per_place && !shown(r);
    quiet += quiet_counter(r);
  }
  std::string out;
  if (n > 0) {
    out = fmt::format(
        "{} per-pair rows (latency per host pair): {} not shown (not called worse or better; all in --json)",
        n, hidden);
  }
  if (quiet > 0) {
    out += fmt::format("{}{} loss-counter rows at 0 in both runs not shown (all in --json)",
                       out.empty() ? "" : "; ", quiet);
  }
  return out;
}

std::string quantile_text(const LinkSummary& l) {
  if (l.delta_quantiles.size() != kLinkDeltaQuantilesBp.size()) return "no delta (A is 0)";
  const auto& q = l.delta_quantiles;
  return fmt::format(
      "delta % min {:+.1f}, p1 {:+.1f}, p5 {:+.1f}, median {:+.1f}, p95 {:+.1f}, p99 {:+.1f}, max {:+.1f}",
      q[0], q[1], q[2], q[4], q[6], q[7], q[8]);
}

std::string link_delta_text(const LinkChange& ch) {
  return ch.delta_pct ? fmt::format("{:+.1f} %", *ch.delta_pct) : std::string("n/a (A is 0)");
}

std::string render_compare_links(const CompareResult& c, std::size_t max_lines) {
  std::string out;
  for (const auto& l : c.links) {
    out += fmt::format(
        "# per link: pairs {} {} ({} is better): {} links compared, {} changed by {:.0f} % or more ({} {} "
        "worse, {} "
        "{} better), {} within it; {} only in {}, {} only in {} (no samples per link: not a test against "
        "noise)\n",
        l.item, l.metric, model::name(l.better), l.compared, l.worse + l.improved, c.rule.min_delta * 100.0,
        l.worse, c.b.label, l.improved, c.b.label, l.compared - l.worse - l.improved, l.only_in_a, c.a.label,
        l.only_in_b, c.b.label);
    out += fmt::format("#   {}\n", quantile_text(l));
    std::size_t k = 0;
    for (const auto& ch : l.changed) {
      if (k++ == max_lines) {
        out += fmt::format("#   ... {} more changed links in --json (compare.links[].changed_links)\n",
                           l.worse + l.improved - max_lines);
        break;
      }
      out += fmt::format("#   {} {} -> {}: {} -> {} ({}) {} {}\n", l.metric, ch.from, ch.to, value_text(ch.a),
                         value_text(ch.b), link_delta_text(ch), c.b.label, ch.worse ? "worse" : "better");
    }
  }
  return out;
}

}  // namespace

std::string render_compare(const CompareResult& c) {
  std::string out;
  out += fmt::format("# fabcheck compare: A = {}, B = {}\n", side_text(c.a), side_text(c.b));
  out += fmt::format("# {}\n", rule_text(c));
  using Row = std::array<std::string, 9>;
  std::vector<Row> lines;
  lines.push_back(
      {"section", "item", "metric", c.a.label, c.b.label, "delta %", "better", "p(Holm)", "verdict"});
  for (const auto& r : c.rows) {
    if (!shown(r)) continue;
    lines.push_back({r.a_metric.section, r.a_metric.item, r.a_metric.metric, value_text(r.a), value_text(r.b),
                     delta_text(r), better_text(c, r), p_text(r.p_holm), verdict_text(c, r)});
  }
  std::array<std::size_t, 9> width{};
  for (const auto& l : lines)
    for (std::size_t i = 0; i < l.size(); ++i) width[i] = std::max(width[i], l[i].size());
  for (const auto& l : lines) {
    std::string line;
    for (std::size_t i = 0; i < l.size(); ++i) {
      const bool right = i >= 3 && i <= 7 && i != 6;  // numbers right-aligned
      if (i) line += "  ";
      line += right ? fmt::format("{:>{}}", l[i], width[i])
                    : (i + 1 == l.size() ? l[i] : fmt::format("{:<{}}", l[i], width[i]));
    }
    out += line + "\n";
  }
  if (const std::string pp = per_place_text(c); !pp.empty()) out += fmt::format("# {}\n", pp);
  out += render_compare_links(c, 50);
  out += fmt::format("# {}\n", summary_text(c));
  return out;
}

std::string render_compare_html(const CompareResult& c) {
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  h += fmt::format("<title>fabcheck compare: {} vs {}</title>\n", html_escape(c.a.label),
                   html_escape(c.b.label));
  h += R"(<style>
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 7px}
th{background:#eee;position:sticky;top:0}
td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.worse td{background:#fde2e1}
tr.better td{background:#e1f5e4}
tr.noise_unknown td{color:#777}
.summary{font-size:15px;margin:0.6em 0}
code{background:#f4f4f4;padding:0 3px}
)";
  h += html::compare_css();
  h += "</style></head><body>\n";
  h += fmt::format("<h1>fabcheck compare: {} against {}</h1>\n", html_escape(c.b.label),
                   html_escape(c.a.label));
  h += fmt::format("<p>A = <b>{}</b> (<code>{}</code>{}), B = <b>{}</b> (<code>{}</code>{})</p>\n",
                   html_escape(c.a.label), html_escape(c.a.path),
                   c.a.runs > 1 ? fmt::format("; {} runs", c.a.runs) : std::string(), html_escape(c.b.label),
                   html_escape(c.b.path), c.b.runs > 1 ? fmt::format("; {} runs", c.b.runs) : std::string());
  h += fmt::format("<p class=\"summary\" id=\"summary\">{}</p>\n", html_escape(summary_text(c)));
  h += fmt::format("<p>Rule: {}.</p>\n", html_escape(rule_text(c)));
  h += html::compare_lead(c);
  std::size_t listed = 0;
  for (const auto& r : c.rows) listed += shown(r);
  h += fmt::format("<details id=\"all\"><summary>All {} compared metrics{}</summary>\n", listed,
                   listed == c.rows.size()
                       ? std::string()
                       : fmt::format(" ({} per-pair rows not called worse or better: in the JSON)",
                                     c.rows.size() - listed));
  h += "<table id=\"compare\">\n<thead><tr>";
  for (const std::string& col : {std::string("section"), std::string("item"), std::string("metric"),
                                 c.a.label, c.b.label, std::string("delta %"), std::string("better"),
                                 std::string("p (Holm)"), std::string("n A/B"), std::string("verdict")}) {
    h += "<th>" + html_escape(col) + "</th>";
  }
  h += "</tr></thead>\n<tbody>\n";
  for (const auto& r : c.rows) {
    if (!shown(r)) continue;
    h += fmt::format("<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td>", name(r.verdict),
                     html_escape(r.a_metric.section), html_escape(r.a_metric.item),
                     html_escape(r.a_metric.metric));
    h += fmt::format("<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>", value_text(r.a),
                     value_text(r.b), delta_text(r));
    h += fmt::format("<td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>\n",
                     html_escape(better_text(c, r)), p_text(r.p_holm),
                     r.n_a ? fmt::format("{}/{}", r.n_a, r.n_b) : std::string("-"),
                     html_escape(verdict_text(c, r)));
  }
  h += "</tbody></table>\n</details>\n";
  h +=
      "<p>Metrics without raw per-iteration samples on both sides (imported results, averages, derived "
      "figures) "
      "show their delta but say <i>noise unknown</i>: there is nothing to test the difference against.</p>\n";
  h += "</body></html>\n";
  return h;
}

}  // namespace fabcheck::report
