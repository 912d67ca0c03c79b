#include "fabcheck/report/latency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>

#include "fabcheck/core/size.hpp"
#include "fabcheck/core/stats.hpp"

namespace fabcheck::report {

namespace {

using nlohmann::json;

json num_or_null(bool have, double v) {
  return have ? json(v) : json(nullptr);
}

json histogram_json(const core::Histogram& h) {
  json out = json::array();
  for (const auto& b : h.buckets()) out.push_back({b.lower_ns, b.upper_ns, b.count});
  return out;
}

json source_json(const model::LatencySource& s, bool pair) {
  json j = json::object();
  if (pair) {
    j["pair"] = s.label;
    j["ranks"] = s.ranks;
    j["hosts"] = s.hosts;
  } else {
    j["rank"] = s.ranks.empty() ? json(nullptr) : json(s.ranks.front());
    j["host"] = s.hosts.empty() || s.hosts.front().empty() ? json(nullptr) : json(s.hosts.front());
  }
  j["count"] = s.count;
  j["samples"] = s.samples;
  j["share"] = s.share;
  return j;
}

std::string pair_name(const model::LatencyPair& p) {
  if (p.a_host != p.b_host) return fmt::format("{}-{}", p.a_host, p.b_host);
  return fmt::format("rank {}-rank {}", p.a_rank, p.b_rank);
}

/// [lower, upper) of the display bucket holding `ns` with `d` divisions per power of two (d ∈ {1, 2, 4}).
std::pair<std::uint64_t, std::uint64_t> display_bucket(std::uint64_t ns, unsigned d) {
  if (ns == 0) return {0, 1};
  const unsigned e = 63u - static_cast<unsigned>(std::countl_zero(ns));
  const std::uint64_t base = std::uint64_t{1} << e;
  if (ns < 32) return {base, base * 2};  // unit buckets below 32 ns are shown per power of two
  const std::uint64_t width = base / d;
  const std::uint64_t lo = base + (ns - base) / width * width;
  return {lo, lo + width};
}

std::string us_label(std::uint64_t ns) {
  const double us = static_cast<double>(ns) / 1000.0;
  if (us >= 1000) return fmt::format("{:.0f}", us);
  if (us >= 10) return fmt::format("{:.1f}", us);
  return fmt::format("{:.3f}", us);
}

std::string fmt_us(double us) {
  if (us >= 10000) return fmt::format("{:.0f}", us);
  if (us >= 100) return fmt::format("{:.1f}", us);
  return fmt::format("{:.2f}", us);
}

const model::LatencySection* first_section(const model::LatencyResult& r, const char* kind) {
  for (const auto& s : r.sections) {
    if (s.kind == kind) return &s;
  }
  return nullptr;
}

}  // namespace

nlohmann::json latency_section_json(const model::LatencySection& s) {
  const bool have = s.summary.samples > 0;
  const bool p2p = s.kind == "p2p";
  json j = json::object();
  j["kind"] = s.kind;
  j["pattern"] = s.pattern;
  j["size_bytes"] = s.size_bytes;
  if (p2p) {
    j["pin_cpus"] = s.pin_cpus;  // [initiator, responder] or [both]; [] = not pinned
    j["passes"] = s.passes;
  }
  if (!p2p) {
    j["dtype"] = "double";
    j["redop"] = "sum";
    j["count"] = s.size_bytes / 8;
  }
  j["samples"] = s.summary.samples;
  j["warmup"] = s.warmup;
  j["min_us"] = num_or_null(have, s.summary.min);
  j["p50_us"] = num_or_null(have, s.summary.p50);
  j["p90_us"] = num_or_null(have, s.summary.p90);
  j["p99_us"] = num_or_null(have, s.summary.p99);
  j["p999_us"] = num_or_null(have, s.summary.p999);
  j["max_us"] = num_or_null(have, s.summary.max);
  j["mean_us"] = num_or_null(have, s.summary.mean);
  j["stdev_us"] = num_or_null(have, s.summary.stdev);
  j["tail_ratio"] = num_or_null(have && s.summary.p50 > 0, s.summary.tail_ratio());
  if (!have) j["percentile_reason"] = "no samples";
  j["low_confidence"] = {{"p99", s.summary.low_confidence_p99}, {"p999", s.summary.low_confidence_p999}};
  j["percentile_source"] = "raw samples";
  j["histogram"] = histogram_json(s.histogram);
  if (p2p) {
    j["per_pair"] = json::array();
    for (const auto& p : s.per_pair) {
      const bool ph = p.summary.samples > 0;
      j["per_pair"].push_back(
          {{"pair", pair_name(p)},
           {"ranks", {p.a_rank, p.b_rank}},
           {"hosts", {p.a_host, p.b_host}},
           {"round", p.round},
           {"samples", p.summary.samples},
           {"p50_us", num_or_null(ph, p.summary.p50)},
           {"p90_us", num_or_null(ph, p.summary.p90)},
           {"p99_us", num_or_null(ph, p.summary.p99)},
           {"p999_us", num_or_null(ph, p.summary.p999)},
           {"max_us", num_or_null(ph, p.summary.max)},
           {"mean_us", num_or_null(ph, p.summary.mean)},
           {"low_confidence",
            {{"p99", p.summary.low_confidence_p99}, {"p999", p.summary.low_confidence_p999}}},
           {"capped", p.capped},
           {"histogram", histogram_json(p.histogram)}});
    }
  } else {
    j["per_pair"] = nullptr;
    j["per_pair_reason"] = "collective: one span per iteration over all ranks (see stragglers per rank)";
  }
  j["stragglers"] = json::array();
  for (const auto& st : s.stragglers) j["stragglers"].push_back(source_json(st, p2p));
  j["straggler_threshold_us"] = num_or_null(have, s.straggler_threshold_us);
  j["straggler_samples_above"] = s.straggler_above;
  j["straggler_rule"] = p2p ? "share of the samples above the global p99, per pair"
                            : "share of the iterations above the global p99 whose last-entering rank it was";
  json by = json::array();
  for (const auto& sp : s.spike_sources) by.push_back(source_json(sp, p2p));
  j["spikes"] = {{"factor", 10},
                 {"threshold_us", num_or_null(have, s.spike_threshold_us)},
                 {"count", s.spike_count},
                 {"by_source", by}};
  j["tail_cost"] = json::array();
  for (const auto& c : s.tail_cost) {
    j["tail_cost"].push_back({{"n", c.n},
                              {"expected_us", c.expected},
                              {"vs_p50", c.vs_p50},
                              {"low_confidence", c.low_confidence}});
  }
  j["tail_cost_n_this_run"] = s.tail_n;
  j["notes"] = s.notes;
  return j;
}

void add_latency(Document& doc, const model::LatencyResult& r) {
  json arr = json::array();
  for (const auto& s : r.sections) {
    json j = latency_section_json(s);
    j["nranks"] = r.nranks;
    j["members"] = s.kind == "p2p" ? json(r.members) : json("all ranks");
    j["fabric_crossed"] = s.kind == "p2p" ? r.fabric_crossed : (r.hosts.size() >= 2);
    arr.push_back(std::move(j));
  }
  doc.json()["latency"] = std::move(arr);
  doc.set_section("latency", SectionStatus::kOk);

  if (!r.fabric_crossed) {
    Finding f;
    f.severity = Severity::kInfo;
    f.code = "LATENCY_FABRIC_NOT_CROSSED";
    f.message = fmt::format(
        "all {} ranks run on one host: the pairs are local ranks and the fabric was not crossed", r.nranks);
    f.evidence = {{"hosts", r.hosts}, {"nranks", r.nranks}};
    f.remedy = "launch one rank per host across at least two hosts (mpirun --hostfile … --map-by node)";
    doc.add_finding(f);
  }
  if (r.time_limited) {
    // Fewer samples than asked is context (the tails rest on fewer values), not a fabric problem: the budget
    // stopped the sections, and each one's notes say where.
    std::vector<std::string> where;
    for (const auto& s : r.sections)
      for (const auto& n : s.notes)
        if (n.rfind("stopped at the step's time limit", 0) == 0)
          where.push_back(fmt::format("{} {} B: {}", s.kind, s.size_bytes, n));
    Finding f;
    f.severity = Severity::kInfo;
    f.code = "LATENCY_TIME_LIMITED";
    f.message = fmt::format("{} latency section(s) stopped at the step's time limit before their iterations",
                            where.size());
    f.evidence = {{"sections", where}};
    f.remedy = "raise the latency step's budget_s, or lower iters, for the full sample count";
    doc.add_finding(f);
  }
  // One finding per pair and kind over every size (a slow pair shows at each size: one fault, one line).
  struct PairFinding {
    std::string pair;
    std::vector<std::string> hosts;
    std::vector<std::string> parts;
    json points = json::array();
    bool low_confidence = false;
  };
  std::vector<PairFinding> p50_out, p99_tail;
  auto entry = [](std::vector<PairFinding>& v, const model::LatencyPair& p) -> PairFinding& {
    for (auto& e : v)
      if (e.pair == pair_name(p)) return e;
    v.push_back({pair_name(p), {}, {}, json::array(), false});
    if (p.a_host != p.b_host) v.back().hosts = {p.a_host, p.b_host};
    return v.back();
  };
  for (const auto& s : r.sections) {
    if (s.kind == "p2p" && s.per_pair.size() >= 3) {
      std::vector<double> p50s, p99s;
      for (const auto& p : s.per_pair) {
        p50s.push_back(p.summary.p50);
        p99s.push_back(p.summary.p99);
      }
      const auto out = core::outliers(p50s, core::Worse::kHigher, core::OutlierRule::kMinRelativeLatency);
      const double med50 = *core::median(p50s), med99 = *core::median(p99s);
      for (std::size_t i = 0; i < s.per_pair.size(); ++i) {
        const auto& p = s.per_pair[i];
        if (out[i]) {
          auto& e = entry(p50_out, p);
          e.parts.push_back(fmt::format("p50 {} us at {} B (median {} us)", fmt_us(p.summary.p50),
                                        s.size_bytes, fmt_us(med50)));
          e.points.push_back({{"size_bytes", s.size_bytes},
                              {"p50_us", p.summary.p50},
                              {"median_p50_us", med50},
                              {"samples", p.summary.samples}});
        }
        if (med99 > 0 && p.summary.p99 > 3.0 * med99) {
          auto& e = entry(p99_tail, p);
          e.parts.push_back(fmt::format("p99 {} us at {} B ({:.1f}x the median pair's {} us)",
                                        fmt_us(p.summary.p99), s.size_bytes, p.summary.p99 / med99,
                                        fmt_us(med99)));
          e.points.push_back({{"size_bytes", s.size_bytes},
                              {"p99_us", p.summary.p99},
                              {"median_p99_us", med99},
                              {"samples", p.summary.samples},
                              {"low_confidence", p.summary.low_confidence_p99}});
          e.low_confidence = e.low_confidence || p.summary.low_confidence_p99;
        }
      }
    }
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string o;
    for (const auto& x : v) o += (o.empty() ? "" : "; ") + x;
    return o;
  };
  // Local ranks of one host measure shared memory and the scheduler, not the fabric: context (DESIGN §5).
  const Severity pair_sev = r.fabric_crossed ? Severity::kWarn : Severity::kInfo;
  for (const auto& e : p50_out) {
    Finding f;
    f.severity = pair_sev;
    f.code = "LATENCY_PAIR_OUTLIER";
    f.message = fmt::format("pair {} is slower than the other pairs: {}", e.pair, join(e.parts));
    f.evidence = {{"pair", e.pair}, {"points", e.points}};
    if (!e.hosts.empty()) f.evidence["hosts"] = e.hosts;
    f.remedy = "check the links, NIC and switch port of these hosts (fabcheck pairs)";
    doc.add_finding(f);
  }
  for (const auto& e : p99_tail) {
    Finding f;
    f.severity = pair_sev;
    f.code = "LATENCY_PAIR_TAIL";
    f.message = fmt::format("pair {} has a long tail: {}", e.pair, join(e.parts));
    f.evidence = {{"pair", e.pair}, {"points", e.points}, {"low_confidence", e.low_confidence}};
    if (!e.hosts.empty()) f.evidence["hosts"] = e.hosts;
    f.remedy = "look for congestion or a throttled link on these hosts (fabcheck incast, fabcheck pairs)";
    doc.add_finding(f);
  }
  for (const auto& s : r.sections) {
    if (s.spike_count > 0) {
      Finding f;
      f.severity = Severity::kInfo;
      f.code = "LATENCY_SPIKES";
      f.message = fmt::format("{} {} {} B: {} of {} samples above 10x the median ({} us)", s.kind, s.pattern,
                              s.size_bytes, s.spike_count, s.summary.samples, fmt_us(s.spike_threshold_us));
      json by = json::array();
      for (const auto& sp : s.spike_sources) by.push_back({{"source", sp.label}, {"count", sp.count}});
      f.evidence = {{"size_bytes", s.size_bytes},
                    {"kind", s.kind},
                    {"count", s.spike_count},
                    {"threshold_us", s.spike_threshold_us},
                    {"by_source", by}};
      f.remedy =
          "spikes usually come from OS noise, CPU frequency changes or congestion; pin ranks and re-run";
      doc.add_finding(f);
    }
  }
}

std::string render_histogram(const core::Histogram& h, int bar_width, int max_lines, bool skip_empty) {
  const auto fine = h.buckets();
  if (fine.empty()) return {};
  unsigned d = 4;
  std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> coarse;  // lower -> (upper, count)
  auto count_lines = [&](unsigned div) {
    int lines = 0;
    auto b = display_bucket(fine.front().lower_ns, div);
    const std::uint64_t last = display_bucket(fine.back().lower_ns, div).first;
    while (true) {
      ++lines;
      if (b.first >= last) break;
      b = display_bucket(b.second, div);
    }
    return lines;
  };
  while (d > 1 && count_lines(d) > max_lines) d /= 2;
  auto b = display_bucket(fine.front().lower_ns, d);
  const std::uint64_t last = display_bucket(fine.back().lower_ns, d).first;
  while (true) {
    coarse[b.first] = {b.second, 0};
    if (b.first >= last) break;
    b = display_bucket(b.second, d);
  }
  std::uint64_t max_count = 0;
  for (const auto& fb : fine) {
    auto& c = coarse[display_bucket(fb.lower_ns, d).first];
    c.second += fb.count;
    max_count = std::max(max_count, c.second);
  }
  std::string out;
  for (const auto& [lo, uc] : coarse) {
    const auto [hi, n] = uc;
    if (skip_empty && n == 0) continue;
    int len = 0;
    if (n > 0) {
      len =
          static_cast<int>(std::llround(static_cast<double>(n) / static_cast<double>(max_count) * bar_width));
      len = std::max(len, 1);
    }
    out += fmt::format("  [{:>9}, {:>9}) us |{:<{}} {}\n", us_label(lo), us_label(hi),
                       std::string(static_cast<std::size_t>(len), '#'), bar_width, n);
  }
  return out;
}

std::string tail_sentence(const model::LatencySection& s, std::uint64_t n) {
  if (s.summary.samples == 0) return {};
  std::vector<double> sorted = s.samples_us;
  std::sort(sorted.begin(), sorted.end());
  const std::uint64_t ns[] = {n};
  const auto c = core::tail_cost(sorted, ns);
  if (c.empty()) return {};
  std::string text = fmt::format("at {} ranks the tail makes each exchange {:.1f}x slower than its median", n,
                                 c.front().vs_p50);
  if (c.front().low_confidence) {
    text += fmt::format(" (low confidence: {} samples < 10 x {})", s.summary.samples, n);
  }
  return text;
}

namespace {

/// The compact form: the header line and one line per measured size.
std::string render_latency_compact(const model::LatencyResult& r) {
  std::string out = fmt::format(
      "# latency: {} ranks on {} host{}, {} ({}); p50/p99/p99.9/max in us (per pair and histograms: "
      "--verbose)\n",
      r.nranks, r.hosts.size(), r.hosts.size() == 1 ? "" : "s", r.members,
      r.fabric_crossed ? "the fabric was crossed" : "one host: the fabric was not crossed");
  for (const auto& s : r.sections) {
    const auto& m = s.summary;
    const std::string size =
        s.size_bytes < 1024 ? fmt::format("{} B", s.size_bytes) : core::format_size(s.size_bytes);
    const std::string what = fmt::format("{} {} {}", s.kind, s.pattern, size);
    if (m.samples == 0) {
      out += fmt::format("#   {:<22} no samples\n", what);
      continue;
    }
    std::string line = fmt::format("#   {:<22} {:>8} {:>8}{} {:>8}{} {:>8}  ({} samples", what, fmt_us(m.p50),
                                   fmt_us(m.p99), m.low_confidence_p99 ? "*" : " ", fmt_us(m.p999),
                                   m.low_confidence_p999 ? "*" : " ", fmt_us(m.max), m.samples);
    if (s.spike_count > 0) line += fmt::format(", {} above 10x p50", s.spike_count);
    if (!s.stragglers.empty())
      line += fmt::format(", straggler {} {:.0f}%", s.stragglers.front().label,
                          100.0 * s.stragglers.front().share);
    out += line + ")\n";
  }
  return out;
}

}  // namespace

std::string render_latency(const model::LatencyResult& r, model::ConsoleDetail detail) {
  if (detail == model::ConsoleDetail::kCompact) return render_latency_compact(r);
  std::string out;
  const std::size_t rounds = r.schedule.size();
  out += fmt::format("# fabcheck latency: {} ranks on {} host{}; pairs are {} ({}), pattern {}, {} round{}\n",
                     r.nranks, r.hosts.size(), r.hosts.size() == 1 ? "" : "s", r.members,
                     r.fabric_crossed ? "the fabric was crossed" : "one host: the fabric was not crossed",
                     r.pattern, rounds, rounds == 1 ? "" : "s");
  out += fmt::format("# clocks aligned to rank 0: max error {} us, max offset {} us; {}\n",
                     fmt_us(r.clock_error_us), fmt_us(r.clock_offset_us_max), r.iteration_rule);
  if (!r.pin_cpus.empty()) {
    out += fmt::format("# pairs pinned while measured: initiator on CPU {}, responder on CPU {}\n",
                       r.pin_cpus.front(), r.pin_cpus.back());
  }
  out +=
      "# p2p: half round trip per iteration (osu_latency); collective: span = max exit - min entry per "
      "iteration\n";
  for (const auto& s : r.sections) {
    const bool p2p = s.kind == "p2p";
    out += "\n";
    out += fmt::format("{} {} {} B ({}): {} samples, warm-up {} excluded{}\n", p2p ? "p2p" : "collective",
                       s.pattern, s.size_bytes, core::format_size(s.size_bytes), s.summary.samples, s.warmup,
                       p2p ? " per pair" : "");
    out += fmt::format("  {:<28} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>7}\n", p2p ? "pair" : "",
                       "samples", "p50_us", "p90_us", "p99_us", "p999_us", "max_us", "p99/p50");
    auto row = [&](const std::string& label, const core::Summary& m) {
      if (m.samples == 0) {
        out += fmt::format("  {:<28} {:>9} {:>10}\n", label, 0, "none");
        return;
      }
      out += fmt::format("  {:<28} {:>9} {:>10} {:>10} {:>10}{} {:>10}{} {:>10} {:>7.2f}\n", label, m.samples,
                         fmt_us(m.p50), fmt_us(m.p90), fmt_us(m.p99), m.low_confidence_p99 ? "*" : " ",
                         fmt_us(m.p999), m.low_confidence_p999 ? "*" : " ", fmt_us(m.max), m.tail_ratio());
    };
    if (p2p) {
      for (const auto& p : s.per_pair) row(pair_name(p) + (p.capped ? " (capped)" : ""), p.summary);
    }
    row(p2p ? "all pairs" : "all ranks (span)", s.summary);
    if (s.summary.low_confidence_p99 || s.summary.low_confidence_p999) {
      out += "  * low confidence: p99 from fewer than 100 samples, p99.9 from fewer than 1000\n";
    }
    if (s.summary.samples == 0) continue;
    if (detail == model::ConsoleDetail::kVerbose) {
      out += fmt::format("  histogram{} (log buckets, count per non-empty bucket):\n",
                         p2p ? " merged across pairs" : "");
      out += render_histogram(s.histogram, 50, 40, true);
    }
    std::string spikes = fmt::format("  spikes: {} sample{} above 10x the median ({} us)", s.spike_count,
                                     s.spike_count == 1 ? "" : "s", fmt_us(s.spike_threshold_us));
    for (std::size_t i = 0; i < s.spike_sources.size() && i < 8; ++i) {
      spikes +=
          fmt::format("{} {} {}", i == 0 ? ":" : ",", s.spike_sources[i].label, s.spike_sources[i].count);
    }
    out += spikes + "\n";
    std::string strag =
        fmt::format("  stragglers (share of the {} samples above p99 = {} us{}):", s.straggler_above,
                    fmt_us(s.straggler_threshold_us), p2p ? "" : ", by rank that entered last");
    if (s.stragglers.empty()) strag += " none";
    for (std::size_t i = 0; i < s.stragglers.size() && i < 8; ++i) {
      strag += fmt::format("{} {} {:.1f}%", i == 0 ? "" : ",", s.stragglers[i].label,
                           100.0 * s.stragglers[i].share);
    }
    out += strag + "\n";
    std::string cost = "  tail cost E[max of N]:";
    for (std::size_t i = 0; i < s.tail_cost.size(); ++i) {
      const auto& c = s.tail_cost[i];
      cost += fmt::format("{} N={} {} us ({:.2f}x p50{})", i == 0 ? "" : ";", c.n, fmt_us(c.expected),
                          c.vs_p50, c.low_confidence ? ", low confidence" : "");
    }
    out += cost + "\n";
    out += "  " + tail_sentence(s) + "\n";
    for (const auto& n : s.notes) out += "  note: " + n + "\n";
  }
  if (const auto* p = first_section(r, "p2p"); p == nullptr) out += "\n(p2p not measured)\n";
  if (const auto* c = first_section(r, "collective"); c == nullptr) {
    out += "\n(collective not measured: no allreduce size between 8 B and 64K in --sizes, or --kind p2p)\n";
  }
  return out;
}

}  // namespace fabcheck::report
