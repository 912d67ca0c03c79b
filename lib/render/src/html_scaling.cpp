// HTML report: scaling — busBw of the reference collective per measured host group and its ring-model
// projection, the reference workload's efficiency now and projected, the workload table, the α–β fits and
// the bucket advice.
#include <fmt/format.h>

#include <algorithm>

#include "fabcheck/report/html.hpp"
#include "html_internal.hpp"

namespace fabcheck::report::html {
namespace {

struct XY {
  double x, y;
  const json* e;
};

std::string busbw_plot(const json& sc) {
  const std::string coll = as_string(get(sc, "collective"), "allreduce");
  std::vector<XY> measured, projected;
  PlotExtent rg;
  for (const auto& g : as_array(get(sc, "groups"))) {
    double h = 0, bw = 0;
    if (as_number(get(g, "hosts"), h) && h > 0 && as_number(get(g, "busbw_gbps"), bw)) {
      measured.push_back({h, bw, &g});
      rg.add(h, bw);
    }
  }
  for (const auto& p : as_array(get(sc, "projection"))) {
    double h = 0;
    if (!as_number(get(p, "hosts"), h) || h <= 0) continue;
    for (const auto& c : as_array(get(p, "collectives"))) {
      double bw = 0;
      if (as_string(get(c, "collective")) == coll && as_number(get(c, "busbw_gbps"), bw)) {
        projected.push_back({h, bw, &c});
        rg.add(h, bw);
      }
    }
  }
  std::string out = fmt::format(
      "<figure class=\"scaling-plot\" id=\"scaling-busbw\"{}>\n<figcaption>{} busBw at {} vs hosts: measured "
      "groups "
      "(filled) and ring-model projection (hollow)</figcaption>\n",
      attr("data-collective", coll), html_escape(coll), size_text(num_or(get(sc, "size_bytes"), -1)));
  if (measured.empty() && projected.empty())
    return out + notice("note", "no group measured or projected") + "</figure>\n";
  Plot p(rg.x_axis(false, "hosts (log2)"), linear_axis(0, rg.ymax, "busBw (GB/s)"), coll + " busBw vs hosts",
         520, 260);
  std::vector<std::pair<double, double>> line;
  for (const auto& m : measured) {
    line.emplace_back(m.x, m.y);
    p.point(m.x, m.y, "s0",
            attr("data-kind", "measured") + num_attr("data-hosts", m.x) + num_attr("data-busbw-gbps", m.y) +
                num_attr("data-vs-2host", get(*m.e, "vs_2host")),
            fmt::format("measured, {} hosts: busBw {} GB/s, {}× the 2-host value", fmt_number(m.x),
                        fmt_number(m.y, 4), number(get(*m.e, "vs_2host"), 3)));
  }
  p.line(line, "s0");
  line.clear();
  for (const auto& m : projected) {
    line.emplace_back(m.x, m.y);
    p.point(
        m.x, m.y, "s1",
        attr("data-kind", "projected") + num_attr("data-hosts", m.x) + num_attr("data-busbw-gbps", m.y),
        fmt::format("projected (ring model), {} hosts: busBw {} GB/s", fmt_number(m.x), fmt_number(m.y, 4)),
        true);
  }
  p.line(line, "s1");
  if (!measured.empty()) p.legend("s0", "measured groups");
  if (!projected.empty()) p.legend("s1", "projection (ring model, upper bound on latency terms)");
  return out + p.svg() + "</figure>\n";
}

std::string efficiency_plot(const json& r, const json& sc) {
  std::vector<XY> now, projected;
  PlotExtent rg{.ymax = 1};
  std::string workload;
  const json* score = get(r, "score");
  double h = 0, eff = 0;
  if (score && as_number(get(*score, "hosts"), h) && h > 0 &&
      as_number(get(*score, "scaling_efficiency"), eff)) {
    now.push_back({h, eff, score});
    rg.add(h, eff);
    workload = as_string(get(*score, "workload"));
  }
  for (const auto& pj : as_array(get(sc, "projection"))) {
    double hh = 0;
    if (!as_number(get(pj, "hosts"), hh) || hh <= 0) continue;
    for (const auto& w : as_array(get(pj, "workloads"))) {
      const json* ref = get(w, "reference");
      double e = 0;
      if (ref && ref->is_boolean() && ref->get<bool>() && as_number(get(w, "efficiency"), e)) {
        projected.push_back({hh, e, &w});
        rg.add(hh, e);
        if (workload.empty()) workload = as_string(get(w, "workload"));
      }
    }
  }
  std::string out = fmt::format(
      "<figure class=\"scaling-plot\" id=\"scaling-efficiency\"{}>\n<figcaption>scaling efficiency of {} vs "
      "hosts: "
      "this run (filled) and projected (hollow)</figcaption>\n",
      attr("data-workload", workload), html_escape(workload.empty() ? "the reference workload" : workload));
  if (now.empty() && projected.empty()) return out + notice("note", "no efficiency to plot") + "</figure>\n";
  Plot p(rg.x_axis(false, "hosts (log2)"), linear_axis(0, rg.ymax, "efficiency (0-1)"),
         "scaling efficiency vs hosts", 520, 260);
  p.hline(1.0, "s5", "ideal", "");
  std::vector<std::pair<double, double>> line;
  for (const auto& m : now) {
    line.emplace_back(m.x, m.y);
    p.point(m.x, m.y, "s2",
            attr("data-kind", "measured") + num_attr("data-hosts", m.x) + num_attr("data-efficiency", m.y),
            fmt::format("this run, {} hosts: efficiency {}", fmt_number(m.x), fmt_number(m.y, 3)));
  }
  for (const auto& m : projected) {
    line.emplace_back(m.x, m.y);
    p.point(m.x, m.y, "s2",
            attr("data-kind", "projected") + num_attr("data-hosts", m.x) + num_attr("data-efficiency", m.y),
            fmt::format("projected, {} hosts: efficiency {}", fmt_number(m.x), fmt_number(m.y, 3)), true);
  }
  std::sort(line.begin(), line.end());
  p.line(line, "s2");
  return out + p.svg() + "</figure>\n";
}

std::string tables(const json& sc) {
  std::string out;
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : as_array(get(sc, "groups"))) {
    rows.push_back({text(get(g, "hosts")), text(get(g, "nranks")),
                    size_text(num_or(get(g, "size_bytes"), -1)), number(get(g, "time_us")),
                    number(get(g, "busbw_gbps")), number(get(g, "vs_2host"), 3)});
  }
  if (!rows.empty()) {
    out += "<h3>Measured groups</h3>\n" + table({"hosts", "ranks", "size", "time us", "busBw GB/s",
                                                 fmt::format("vs {}", text(get(sc, "baseline")))},
                                                rows, "groups");
  }
  rows.clear();
  for (const auto& w : as_array(get(sc, "workloads"))) {
    const json* ref = get(w, "reference");
    const bool is_ref = ref && ref->is_boolean() && ref->get<bool>();
    rows.push_back({text(get(w, "workload")) + (is_ref ? " <span class=\"badge info\">score</span>" : ""),
                    text(get(w, "parallelism")), number(get(w, "efficiency"), 3),
                    number(get(w, "t_compute_s"), 3), number(get(w, "t_comm_s"), 3),
                    number(get(w, "exposed_s"), 3), number(get(w, "overlap"), 3), text(get(w, "reason"))});
  }
  if (!rows.empty()) {
    out += "<h3>Workload projection at this run's size</h3>\n" +
           table({"workload", "parallelism", "efficiency", "t_compute s", "t_comm s", "exposed s", "overlap",
                  "note"},
                 rows, "workloads");
  }
  rows.clear();
  for (const auto& pj : as_array(get(sc, "projection"))) {
    std::string bws, effs;
    for (const auto& c : as_array(get(pj, "collectives"))) {
      bws += fmt::format("{}{} {}", bws.empty() ? "" : "; ", text(get(c, "collective")),
                         number(get(c, "busbw_gbps")));
    }
    for (const auto& w : as_array(get(pj, "workloads"))) {
      effs += fmt::format("{}{} {}", effs.empty() ? "" : "; ", text(get(w, "workload")),
                          number(get(w, "efficiency"), 3));
    }
    rows.push_back(
        {text(get(pj, "hosts_factor")) + "×", text(get(pj, "hosts")), text(get(pj, "nranks")), bws, effs});
  }
  if (!rows.empty()) {
    out += "<h3>Projection (ring model, upper bound on latency terms)</h3>\n" +
           table({"factor", "hosts", "ranks", "busBw GB/s", "efficiency"}, rows, "projection");
  }
  rows.clear();
  if (const json* m = get(sc, "model"); m && m->is_object()) {
    for (const auto& [name, f] : m->items()) {
      rows.push_back({html_escape(name), text(get(f, "nranks")), number(get(f, "alpha_us")),
                      number(get(f, "beta_gbps")), number(get(f, "rms_rel_residual"), 3),
                      text(get(f, "reason"))});
    }
  }
  if (!rows.empty()) {
    out += "<h3>α–β fit per collective</h3>\n" +
           table({"collective", "ranks", "α us", "β GB/s", "rms rel. residual", "note"}, rows, "model");
  }
  if (const json* b = get(sc, "bucket_advice")) {
    double adv = 0;
    if (as_number(get(*b, "advised_bucket_bytes"), adv)) {
      out += fmt::format(
          "<p>DDP bucket advice: {} reaches {} of the plateau busBw ({} GB/s); PyTorch's default {} gets {} "
          "GB/s.</p>\n",
          size_text(adv), number(get(*b, "fraction"), 2), number(get(*b, "plateau_busbw_gbps")),
          size_text(num_or(get(*b, "default_bucket_bytes"), -1)), number(get(*b, "default_busbw_gbps")));
    } else if (const json* why = get(*b, "reason")) {
      out += notice("note", "DDP bucket advice: " + as_string(why));
    }
  }
  return out;
}

}  // namespace

std::string render_scaling(const json& r) {
  std::string out = section_open(r, "scaling", "Scaling: measured groups and projection", {"scaling"});
  const json* sc = get(r, "scaling");
  if (!sc || !sc->is_object())
    return out + notice("note", "no scaling analysis in this report") + section_close();
  if (const json* why = get(*sc, "groups_reason")) out += notice("note", "groups: " + as_string(why));
  if (const json* in = get(*sc, "intra_node_only"); in && in->is_boolean() && in->get<bool>()) {
    out += notice("note", "intra-node only: the groups are local ranks of one host, no fabric was crossed");
  }
  out += "<div class=\"figs\">\n" + busbw_plot(*sc) + efficiency_plot(r, *sc) + "</div>\n";
  out += tables(*sc);
  return out + section_close();
}

}  // namespace fabcheck::report::html
