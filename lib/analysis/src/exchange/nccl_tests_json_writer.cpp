// nccl-tests' `-J` JSON from a sweep result (nccl_tests_json_writer.hpp). Every layout decision cites the
// line of NVIDIA/nccl-tests v2.19.6 src/util.cu (or common.cu) that it follows; tests/data/nccl-tests-json/
// holds files written by that code.
#include "fabcheck/report/nccl_tests_json_writer.hpp"
#include "fabcheck/core/stats.hpp"

#include <fmt/format.h>
#include <fmt/printf.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/redact.hpp"

namespace fabcheck::report {

namespace {

using model::PerIterStats;
using model::PlacementResult;
using model::SweepResult;

/// The writer's output: util.cu's jsonKey/jsonValHelper state machine (util.cu:159-197) reduced to "a comma
/// before every member but the first", which is all it prints between tokens.
class Out {
 public:
  void open(char c) {
    sep();
    s_ += c;
    first_ = true;
  }
  void close(char c) {
    s_ += c;
    first_ = false;
  }
  void key(std::string_view k) {
    sep();
    s_ += nccl_tests_json_string(k);  // keys are sanitized too (util.cu:172)
    s_ += ':';
    after_key_ = true;
  }
  void raw(std::string_view v) {
    sep();
    s_ += v;
  }
  void str(std::string_view v) { raw(nccl_tests_json_string(v)); }
  /// util.cu:273-275 jsonBool: the strings "true" / "false".
  void boolean(bool v) { str(v ? "true" : "false"); }
  void num(long long v) { raw(fmt::format("{}", v)); }  // jsonInt "%d", jsonSize_t "%zu" (util.cu:278-287)
  void dbl(double v) { raw(nccl_tests_json_double(v)); }
  // A member: its key, then its value.
  void str(std::string_view k, std::string_view v) {
    key(k);
    str(v);
  }
  void boolean(std::string_view k, bool v) {
    key(k);
    boolean(v);
  }
  void num(std::string_view k, long long v) {
    key(k);
    num(v);
  }
  void dbl(std::string_view k, double v) {
    key(k);
    dbl(v);
  }
  std::string take() { return std::move(s_); }

 private:
  void sep() {
    if (after_key_) {
      after_key_ = false;
    } else if (!first_) {
      s_ += ',';
    }
    first_ = false;
  }
  std::string s_;
  bool first_ = true;
  bool after_key_ = false;
};

/// util.cu:425-438 parseRankInfo reads "[%128[^]]] %1024[^\n]" from the device line: the text between the
/// brackets is device_hex, the rest device_info. fabcheck's label has the same shape ("[cpu] MPI host
/// buffers", "[0000:1b:00] NVIDIA H100 80GB HBM3").
std::pair<std::string, std::string> split_label(const std::string& label) {
  if (label.size() > 1 && label.front() == '[') {
    const auto close = label.find(']');
    if (close != std::string::npos) {
      std::string rest = label.substr(close + 1);
      rest.erase(0, rest.find_first_not_of(' '));
      return {label.substr(1, close - 1), rest};
    }
  }
  return {"", label};
}

/// The summary members of a `*_per_iter` object after skipped_iterations, in writePerIterReport's order.
using IterStats = core::NcclTestsIterStats;
constexpr std::pair<const char*, double IterStats::*> kIterStatFields[] = {
    {"min_us", &IterStats::min_us},     {"max_us", &IterStats::max_us}, {"avg_us", &IterStats::avg_us},
    {"p50_us", &IterStats::p50_us},     {"p95_us", &IterStats::p95_us}, {"p99_us", &IterStats::p99_us},
    {"stdev_us", &IterStats::stdev_us}, {"cv_pct", &IterStats::cv_pct}};

/// util.cu:531-533 percentileIndex (nearest rank).
/// util.cu:559-604 writePerIterReport, from fabcheck's per-iteration pass: times_us are its spans (all kept
/// samples, DESIGN §4), the summary is computed here the way util.cu:535-557 computeIterStats does (sorted
/// nearest-rank p50 = sorted[n/2], p95/p99; population stdev; cv% = stdev/avg·100) over the samples after
/// the first `skip`. No per_process_max_times_us: fabcheck's span already is the max over ranks (nccl-tests
/// omits the key too when it has one process row, util.cu:589).
void per_iter(Out& o, const char* key, const PerIterStats& s, int skip) {
  const auto& t = s.samples_us;
  const auto st =
      *core::nccl_tests_iter_stats(t, std::min(t.size() - 1, static_cast<std::size_t>(std::max(skip, 0))));
  o.key(key);
  o.open('{');
  o.num("skipped_iterations", static_cast<long long>(st.skipped));
  for (const auto& [name, field] : kIterStatFields) o.dbl(name, st.*field);
  o.key("times_us");
  o.open('[');
  for (double v : t) o.dbl(v);
  o.close(']');
  o.close('}');
}

/// util.cu:497-524 writeBenchmarkLineBody (JSON part, 515-523): {time|cpu_time, alg_bw, bus_bw, nwrong},
/// nwrong = (double)wrongElts printed %lf, or null when the placement was not checked.
void body(Out& o, const char* key, const PlacementResult& p, const NcclTestsJsonRun& run,
          const char* pi_key) {
  o.key(key);
  o.open('{');
  o.key(run.report_cputime ? "cpu_time" : "time");
  o.dbl(run.report_cputime ? p.cputime_us.value_or(p.time_us) : p.time_us);
  o.dbl("alg_bw", p.algbw_gbps);
  o.dbl("bus_bw", p.busbw_gbps);
  o.key("nwrong");
  if (p.wrong) {
    o.dbl(static_cast<double>(*p.wrong));
  } else {
    o.raw("null");
  }
  o.close('}');
  // common.cu:859-886: the per-iteration report follows its placement's body.
  if (run.per_iter_timing && p.per_iter && !p.per_iter->samples_us.empty())
    per_iter(o, pi_key, *p.per_iter, run.per_iter_skip);
}

/// The env list: values only for the names known to be harmless, those redacted by shape
/// (core::redact_env_value); FABCHECK_* entries of ours appended last.
std::vector<std::string> env_entries(const NcclTestsJsonRun& run, std::string_view collective) {
  std::vector<std::string> out;
  for (const auto& e : run.env) {
    const auto eq = e.find('=');
    const std::string name = e.substr(0, eq);
    if (name == "FABCHECK_VERSION" || name == "FABCHECK_COLLECTIVE") continue;
    out.push_back(eq == std::string::npos ? e : name + "=" + core::redact_env_value(name, e.substr(eq + 1)));
  }
  out.push_back("FABCHECK_VERSION=" + run.fabcheck_version);
  out.push_back("FABCHECK_COLLECTIVE=" + std::string(collective));
  return out;
}

// util.cu:643-665 + 702-716 writeDeviceReport (config), in that order.
void write_config(Out& o, const SweepResult& r, const NcclTestsJsonRun& run) {
  const auto& opt = r.options;
  o.key("config");
  o.open('{');
  o.num("nthreads", opt.nthreads);
  o.num("ngpus", opt.ngpus);
  o.num("minimum_bytes", static_cast<long long>(opt.min_bytes));
  o.num("maximum_bytes", static_cast<long long>(opt.max_bytes));
  if (opt.step_factor > 1) {  // util.cu:649-654: one of the two
    o.num("step_factor", static_cast<long long>(opt.step_factor));
  } else {
    o.num("step_bytes", static_cast<long long>(opt.step_bytes));
  }
  o.num("warmup_iters", opt.warmup_iters);
  o.num("iterations", opt.iters);
  o.num("aggregated_iterations", run.agg_iters);
  o.num("validation", opt.check);
  o.num("graph", opt.cudagraph);                         // -G: CUDA graph launches (nccl backend)
  o.boolean("blocking_collectives", opt.blocking != 0);  // util.cu:661 jsonBool(blocking_coll)
  o.boolean("per_iter_timing", run.per_iter_timing);
  o.num("per_iter_skip", run.per_iter_skip);
  o.boolean("parallel_init", run.parallel_init);
  o.key("devices");
  o.open('[');
  for (const auto& d : r.devices) {  // util.cu:440-450 jsonRankInfo
    const auto [hex, info] = split_label(d.label);
    o.open('{');
    o.num("rank", d.rank);
    o.num("group", 0);  // NCCL_TESTS_SPLIT colour: fabcheck runs one group
    o.num("pid", d.pid);
    o.str("hostname", d.host);
    o.num("device", d.device);
    o.str("device_hex", hex);
    o.str("device_info", info);
    o.close('}');
  }
  o.close(']');
  o.close('}');
}

// What the footer sums over the rows: placements with wrong elements, and the busBw of every placement.
struct ResultTotals {
  std::size_t out_of_bounds = 0;  // common.cu:478: placements with wrong elements
  core::BusbwMean busbw;          // common.cu:895-896, 1831: mean busBw of every placement
};

// util.cu:764 results; per row common.cu:938-941 preamble, out-of-place, in-place, terminator.
ResultTotals write_results(Out& o, const SweepResult& r, const NcclTestsJsonRun& run) {
  ResultTotals t;
  const auto& opt = r.options;
  o.key("results");
  o.open('[');
  for (const auto& b : r.blocks) {
    const std::string redop = b.redop ? std::string(core::name(*b.redop)) : "none";
    for (const auto& p : b.points) {
      o.open('{');
      o.num("size", static_cast<long long>(p.size_bytes));  // util.cu:461-465
      o.num("count", static_cast<long long>(p.count));
      o.str("type", core::name(b.dtype));
      o.str("redop", redop);
      o.str("root", fmt::sprintf("%6i", b.root));  // util.cu:456 sprintf(rootName, "%6i", root)
      body(o, "out_of_place", p.out_of_place, run, "out_of_place_per_iter");
      body(o, "in_place", p.in_place, run, "in_place_per_iter");
      o.num("actual_iterations", opt.iters);  // util.cu:473-474; common.cu:941 passes iters and ""
      o.str("experiment_name", "");
      o.close('}');
      for (const auto* pr : {&p.out_of_place, &p.in_place}) {
        if (pr->wrong && *pr->wrong > 0) ++t.out_of_bounds;
        t.busbw.add(pr->busbw_gbps);
      }
    }
  }
  o.close(']');
  return t;
}

}  // namespace

int nccl_version_code(const std::optional<std::string>& v) {
  if (!v) return 0;
  int major = 0, minor = 0, patch = 0;
  const auto digit = v->find_first_of("0123456789");
  if (digit == std::string::npos) return 0;
  if (std::sscanf(v->c_str() + digit, "%d.%d.%d", &major, &minor, &patch) != 3) return 0;
  return major * 10000 + minor * 100 + patch;
}

std::string nccl_tests_json_string(std::string_view s) {
  constexpr std::size_t kLim = 2048;  // util.cu:171/267 `char tmp[2048]`
  std::string out = "\"";
  std::size_t c = 0;  // characters written to util.cu's buffer
  for (char ch : s) {
    if (c + 1 >= kLim) break;  // util.cu:81
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\' || ch == '/' || ch == '\t' || ch == '\n') {
      if (c + 2 > kLim) break;  // util.cu:91
      out += '\\';
      out += ch == '\n' ? 'n' : ch == '\t' ? 't' : ch;
      c += 2;
    } else if (u >= 0x7F || u <= 0x1F) {
      break;  // util.cu:108-111: the string ends here
    } else {
      out += ch;
      ++c;
    }
  }
  out += '"';
  return out;
}

std::string nccl_tests_json_double(double v) {
  if (std::isnan(v)) return "\"nan\"";  // util.cu:292-294
  if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
  return fmt::sprintf("%lf", v);  // util.cu:296
}
std::string nccl_tests_json(const SweepResult& r, const NcclTestsJsonRun& run) {
  for (const auto& b : r.blocks) {
    if (b.collective != r.blocks.front().collective) {
      throw std::invalid_argument(
          "nccl-tests' JSON holds one collective per file (its binary is the collective): give one --coll");
    }
  }
  const auto coll = r.blocks.empty() ? (r.options.collectives.empty() ? core::Collective::kAllReduce
                                                                      : r.options.collectives.front())
                                     : r.blocks.front().collective;
  Out o;
  o.open('{');
  // util.cu:317-379 jsonOutputInit.
  o.num("version", 3);  // util.cu:52 JSON_FILE_VERSION
  o.str("start_time", run.start_time);
  o.key("args");
  o.open('[');
  for (const auto& a : core::redact_argv(run.args)) o.str(a);
  o.close(']');
  o.key("env");
  o.open('[');
  for (const auto& e : env_entries(run, core::name(coll))) o.str(e);
  o.close(']');
  o.num("nccl_version", nccl_version_code(r.topology.nccl_version));
  write_config(o, r, run);
  const ResultTotals t = write_results(o, r, run);
  // util.cu:783-792 writeResultFooter.
  const double avg = t.busbw.value().value_or(std::nan(""));  // 0/0 in common.cu:1831
  o.key("out_of_bounds");
  o.open('{');
  o.num("count", static_cast<long long>(t.out_of_bounds));
  o.boolean("okay", t.out_of_bounds == 0);
  o.close('}');
  o.key("average_bus_bandwidth");
  o.open('{');
  o.dbl("bandwidth", avg);
  o.key("okay");
  if (run.min_bw_gbps) {
    o.boolean(avg >= *run.min_bw_gbps * 0.9);
  } else {
    o.str("unchecked");
  }
  o.close('}');
  // util.cu:846-852 writeErrors: [ncclGetLastError()], which is "" when nothing failed.
  o.key("errors");
  o.open('[');
  o.str("");
  o.close(']');
  o.str("end_time", run.end_time);  // util.cu:391-396
  o.close('}');
  return o.take();
}

}  // namespace fabcheck::report
