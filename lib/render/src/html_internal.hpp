#pragma once
// Internal pieces of the HTML report (html.hpp): JSON reading helpers that never throw, the SVG plot helper
// and one renderer per page section. Not installed; only lib/render/src/html_*.cpp include it.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabcheck::report::html {

using json = nlohmann::json;

// ---- reading the report without throwing ----

// The member `key` of `j` when `j` is an object that has it and it is not null; else nullptr.
const json* get(const json& j, std::string_view key);
// get() along a path of keys.
const json* get_path(const json& j, std::initializer_list<std::string_view> keys);
// The number at `j` (nullptr or not a number: false).
bool as_number(const json* j, double& out);
// The number at `j`, or `fallback`.
double num_or(const json* j, double fallback);
// The boolean at `j`, or `fallback` when absent or not a boolean.
bool flag_or(const json* j, bool fallback);
// The string at `j`, or `fallback` when absent or not a string (not escaped).
std::string as_string(const json* j, std::string_view fallback = "");
// The array at `j`, or an empty array.
const json& as_array(const json* j);

// ---- formatting (all results are already escaped, ready to insert) ----

// Escaped text of any JSON value: strings as they are, numbers as fmt_number, booleans yes/no, null/absent
// as an em dash, arrays/objects as compact JSON.
std::string text(const json* j);
// A number with `digits` significant digits (no exponent between 1e-3 and 1e7); "—" when absent.
std::string fmt_number(double v, int digits = 4);
std::string number(const json* j, int digits = 4);
// "p50 / p99" of a summary object ({samples, min, p50, ...}); "—" when absent.
std::string p50_p99(const json* summary);
// Bytes as a binary size ("64K", "1M"; "1536" stays exact); "—" when absent.
std::string size_text(double bytes);
// ` name="value"` with the value escaped.
std::string attr(std::string_view name, std::string_view value);
// ` name="<number>"` (full precision, `null` when absent) for data attributes.
std::string num_attr(std::string_view name, const json* j);
std::string num_attr(std::string_view name, double v);
// CSS class of a status word: ok/pass/rdma → good, warn/skipped → warn, fail/failed → bad.
std::string_view status_class(std::string_view status);

// ---- page structure ----

// `<section id=ID><h2>TITLE</h2>` followed, for each run.sections entry in `report_sections` that is
// skipped or failed, by a notice (class "notice skipped|failed", data-section, data-status) with its reason.
std::string section_open(const json& report, std::string_view id, std::string_view title,
                         std::initializer_list<std::string_view> report_sections);
std::string section_close();
// The notices alone: one per listed run.sections entry that is skipped or failed.
std::string section_notices(const json& report, std::initializer_list<std::string_view> report_sections);
// A notice paragraph (escaped text) with a CSS class ("note", "skipped", "failed").
std::string notice(std::string_view css_class, std::string_view message);

// ---- SVG plots ----

// The style rules of every Plot (axes, grid, series lines and points): one copy for the report and the
// compare page.
inline constexpr std::string_view kPlotCss = R"css(svg.plot{max-width:100%;height:auto;background:#fff}
svg text{font-size:11px;fill:#1f2328}
svg .grid line{stroke:#eaeef2}
svg .axis line{stroke:#57606a}
svg .axis .title{font-size:12px;fill:#57606a}
svg polyline.series{fill:none;stroke-width:1.5}
svg circle.pt{stroke-width:1.5}
svg circle.pt.hollow{fill:#fff}
)css";

// One axis: linear or log2. A log2 axis spans whole powers of two and maps values ≤ 0 to its minimum,
// labelled "0" when `zero_at_min` (sizes of 0 bytes).
struct Axis {
  double min = 0, max = 1;
  bool log2 = false;
  bool bytes = false;        // tick labels as sizes (8, 1K, 64M)
  bool zero_at_min = false;  // log2 only: the minimum tick reads "0" (values ≤ 0 are drawn there)
  std::string title;         // e.g. "message size (bytes, log2)"
};

// A log2 axis covering [lo, hi] (positive), widened to powers of two; `has_zero` adds one step below lo for
// values of 0.
Axis log2_axis(double lo, double hi, bool has_zero, bool bytes, std::string title);
// A linear axis from 0 (or `lo` when negative) to a "nice" value ≥ hi.
Axis linear_axis(double lo, double hi, std::string title);

// The extent of a plot's points with x on a log2 axis: the smallest and largest positive x, whether any x
// is 0 (or less), and the largest y (from `ymax` as given, e.g. a reference line's).
struct PlotExtent {
  double lo = std::numeric_limits<double>::infinity(), hi = 0, ymax = 0;
  bool has_zero = false;
  void add(double x, double y) {
    if (x > 0) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    } else {
      has_zero = true;
    }
    ymax = std::max(ymax, y);
  }
  // The x axis (log2_axis: without a positive x it starts at 1).
  Axis x_axis(bool bytes, std::string title) const {
    return log2_axis(lo, hi, has_zero, bytes, std::move(title));
  }
};

// An SVG chart with axes, grid and tick labels; marks are added in data coordinates.
class Plot {
 public:
  Plot(Axis x, Axis y, std::string aria_label, int width = 640, int height = 280);
  double x_px(double x) const;
  double y_px(double y) const;
  // A polyline through the points (data coordinates), class `css_class` (series colour). Draws nothing
  // for fewer than 2 points.
  void line(const std::vector<std::pair<double, double>>& pts, std::string_view css_class);
  // One point: a <circle> of class "pt <css_class>" with `data_attrs` (already formatted, e.g. from
  // num_attr) and a <title> tooltip (escaped here).
  void point(double x, double y, std::string_view css_class, std::string_view data_attrs,
             std::string_view tooltip, bool hollow = false);
  // A bar from x0 to x1 (data coordinates) and from 0 to y: a <rect> of class "bar <css_class>".
  void bar(double x0, double x1, double y, std::string_view css_class, std::string_view data_attrs,
           std::string_view tooltip);
  // A dashed horizontal line across the plot at y with a label at its right end.
  void hline(double y, std::string_view css_class, std::string_view label, std::string_view data_attrs);
  // A dashed vertical line at x with a label at its top.
  void vline(double x, std::string_view css_class, std::string_view label, std::string_view data_attrs);
  // A legend entry (series colour class and its label), drawn top-left inside the plot.
  void legend(std::string_view css_class, std::string_view label);
  // The <svg> element.
  std::string svg() const;

 private:
  Axis x_, y_;
  std::string aria_;
  int w_, h_;
  std::string marks_;
  int vlines_ = 0;  // staggers vertical-line labels
  std::vector<std::pair<std::string, std::string>> legend_;
};

// A <table> from header cells and rows of already-escaped cells.
std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                  std::string_view css_class = "");

// ---- pairs heatmaps (html_pairs.cpp draws them, html_pairs_raster.cpp the large ones) ----

/// Up to this many hosts a pairs matrix is one SVG cell per link (with its tooltip and data attributes);
/// above it, one raster image per matrix (2048 hosts are 4 million links).
inline constexpr std::size_t kSvgHeatmapMaxHosts = 64;
/// The largest side of a raster heatmap in pixels: above it a pixel stands for a block of hosts.
inline constexpr std::size_t kRasterMaxSide = 512;
/// Rows of the per-link tables of a large matrix: the worst links of each matrix, and the outliers.
inline constexpr std::size_t kWorstLinksShown = 20;
inline constexpr std::size_t kOutlierRowsShown = 100;
/// Per-pair and straggler tables of the latency section: above this many rows, the worst kWorstLinksShown.
inline constexpr std::size_t kPerPairRowsShown = 64;

/// The colour scale of every pairs heatmap: goodness = value / median (bandwidth) or median / value
/// (latency); green at the median or better, through yellow (0.75x) to red at half of it or worse.
inline constexpr double kWorstGoodness = 0.5;
/// Position of a goodness on the scale, 0 (worst) to 1 (the median or better).
double heat_position(double goodness);
/// The CSS colour of a goodness: hsl(120·position, 70 %, 78 − 8·position %).
std::string heat_fill(double goodness);

/// What a heatmap draws: one matrix of a rail and how to read it.
struct HeatmapSpec {
  std::string_view kind;   ///< "bw" or "lat" (outliers' kind)
  std::string_view title;  ///< figure caption
  std::string_view unit;   ///< "GB/s", "us"
  std::string_view key;    ///< the matrix's key in the rail ("bw_gbps", "lat_p50_us")
  bool higher_better = true;
  std::string id;  ///< element id ("pairs-bw", "pairs-lat-1")
};

/// The legend under a heatmap: the scale as a gradient with its anchors in the matrix's unit.
std::string heat_legend(double median, const HeatmapSpec& spec);
/// A matrix above kSvgHeatmapMaxHosts hosts: one inline PNG (palette, a pixel per link or per block of
/// hosts coloured by its worst link), the legend and a caption, then the kWorstLinksShown worst links.
std::string raster_heatmap(const json& matrix, const HeatmapSpec& spec, const std::vector<std::string>& hosts,
                           double median);

// ---- sections (one file each) ----

std::string render_summary(const json& report);        // html_summary.cpp: score, transport, gate, run status
std::string render_findings(const json& report);       // html_summary.cpp
std::string render_gate(const json& report);           // html_summary.cpp
std::string render_sweeps(const json& report);         // html_sweeps.cpp
std::string render_latency(const json& report);        // html_latency.cpp
std::string render_pairs(const json& report);          // html_pairs.cpp
std::string render_incast(const json& report);         // html_incast.cpp
std::string render_overlap(const json& report);        // html_overlap.cpp
std::string render_step(const json& report);           // html_step.cpp
std::string render_nics(const json& report);           // html_nics.cpp
std::string render_scaling(const json& report);        // html_scaling.cpp
std::string render_host_counters(const json& report);  // html_counters.cpp
std::string render_environment(const json& report);    // html_environment.cpp

}  // namespace fabcheck::report::html
