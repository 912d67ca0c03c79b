// HTML report: the page skeleton (head, inline CSS, title block) and the section order.
#include <fmt/format.h>

#include "fabcheck/report/document.hpp"
#include "fabcheck/report/html.hpp"
#include "html_internal.hpp"

namespace fabcheck::report {
namespace {

// Inline style sheet: the page needs no other file. Series colours s0..s5 are shared by every plot.
constexpr std::string_view kCss = R"css(
:root{--good:#1a7f37;--bad:#cf222e;--warn:#9a6700;--info:#0969da;--muted:#6e7781;--line:#d0d7de}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1f2328;
 margin:0 auto;max-width:1120px;padding:16px 24px 48px}
header h1{font-size:22px;margin:0}
header p{margin:2px 0;color:var(--muted)}
h2{font-size:18px;border-bottom:1px solid var(--line);padding-bottom:4px;margin:32px 0 8px}
h3{font-size:15px;margin:18px 0 4px}
nav{margin:8px 0 0;font-size:13px}
nav a{margin-right:12px;color:var(--info);text-decoration:none}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:12px;margin-top:12px}
.card{border:1px solid var(--line);border-top:6px solid var(--muted);border-radius:8px;padding:8px 14px 10px}
.card h3{margin:0;font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
.card .big{font-size:20px;font-weight:650;line-height:1.25;overflow-wrap:anywhere}
.card .sub{font-size:12px;color:var(--muted);overflow-wrap:anywhere}
.card.good{border-top-color:var(--good)}.card.good .big{color:var(--good)}
.card.bad{border-top-color:var(--bad)}.card.bad .big{color:var(--bad)}
.card.warn{border-top-color:var(--warn)}.card.warn .big{color:var(--warn)}
.badge{display:inline-block;padding:0 7px;border-radius:10px;font-size:12px;font-weight:600;color:#fff;
 background:var(--muted);white-space:nowrap}
.badge.good{background:var(--good)}.badge.bad{background:var(--bad)}.badge.warn{background:var(--warn)}
.badge.info{background:var(--info)}
table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
tr.fail td{background:#ffebe9}
.notice{padding:6px 10px;margin:6px 0;border-left:4px solid var(--muted);background:#f6f8fa}
.notice.skipped{border-color:var(--warn)}.notice.failed{border-color:var(--bad);background:#ffebe9}
.notice.note{border-color:var(--info)}
.muted{color:var(--muted)}
.figs{display:flex;flex-wrap:wrap;gap:16px}
figure{margin:6px 0;max-width:100%}
figcaption{font-size:13px;font-weight:600;margin-bottom:2px}
svg.heat{max-width:100%;height:auto;background:#fff}
svg .ref line{stroke-width:1.5;stroke-dasharray:6 4}
svg .ref.line-rate line{stroke:var(--warn)}
svg .ref.line-rate text{fill:var(--warn);stroke:none}
svg .ref text{stroke:none}
.s0{stroke:#0969da;fill:#0969da}.s1{stroke:#bc4c00;fill:#bc4c00}.s2{stroke:#1a7f37;fill:#1a7f37}
.s3{stroke:#8250df;fill:#8250df}.s4{stroke:#cf222e;fill:#cf222e}.s5{stroke:#6e7781;fill:#6e7781}
svg rect.bar{stroke:none}
svg.heat rect.cell{stroke:#fff;stroke-width:1}
svg.heat rect.cell.outlier{stroke:var(--bad);stroke-width:3}
svg.heat rect.cell.self{fill:#f6f8fa}
svg.heat text.mark{font-weight:700;fill:var(--bad)}
img.heat-raster{display:block;max-width:100%;height:auto;image-rendering:pixelated;border:1px solid var(--line)}
footer{margin-top:40px;font-size:12px;color:var(--muted)}
@media print{nav{display:none}section{break-inside:avoid-page}}
)css";

/// "launched by srun (Slurm job 42, step 0, nodes fab-h[1-4]) · PMI pmix · Open MPI 4.1.4": run.launcher.
std::string launcher_line(const nlohmann::json& l) {
  using namespace html;
  std::string what = "launched by " + text(get(l, "kind"));
  std::vector<std::string> slurm;
  if (const auto* j = get(l, "slurm_job_id"); j && j->is_string()) slurm.push_back("Slurm job " + text(j));
  if (const auto* s = get(l, "slurm_step_id"); s && s->is_string()) slurm.push_back("step " + text(s));
  if (const auto* n = get(l, "nodelist"); n && n->is_string()) slurm.push_back("nodes " + text(n));
  if (const auto* r = get(l, "mpijob_role"); r && r->is_string()) slurm.push_back("MPIJob role " + text(r));
  if (!slurm.empty()) {
    what += " (";
    for (std::size_t i = 0; i < slurm.size(); ++i) what += (i ? ", " : "") + slurm[i];
    what += ")";
  }
  if (const auto* p = get(l, "pmi"); p && p->is_string()) what += " · PMI " + text(p);
  if (const auto* m = get(l, "mpi_implementation"); m && m->is_string()) {
    what += " · " + text(m);
    if (const auto* v = get(l, "mpi_version"); v && v->is_string()) what += " " + text(v);
  }
  return "<p class=\"launcher\">" + what + "</p>\n";
}

std::string title_block(const nlohmann::json& r) {
  using namespace html;
  std::string out = "<header>\n<h1>fabcheck report</h1>\n";
  std::string hosts;
  const auto& hl = as_array(get_path(r, {"topology", "hosts"}));
  double nranks = 0;
  if (as_number(get_path(r, {"topology", "nranks"}), nranks)) {
    hosts = fmt::format("{} rank(s) on {} host(s)", fmt_number(nranks), hl.size());
  }
  std::vector<std::string> parts;
  if (!hosts.empty()) parts.push_back(hosts);
  if (const auto* s = get_path(r, {"run", "started"})) parts.push_back("started " + text(s));
  if (const auto* d = get_path(r, {"run", "duration_s"})) parts.push_back("took " + number(d, 3) + " s");
  if (const auto* c = get_path(r, {"run", "config", "name"})) parts.push_back("config " + text(c));
  if (const auto* v = get_path(r, {"tool", "version"})) parts.push_back("fabcheck " + text(v));
  std::string line;
  for (const auto& p : parts) line += (line.empty() ? "" : " · ") + p;
  if (!line.empty()) out += "<p>" + line + "</p>\n";
  if (const auto* l = get_path(r, {"run", "launcher"}); l && l->is_object()) out += launcher_line(*l);
  if (const auto* a = get_path(r, {"run", "argv"}); a && a->is_array()) {
    std::string cmd;
    for (const auto& x : *a) cmd += (cmd.empty() ? "" : " ") + as_string(&x);
    out += "<p><code>" + html_escape(cmd) + "</code></p>\n";
  }
  out += "<nav>";
  for (auto id : kHtmlSectionIds) out += fmt::format("<a href=\"#{}\">{}</a>", id, id);
  out += "</nav>\n</header>\n";
  return out;
}

}  // namespace

std::string render_html(const nlohmann::json& report) {
  using namespace html;
  static const nlohmann::json empty = nlohmann::json::object();
  const nlohmann::json& r = report.is_object() ? report : empty;
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  // No script, no external resource, no form that could post anywhere (default-src does not cover
  // form-action): a policy that forbids them makes that explicit to the browser.
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "img-src data:; form-action 'none'; base-uri 'none'\">\n";
  std::string host_hint;
  const auto& hl = as_array(get_path(r, {"topology", "hosts"}));
  if (!hl.empty()) host_hint = fmt::format(" — {} host(s)", hl.size());
  out += fmt::format("<title>fabcheck report{}</title>\n<style>{}{}</style>\n</head>\n<body>\n", host_hint,
                     kCss, kPlotCss);
  out += title_block(r);
  out += render_summary(r);
  out += render_findings(r);
  out += render_gate(r);
  out += render_sweeps(r);
  out += render_latency(r);
  out += render_pairs(r);
  out += render_incast(r);
  out += render_overlap(r);
  out += render_nics(r);
  out += render_step(r);
  out += render_scaling(r);
  out += render_host_counters(r);
  out += render_environment(r);
  out += fmt::format(
      "<footer>schema_version {} · rendered by fabcheck · one self-contained file · definitions (busBw, "
      "percentiles, outliers, verdicts, score): docs/DESIGN.md in the fabcheck repository</footer>\n",
      text(get(r, "schema_version")));
  out += "</body>\n</html>\n";
  return out;
}

Sink html_sink(std::string flag, std::string path) {
  return {std::move(flag), std::move(path), render_html};
}

}  // namespace fabcheck::report
