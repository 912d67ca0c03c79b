// HTML report: latency — the percentile table of every entry, then per entry its log-linear histogram (log2
// axes, p50/p99/p99.9 marked), the tail cost at scale and the per-pair percentiles.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "fabcheck/report/html.hpp"
#include "html_internal.hpp"

namespace fabcheck::report::html {
namespace {

std::string entry_label(const json& e) {
  return fmt::format("{} {} {} B", as_string(get(e, "kind"), "?"), as_string(get(e, "pattern")),
                     size_text(num_or(get(e, "size_bytes"), -1)));
}

std::string low_conf(const json& e) {
  std::string out;
  const json* lc = get(e, "low_confidence");
  for (const char* k : {"p99", "p999"}) {
    const json* v = lc ? get(*lc, k) : nullptr;
    if (v && v->is_boolean() && v->get<bool>()) out += (out.empty() ? "" : ", ") + std::string(k);
  }
  return out.empty() ? "" : "<span class=\"badge warn\">low confidence: " + out + "</span>";
}

std::string percentile_table(const json& entries) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : entries) {
    rows.push_back({text(get(e, "kind")), text(get(e, "pattern")),
                    size_text(num_or(get(e, "size_bytes"), -1)), text(get(e, "samples")),
                    number(get(e, "p50_us")), number(get(e, "p90_us")), number(get(e, "p99_us")),
                    number(get(e, "p999_us")), number(get(e, "max_us")), number(get(e, "tail_ratio"), 3),
                    low_conf(e)});
  }
  return table({"kind", "pattern", "size", "samples", "p50 us", "p90 us", "p99 us", "p99.9 us", "max us",
                "p99/p50", "note"},
               rows, "percentiles");
}

std::string histogram_plot(const json& e, std::size_t index) {
  struct Bucket {
    double lo_us, hi_us, n;
  };
  std::vector<Bucket> b;
  double lo = std::numeric_limits<double>::infinity(), hi = 0, nmax = 0;
  for (const auto& h : as_array(get(e, "histogram"))) {
    if (!h.is_array() || h.size() < 3 || !h[0].is_number() || !h[1].is_number() || !h[2].is_number())
      continue;
    Bucket k{h[0].get<double>() / 1e3, h[1].get<double>() / 1e3, h[2].get<double>()};
    if (!(k.hi_us > k.lo_us) || k.n <= 0) continue;
    b.push_back(k);
    lo = std::min(lo, std::max(k.lo_us, 1e-3));
    hi = std::max(hi, k.hi_us);
    nmax = std::max(nmax, k.n);
  }
  const std::string label = entry_label(e);
  std::string out = fmt::format(
      "<figure class=\"histogram\" id=\"latency-hist-{}\"{}{}{}>\n<figcaption>{}</figcaption>\n", index,
      attr("data-kind", as_string(get(e, "kind"))), attr("data-pattern", as_string(get(e, "pattern"))),
      num_attr("data-size-bytes", get(e, "size_bytes")), html_escape(label));
  if (b.empty()) return out + notice("note", "no histogram (no samples)") + "</figure>\n";
  Axis y = log2_axis(1, nmax, true, false, "samples (log2)");
  Plot plot(log2_axis(lo, hi, false, false, "latency (us, log2)"), y, "latency histogram: " + label, 520,
            240);
  for (const auto& k : b) {
    plot.bar(
        k.lo_us, k.hi_us, k.n, "s0",
        num_attr("data-lo-us", k.lo_us) + num_attr("data-hi-us", k.hi_us) + num_attr("data-count", k.n),
        fmt::format("[{}, {}) us: {} samples", fmt_number(k.lo_us), fmt_number(k.hi_us), fmt_number(k.n)));
  }
  int cls = 1;
  for (const auto& [key, name] : {std::pair{"p50_us", "p50"}, {"p99_us", "p99"}, {"p999_us", "p99.9"}}) {
    double v = 0;
    if (as_number(get(e, key), v)) {
      plot.vline(v, fmt::format("s{}", cls), fmt::format("{} {}", name, fmt_number(v, 3)),
                 attr("data-percentile", name) + num_attr("data-value-us", v));
    }
    ++cls;
  }
  out += plot.svg();
  return out + "</figure>\n";
}

/// Every entry of a list of up to kPerPairRowsShown; of a longer one the kWorstLinksShown with the highest
/// `key` (2048 pairs are a table nobody reads; the JSON keeps them all).
std::vector<const json*> first_or_worst(const json& list, const char* key) {
  std::vector<const json*> v;
  for (const auto& x : list) v.push_back(&x);
  if (v.size() <= kPerPairRowsShown) return v;
  std::stable_sort(v.begin(), v.end(), [&](const json* a, const json* b) {
    return num_or(get(*a, key), -1) > num_or(get(*b, key), -1);
  });
  v.resize(kWorstLinksShown);
  return v;
}

/// " (the 20 highest p99 of 2048; all in the JSON)" when a list was cut, else "".
std::string capped_note(std::size_t shown, std::size_t all, std::string_view by) {
  if (shown == all) return "";
  return fmt::format(" (the {} highest {} of {}; every one is in the report's JSON)", shown, by, all);
}

std::string details(const json& e) {
  std::string out;
  const auto& tc = as_array(get(e, "tail_cost"));
  if (!tc.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : tc) {
      const json* lc = get(c, "low_confidence");
      rows.push_back({text(get(c, "n")), number(get(c, "expected_us")), number(get(c, "vs_p50"), 3),
                      lc && lc->is_boolean() && lc->get<bool>() ? "low confidence" : ""});
    }
    out +=
        "<p>Tail cost at scale: expected slowest of N exchanges (independent draws from these "
        "samples)</p>\n" +
        table({"N", "E[max] us", "× p50", ""}, rows, "tail-cost");
  }
  const auto& pp = as_array(get(e, "per_pair"));
  if (!pp.empty()) {
    // Many pairs: the worst by p99, the rest in the report's JSON.
    std::vector<const json*> shown = first_or_worst(pp, "p99_us");
    std::vector<std::vector<std::string>> rows;
    for (const json* p : shown) {
      rows.push_back({text(get(*p, "pair")), text(get(*p, "samples")), number(get(*p, "p50_us")),
                      number(get(*p, "p99_us")), number(get(*p, "p999_us")), number(get(*p, "max_us"))});
    }
    out +=
        fmt::format("<details><summary>per pair{}</summary>\n", capped_note(shown.size(), pp.size(), "p99")) +
        table({"pair", "samples", "p50 us", "p99 us", "p99.9 us", "max us"}, rows, "per-pair") +
        "</details>\n";
  }
  const auto& st = as_array(get(e, "stragglers"));
  if (!st.empty()) {
    std::vector<const json*> shown = first_or_worst(st, "share");
    std::string list;
    for (const json* s : shown) list += "<li><code>" + html_escape(s->dump()) + "</code></li>";
    out += "<details><summary>stragglers (" +
           html_escape(as_string(get(e, "straggler_rule"), "share of the tail")) + ")" +
           capped_note(shown.size(), st.size(), "share") + "</summary><ul>" + list + "</ul></details>\n";
  }
  return out;
}

}  // namespace

std::string render_latency(const json& r) {
  std::string out = section_open(r, "latency", "Latency: histograms and percentiles", {"latency"});
  const auto& entries = as_array(get(r, "latency"));
  if (entries.empty())
    return out + notice("note", "no latency measurements in this report") + section_close();
  out +=
      "<p class=\"muted\">Percentiles from raw samples (nearest rank); histogram buckets log-linear.</p>\n";
  out += percentile_table(entries);
  std::size_t i = 0;
  for (const auto& e : entries) {
    out += "<div class=\"latency-entry\">\n" + histogram_plot(e, i++) + details(e) + "</div>\n";
  }
  return out + section_close();
}

}  // namespace fabcheck::report::html
