// HTML report: reading the report without throwing, escaping, number and size formatting, tables, section
// frames with their skipped/failed notices.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>

#include "fabcheck/core/size.hpp"
#include "fabcheck/report/html.hpp"
#include "html_internal.hpp"

namespace fabcheck::report {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) break;
        out += c;
    }
  }
  return out;
}

namespace html {

const json* get(const json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return nullptr;
  return &*it;
}

const json* get_path(const json& j, std::initializer_list<std::string_view> keys) {
  const json* cur = &j;
  for (auto k : keys) {
    cur = get(*cur, k);
    if (!cur) return nullptr;
  }
  return cur;
}

bool as_number(const json* j, double& out) {
  if (!j || !j->is_number()) return false;
  out = j->get<double>();
  return std::isfinite(out);
}

double num_or(const json* j, double fallback) {
  double v = 0;
  return as_number(j, v) ? v : fallback;
}

bool flag_or(const json* j, bool fallback) {
  return j && j->is_boolean() ? j->get<bool>() : fallback;
}

std::string as_string(const json* j, std::string_view fallback) {
  if (!j || !j->is_string()) return std::string(fallback);
  return j->get<std::string>();
}

const json& as_array(const json* j) {
  static const json empty = json::array();
  return j && j->is_array() ? *j : empty;
}

std::string fmt_number(double v, int digits) {
  if (!std::isfinite(v)) return "—";
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e7 || a < 1e-3) return fmt::format("{:.{}e}", v, std::max(digits - 1, 0));
  // Digits after the point so that `digits` significant digits show; trailing zeros trimmed.
  const int int_digits = a >= 1 ? static_cast<int>(std::floor(std::log10(a))) + 1 : 0;
  int decimals = std::max(digits - int_digits, 0);
  if (a < 1) decimals = digits - 1 - static_cast<int>(std::floor(std::log10(a)));
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string number(const json* j, int digits) {
  double v = 0;
  return as_number(j, v) ? fmt_number(v, digits) : "—";
}

std::string p50_p99(const json* summary) {
  if (!summary || !summary->is_object()) return "—";
  return number(get(*summary, "p50")) + " / " + number(get(*summary, "p99"));
}

std::string text(const json* j) {
  if (!j) return "—";
  if (j->is_string()) return html_escape(j->get<std::string>());
  if (j->is_boolean()) return j->get<bool>() ? "yes" : "no";
  if (j->is_number_integer()) return fmt::format("{}", j->get<std::int64_t>());
  if (j->is_number()) return number(j);
  return html_escape(j->dump());
}

std::string size_text(double bytes) {
  if (!std::isfinite(bytes) || bytes < 0) return "—";
  if (bytes == std::floor(bytes) && bytes < 9.2e18) {
    return html_escape(core::format_size(static_cast<std::uint64_t>(bytes)));
  }
  return fmt_number(bytes);
}

std::string attr(std::string_view name, std::string_view value) {
  return fmt::format(" {}=\"{}\"", name, html_escape(value));
}

std::string num_attr(std::string_view name, double v) {
  if (!std::isfinite(v)) return fmt::format(" {}=\"null\"", name);
  return fmt::format(" {}=\"{}\"", name, v);
}

std::string num_attr(std::string_view name, const json* j) {
  double v = 0;
  if (!as_number(j, v)) return fmt::format(" {}=\"null\"", name);
  if (j->is_number_integer()) return fmt::format(" {}=\"{}\"", name, j->get<std::int64_t>());
  return num_attr(name, v);
}

std::string_view status_class(std::string_view s) {
  if (s == "ok" || s == "pass" || s == "passed" || s == "rdma" || s == "complete") return "good";
  if (s == "info") return "info";
  if (s == "fail" || s == "failed" || s == "socket_fallback" || s == "error") return "bad";
  if (s.empty()) return "muted";
  return "warn";
}

std::string notice(std::string_view css_class, std::string_view message) {
  return fmt::format("<p class=\"notice {}\">{}</p>\n", css_class, html_escape(message));
}

std::string section_notices(const json& report, std::initializer_list<std::string_view> report_sections) {
  std::string out;
  const json* sections = get_path(report, {"run", "sections"});
  for (auto name : report_sections) {
    const json* s = sections ? get(*sections, name) : nullptr;
    if (!s) continue;
    const std::string status = as_string(get(*s, "status"));
    if (status != "skipped" && status != "failed") continue;
    std::string reason = as_string(get(*s, "reason"), "no reason recorded");
    out += fmt::format("<p class=\"notice {}\" data-section=\"{}\" data-status=\"{}\"><b>{} {}:</b> {}</p>\n",
                       status, html_escape(name), html_escape(status), html_escape(name), html_escape(status),
                       html_escape(reason));
  }
  return out;
}

std::string section_open(const json& report, std::string_view id, std::string_view title,
                         std::initializer_list<std::string_view> report_sections) {
  return fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n", id, html_escape(title)) +
         section_notices(report, report_sections);
}

std::string section_close() {
  return "</section>\n";
}

std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                  std::string_view css_class) {
  std::string out = css_class.empty() ? "<table>" : fmt::format("<table class=\"{}\">", css_class);
  out += "<thead><tr>";
  for (const auto& h : header) out += "<th>" + h + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& r : rows) {
    out += "<tr>";
    for (const auto& c : r) out += "<td>" + c + "</td>";
    out += "</tr>\n";
  }
  out += "</tbody></table>\n";
  return out;
}

}  // namespace html
}  // namespace fabcheck::report
