// HTML report: a pairs matrix of many hosts as one raster image: an inline PNG whose pixel is a
// link, or above kRasterMaxSide hosts a block of hosts coloured by its worst link (a slow link stays
// visible), the colour legend, and the worst links of the matrix as a table. The numbers stay in the JSON.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <queue>
#include <tuple>

#include "fabcheck/report/html.hpp"
#include "fabcheck/report/png.hpp"
#include "html_internal.hpp"

namespace fabcheck::report::html {
namespace {

/// Colour steps of the scale in the palette; two more entries: no value, the diagonal (a host to itself).
constexpr std::size_t kLevels = 200;
constexpr std::uint8_t kNoValue = kLevels, kSelf = kLevels + 1;

/// hsl(h, s, l) as RGB (CSS Color 4's conversion), h in degrees, s and l in [0, 1].
Rgb hsl_rgb(double h, double s, double l) {
  auto f = [&](double n) {
    const double k = std::fmod(n + h / 30.0, 12.0);
    const double a = s * std::min(l, 1 - l);
    const double v = l - a * std::max(-1.0, std::min({k - 3, 9 - k, 1.0}));
    return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255));
  };
  return {f(0), f(8), f(4)};
}

/// The palette: kLevels colours of heat_fill from worst to best, then no value (#ddd), then self (#f6f8fa).
std::vector<Rgb> heat_palette() {
  std::vector<Rgb> p;
  for (std::size_t i = 0; i < kLevels; ++i) {
    const double pos = static_cast<double>(i) / (kLevels - 1);
    p.push_back(hsl_rgb(120 * pos, 0.70, (78 - 8 * pos) / 100.0));  // heat_fill's formula
  }
  p.push_back({0xdd, 0xdd, 0xdd});
  p.push_back({0xf6, 0xf8, 0xfa});
  return p;
}

struct Cell {
  double goodness;
  std::size_t from, to;
  double value;
};

}  // namespace

std::string raster_heatmap(const json& m, const HeatmapSpec& spec, const std::vector<std::string>& hosts,
                           double med) {
  const std::size_t n = hosts.size();
  const std::size_t block = (n + kRasterMaxSide - 1) / kRasterMaxSide;
  const std::size_t side = (n + block - 1) / block;
  std::vector<double> worst(side * side, 2.0);  // lowest heat position per pixel; 2 = no value yet
  std::vector<std::uint8_t> has_link(side * side, 0);
  // The worst links: a max-heap on goodness keeps the kWorstLinksShown lowest.
  auto cmp = [](const Cell& a, const Cell& b) { return a.goodness < b.goodness; };
  std::priority_queue<Cell, std::vector<Cell>, decltype(cmp)> worst_links(cmp);
  const bool symmetric = spec.kind == "lat";  // one value per unordered pair
  for (std::size_t i = 0; i < n && i < m.size(); ++i) {
    const json& row = m[i];
    if (!row.is_array()) continue;
    for (std::size_t j = 0; j < n && j < row.size(); ++j) {
      if (i == j) continue;
      const std::size_t px = (i / block) * side + j / block;
      has_link[px] = 1;
      double v = 0;
      if (!as_number(&row[j], v) || med <= 0) continue;
      const double goodness = spec.higher_better ? v / med : (v > 0 ? med / v : 0);
      worst[px] = std::min(worst[px], heat_position(goodness));
      if (symmetric && j < i) continue;
      if (worst_links.size() < kWorstLinksShown) {
        worst_links.push({goodness, i, j, v});
      } else if (goodness < worst_links.top().goodness) {
        worst_links.pop();
        worst_links.push({goodness, i, j, v});
      }
    }
  }
  std::vector<std::uint8_t> pixels(side * side, kSelf);
  for (std::size_t p = 0; p < pixels.size(); ++p) {
    if (!has_link[p]) continue;
    pixels[p] = worst[p] > 1.5 ? kNoValue : static_cast<std::uint8_t>(std::lround(worst[p] * (kLevels - 1)));
  }
  const std::string png = encode_png_indexed(static_cast<std::uint32_t>(side),
                                             static_cast<std::uint32_t>(side), heat_palette(), pixels);
  const std::size_t shown = side * std::max<std::size_t>(1, kRasterMaxSide / side);  // whole CSS px per pixel
  std::string s =
      fmt::format("<figure class=\"heatmap raster\" id=\"{}\"{}{}{}{}>\n<figcaption>{}</figcaption>\n",
                  spec.id, attr("data-kind", spec.kind), num_attr("data-hosts", static_cast<double>(n)),
                  num_attr("data-block", static_cast<double>(block)),
                  num_attr("data-pixels", static_cast<double>(side)), html_escape(spec.title));
  s += fmt::format(
      "<img class=\"heat-raster\" width=\"{}\" height=\"{}\"{} src=\"data:image/png;base64,{}\">\n", shown,
      shown,
      attr("alt", fmt::format("{}: {} x {} hosts as a {} x {} pixel image", spec.title, n, n, side, side)),
      base64(png));
  s += heat_legend(med, spec);
  const std::string order = fmt::format("{} … {}", hosts.front(), hosts.back());
  s += fmt::format(
      "<p class=\"muted\">{} {}; rows = source host, columns = destination, in the order of pairs.hosts "
      "({}); "
      "{}; colour = value against the median <span class=\"median\"{}>{}</span> {} (green: the median or "
      "better, red: half as good or worse). Every value is in the report's JSON (pairs.{}).</p>\n",
      html_escape(spec.title), spec.higher_better ? "(higher is better)" : "(lower is better)",
      html_escape(order),
      block > 1
          ? fmt::format("one pixel = a block of {} x {} host pairs, coloured by its worst link", block, block)
          : std::string("one pixel per link"),
      num_attr("data-median", med), fmt_number(med, 4), html_escape(spec.unit), spec.key);
  std::vector<Cell> cells;
  while (!worst_links.empty()) {
    cells.push_back(worst_links.top());
    worst_links.pop();
  }
  std::reverse(cells.begin(), cells.end());
  std::vector<std::vector<std::string>> rows;
  for (const Cell& c : cells) {
    rows.push_back({html_escape(hosts[c.from]), html_escape(hosts[c.to]), fmt_number(c.value, 4),
                    fmt_number(c.value / med, 3)});
  }
  s += fmt::format("<details class=\"worst-links\" open><summary>the {} worst {}</summary>\n", rows.size(),
                   symmetric ? "pairs" : "links");
  s += table({"from", "to", html_escape(spec.unit), "&times; median"}, rows, "worst-links");
  s += "</details>\n";
  return s + "</figure>\n";
}

}  // namespace fabcheck::report::html
