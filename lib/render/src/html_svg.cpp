// HTML report: the SVG plot helper (axes, grid, ticks; log2 or linear; points, bars, lines, a reference
// line).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "fabcheck/report/html.hpp"
#include "html_internal.hpp"

namespace fabcheck::report::html {
namespace {

constexpr double kLeft = 64, kRight = 16, kTop = 14, kBottom = 42;  // margins in px

std::string px(double v) {
  return fmt::format("{:.1f}", v);
}

// Where `v` lies along the axis, 0 (its minimum) to 1 (its maximum), clamped; on a log2 axis values at or
// below the minimum (sizes of 0) sit at 0.
double axis_fraction(const Axis& a, double v) {
  double f = 0;
  if (a.log2) {
    f = v <= a.min ? 0 : (std::log2(v) - std::log2(a.min)) / (std::log2(a.max) - std::log2(a.min));
  } else {
    f = (v - a.min) / (a.max - a.min);
  }
  return std::clamp(f, 0.0, 1.0);
}

std::string tick_label(const Axis& a, double v) {
  if (a.log2 && a.zero_at_min && v <= a.min) return "0";
  return a.bytes ? size_text(v) : fmt_number(v, 3);
}

// Tick values: powers of two (thinned to at most ~9 labels) or multiples of a 1-2-5 step.
std::vector<double> ticks(const Axis& a) {
  std::vector<double> t;
  if (a.log2) {
    const int lo = static_cast<int>(std::lround(std::log2(a.min)));
    const int hi = static_cast<int>(std::lround(std::log2(a.max)));
    const int step = std::max(1, (hi - lo + 8) / 9);
    for (int e = lo; e <= hi; e += step) t.push_back(std::ldexp(1.0, e));
    return t;
  }
  const double span = a.max - a.min;
  double stepv = std::pow(10.0, std::floor(std::log10(span / 5)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (span / (stepv * m) <= 6) {
      stepv *= m;
      break;
    }
  }
  for (double v = std::ceil(a.min / stepv) * stepv; v <= a.max + stepv * 1e-9; v += stepv) {
    t.push_back(std::fabs(v) < stepv * 1e-9 ? 0.0 : v);
  }
  return t;
}

}  // namespace

Axis log2_axis(double lo, double hi, bool has_zero, bool bytes, std::string title) {
  Axis a;
  a.log2 = true;
  a.bytes = bytes;
  if (!(lo > 0) || !std::isfinite(lo)) lo = 1;
  if (!(hi >= lo) || !std::isfinite(hi)) hi = lo;
  a.min = std::ldexp(1.0, static_cast<int>(std::floor(std::log2(lo))));
  a.max = std::ldexp(1.0, static_cast<int>(std::ceil(std::log2(hi))));
  if (a.max <= a.min) a.max = a.min * 2;
  if (has_zero) {
    a.min /= 2;
    a.zero_at_min = true;
  }
  a.title = std::move(title);
  return a;
}

Axis linear_axis(double lo, double hi, std::string title) {
  Axis a;
  a.min = std::min(0.0, std::isfinite(lo) ? lo : 0.0);
  if (!std::isfinite(hi) || hi <= a.min) hi = a.min + 1;
  const double span = hi - a.min;
  const double mag = std::pow(10.0, std::floor(std::log10(span)));
  double nice = mag;
  for (double m : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0}) {
    if (m * mag >= span * 1.05) {
      nice = m * mag;
      break;
    }
  }
  a.max = a.min + nice;
  a.title = std::move(title);
  return a;
}

Plot::Plot(Axis x, Axis y, std::string aria_label, int width, int height)
    : x_(std::move(x)), y_(std::move(y)), aria_(std::move(aria_label)), w_(width), h_(height) {}

double Plot::x_px(double x) const {
  return kLeft + axis_fraction(x_, x) * (w_ - kLeft - kRight);
}

double Plot::y_px(double y) const {
  return h_ - kBottom - axis_fraction(y_, y) * (h_ - kTop - kBottom);
}

void Plot::line(const std::vector<std::pair<double, double>>& pts, std::string_view css_class) {
  if (pts.size() < 2) return;
  std::string p;
  for (const auto& [x, y] : pts) p += fmt::format("{},{} ", px(x_px(x)), px(y_px(y)));
  p.pop_back();
  marks_ += fmt::format("<polyline class=\"series {}\" points=\"{}\"/>\n", css_class, p);
}

void Plot::point(double x, double y, std::string_view css_class, std::string_view data_attrs,
                 std::string_view tooltip, bool hollow) {
  marks_ += fmt::format(
      "<circle class=\"pt {}{}\" cx=\"{}\" cy=\"{}\" r=\"3.5\"{}><title>{}</title></circle>\n", css_class,
      hollow ? " hollow" : "", px(x_px(x)), px(y_px(y)), data_attrs, html_escape(tooltip));
}

void Plot::bar(double x0, double x1, double y, std::string_view css_class, std::string_view data_attrs,
               std::string_view tooltip) {
  const double a = x_px(x0), b = x_px(x1), top = y_px(y), base = y_px(y_.min);
  marks_ += fmt::format(
      "<rect class=\"bar {}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{}><title>{}</title></rect>\n",
      css_class, px(a), px(top), px(std::max(b - a - 0.5, 1.0)), px(std::max(base - top, 0.5)), data_attrs,
      html_escape(tooltip));
}

void Plot::hline(double y, std::string_view css_class, std::string_view label, std::string_view data_attrs) {
  const double yy = y_px(y);
  marks_ += fmt::format("<g class=\"ref {}\"{}><line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", css_class,
                        data_attrs, px(kLeft), px(w_ - kRight), px(yy), px(yy));
  marks_ += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text></g>\n", px(w_ - kRight - 2),
                        px(yy - 4), html_escape(label));
}

void Plot::vline(double x, std::string_view css_class, std::string_view label, std::string_view data_attrs) {
  const double xx = x_px(x);
  const bool left_half = xx < (kLeft + w_ - kRight) / 2;  // label on the side with room
  marks_ += fmt::format("<g class=\"ref {}\"{}><line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", css_class,
                        data_attrs, px(xx), px(xx), px(h_ - kBottom), px(kTop));
  marks_ +=
      fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\">{}</text></g>\n",
                  px(left_half ? xx + 3 : xx - 3), px(kTop + 10 + 12.0 * static_cast<double>(vlines_++ % 3)),
                  left_half ? "start" : "end", html_escape(label));
}

void Plot::legend(std::string_view css_class, std::string_view label) {
  legend_.emplace_back(std::string(css_class), std::string(label));
}

std::string Plot::svg() const {
  std::string s = fmt::format(
      "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" "
      "height=\"{}\" "
      "role=\"img\" aria-label=\"{}\">\n",
      w_, h_, w_, h_, html_escape(aria_));
  const double x0 = kLeft, x1 = w_ - kRight, y0 = h_ - kBottom, y1 = kTop;
  s += "<g class=\"grid\">";
  for (double t : ticks(y_)) {
    const double yy = y_px(t);
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", px(x0), px(x1), px(yy), px(yy));
  }
  for (double t : ticks(x_)) {
    const double xx = x_px(t);
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", px(xx), px(xx), px(y0), px(y1));
  }
  s += "</g>\n<g class=\"axis\">";
  s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", px(x0), px(x1), px(y0), px(y0));
  s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", px(x0), px(x0), px(y0), px(y1));
  for (double t : ticks(y_)) {
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", px(x0 - 5), px(y_px(t) + 4),
                     tick_label(y_, t));
  }
  for (double t : ticks(x_)) {
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", px(x_px(t)), px(y0 + 15),
                     tick_label(x_, t));
  }
  s += fmt::format("<text class=\"title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                   px((x0 + x1) / 2), px(h_ - 6.0), html_escape(x_.title));
  s += fmt::format(
      "<text class=\"title\" transform=\"translate(14,{}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
      px((y0 + y1) / 2), html_escape(y_.title));
  s += "</g>\n";
  s += marks_;
  double ly = kTop + 12;
  for (const auto& [cls, label] : legend_) {
    s += fmt::format(
        "<g class=\"legend\"><rect class=\"key {}\" x=\"{}\" y=\"{}\" width=\"10\" height=\"10\"/>", cls,
        px(x0 + 10), px(ly - 9));
    s += fmt::format("<text x=\"{}\" y=\"{}\">{}</text></g>\n", px(x0 + 26), px(ly), html_escape(label));
    ly += 15;
  }
  s += "</svg>\n";
  return s;
}

}  // namespace fabcheck::report::html
