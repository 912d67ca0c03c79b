#include "fabcheck/report/sweep.hpp"

#include "fabcheck/model/option_tables.hpp"

#include <fmt/format.h>
#include <fmt/printf.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/core/stats.hpp"
#include "fabcheck/core/time_text.hpp"
#include "fabcheck/report/nccl_tests_memory.hpp"
#include "fabcheck/report/sweep_json.hpp"
#include "fabcheck/report/topology.hpp"

namespace fabcheck::report {

using model::PerIterStats;
using model::PlacementResult;
using model::SweepBlock;
using model::SweepResult;

std::string nccl_float(double value, int width) {
  for (int prec = 2; prec >= 0; --prec) {
    std::string s = fmt::sprintf("%*.*f", width, prec, value);
    if (static_cast<int>(s.size()) <= width) return s;
  }
  return width >= 7 ? fmt::sprintf("%*.1e", width, value) : fmt::sprintf("%*.0e", width, value);
}

namespace {

nlohmann::json per_iter_json(const PerIterStats& s) {
  nlohmann::json strag = nlohmann::json::array();
  for (const auto& x : s.stragglers)
    strag.push_back({{"rank", x.rank}, {"host", x.host}, {"share", x.share}});
  return {{"samples", s.samples},
          {"min_us", s.min_us},
          {"p50_us", s.p50_us},
          {"p99_us", s.p99_us},
          {"p999_us", s.p999_us},
          {"max_us", s.max_us},
          {"mean_us", s.mean_us},
          {"stdev_us", s.stdev_us},
          {"low_confidence", s.low_confidence},
          {"low_confidence_p999", s.low_confidence_p999},
          {"stragglers", strag},
          {"samples_us", s.samples_us},
          {"samples_us_cap", s.samples_cap},
          {"rounds", s.rounds},
          {"straggler_ranks", s.straggler_ranks},
          {"straggler_resolution_us", s.straggler_resolution_us}};
}

nlohmann::json point_json(const model::SweepPoint& p, const PlacementResult& pr, const char* placement) {
  SweepPointFields f;
  f.size_bytes = p.size_bytes;
  if (p.requested_bytes) f.requested_bytes = p.requested_bytes;
  f.count = p.count;
  f.cycle = p.cycle;
  f.placement = placement;
  f.time_us = pr.time_us;
  f.algbw_gbps = pr.algbw_gbps;
  f.busbw_gbps = pr.busbw_gbps;
  if (pr.wrong) {
    f.wrong = *pr.wrong;
  } else {
    f.wrong_reason = pr.wrong_reason;
  }
  if (pr.per_iter) {
    f.per_iter = per_iter_json(*pr.per_iter);
  } else {
    f.per_iter_reason = "per-iteration pass off (--per-iter-iters 0)";
  }
  nlohmann::json j = sweep_point_json(f);
  if (pr.wrong && !pr.wrong_ranks.empty()) j["wrong_ranks"] = pr.wrong_ranks;
  return j;
}

std::string redop_name(const SweepBlock& b) {
  return b.redop ? std::string(core::name(*b.redop)) : "none";
}

/// One series' `sweeps[]` entry through the one writer (report/sweep_json.hpp), with the measured sweep's own
/// `truncated`; each placement with wrong elements joins `bad` (WRONG_DATA evidence, the first 50).
nlohmann::json series_json(const SweepBlock& b, nlohmann::json& bad) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : b.points) {
    points.push_back(point_json(p, p.out_of_place, "out_of_place"));
    points.push_back(point_json(p, p.in_place, "in_place"));
    for (const auto* pr : {&p.out_of_place, &p.in_place}) {
      if (pr->wrong && *pr->wrong > 0 && bad.size() < 50) {
        bad.push_back({{"collective", core::name(b.collective)},
                       {"dtype", core::name(b.dtype)},
                       {"redop", redop_name(b)},
                       {"root", b.root},
                       {"size_bytes", p.size_bytes},
                       {"placement", pr == &p.out_of_place ? "out_of_place" : "in_place"},
                       {"wrong", *pr->wrong},
                       {"ranks", pr->wrong_ranks}});
      }
    }
  }
  SweepSeriesFields f;
  f.collective = core::name(b.collective);
  f.dtype = core::name(b.dtype);
  if (b.redop) f.redop = core::name(*b.redop);
  if (b.root >= 0) f.root = b.root;
  f.nranks = b.nranks;
  f.busbw_factor = core::busbw_factor(b.collective, b.nranks);
  f.avg_busbw_gbps = b.avg_busbw_gbps;
  nlohmann::json e = sweep_series_json(f, std::move(points));
  e["truncated"] = nullptr;
  if (b.truncated_from_bytes) {
    e["truncated"] = {
        {"from_bytes", *b.truncated_from_bytes},
        {"predicted_s", b.truncated_predicted_s},
        {"allowance_s", b.truncated_allowance_s},
        {"reason", fmt::format("the step's time limit ({} x budget_s)", model::kSweepBudgetLimitFactor)}};
  }
  return e;
}

}  // namespace

void add_sweep(Document& doc, const SweepResult& r) {
  auto& j = doc.json();
  add_topology(doc, r.topology);
  // The sweep's options as its config section (a valid --config); a run's enabled/budget_s stay.
  auto& cfg = j["run"]["config"];
  if (!cfg.is_object()) cfg = nlohmann::json::object();
  const nlohmann::json opts = model::sweep_option_table().to_json(r.options);
  for (const auto& [k, v] : opts.items()) cfg["sweep"][k] = v;
  nlohmann::json sweeps = nlohmann::json::array();
  nlohmann::json bad = nlohmann::json::array();
  for (const auto& b : r.blocks) sweeps.push_back(series_json(b, bad));
  set_sweeps(doc, std::move(sweeps));
  if (r.max_bytes_reduced_to) j["sweep_max_bytes_reduced_to"] = *r.max_bytes_reduced_to;
  if (r.gpu_memory) {  // -M 1 (nccl): nccl-tests' GPU memory line, maximum over ranks
    const auto& m = *r.gpu_memory;
    j["sweep_gpu_memory"] = {{"initialization_bytes", m.init_bytes},
                             {"user_allocated_bytes", m.user_bytes},
                             {"collective_bytes", m.collective_bytes},
                             {"total_bytes", m.init_bytes + m.user_bytes + m.collective_bytes}};
  }
  j["conventions"]["straggler"] =
      "per iteration, the rank that entered last, when it entered later than every other rank by more than "
      "the "
      "clock-alignment error bound (straggler_resolution_us); otherwise none (-1). share = iterations as "
      "straggler / iterations";
  j["conventions"]["sweep_per_iter"] =
      "separate pass after the table loop: each iteration starts after a barrier; per rank entry/exit on "
      "clocks "
      "aligned to rank 0; span = max exit - min entry; p50/p99/p999 nearest rank over the spans";
  j["conventions"]["data_check"] =
      "#wrong = elements differing from the exactly predictable result (small integers; integer types wrap "
      "modulo 2^bits), summed over ranks; null when unchecked";

  if (r.total_wrong > 0) {
    // The ranks (and their hosts) that received wrong data, over every checked row placement.
    std::set<int> ranks;
    for (const auto& b : r.blocks)
      for (const auto& p : b.points)
        for (const auto* pr : {&p.out_of_place, &p.in_place})
          ranks.insert(pr->wrong_ranks.begin(), pr->wrong_ranks.end());
    std::string where;
    nlohmann::json rank_hosts = nlohmann::json::array();
    for (int rk : ranks) {
      std::string host;
      for (const auto& h : r.topology.hosts)
        if (std::find(h.ranks.begin(), h.ranks.end(), rk) != h.ranks.end()) host = h.host;
      where +=
          fmt::format("{}rank {}{}", where.empty() ? "" : ", ", rk, host.empty() ? "" : " (" + host + ")");
      rank_hosts.push_back({{"rank", rk}, {"host", host}});
    }
    Finding f;
    f.severity = Severity::kFail;
    f.code = "WRONG_DATA";
    f.message =
        fmt::format("{} element(s) differed from the exact expected result in {} checked row placement(s){}",
                    r.total_wrong, r.failed_checks, where.empty() ? "" : ", received on " + where);
    f.evidence = {{"total_wrong", r.total_wrong},
                  {"failed_checks", r.failed_checks},
                  {"checks", bad},
                  {"ranks", rank_hosts}};

    f.remedy =
        "re-run with -c 5 to see whether it is intermittent, then bisect the hosts (a faulty NIC, GPU, "
        "memory or "
        "firmware corrupts data silently)";
    doc.add_finding(f);
  }
  // A series the time limit stopped: the sizes left out, and why (a slow fabric, or a budget too small).
  std::string cut;
  nlohmann::json cut_ev = nlohmann::json::array();
  for (const auto& b : r.blocks) {
    if (!b.truncated_from_bytes) continue;
    cut += fmt::format("{}{} from {}", cut.empty() ? "" : ", ", core::name(b.collective),
                       core::format_size(*b.truncated_from_bytes));
    cut_ev.push_back({{"collective", core::name(b.collective)},
                      {"from_bytes", *b.truncated_from_bytes},
                      {"predicted_s", b.truncated_predicted_s},
                      {"allowance_s", b.truncated_allowance_s}});
  }
  if (!cut.empty()) {
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "SWEEP_TRUNCATED";
    f.message = fmt::format(
        "the sweep stopped before its largest sizes ({}): each would have outrun the step's time limit "
        "({} x budget_s {:.0f} s) - the fabric is far slower than the budget assumes",
        cut, model::kSweepBudgetLimitFactor, r.options.time_limit_s / model::kSweepBudgetLimitFactor);
    f.evidence = {{"series", cut_ev}, {"time_limit_s", r.options.time_limit_s}};
    f.remedy = "find the slow host or link (pairs), or raise the sweep's budget_s in the config";
    doc.add_finding(f);
  }
  if (r.topology.nranks == 1) {
    std::vector<std::string> zero;
    std::set<std::string> seen;
    for (const auto& b : r.blocks) {
      if (core::busbw_factor(b.collective, 1) == 0.0 &&
          seen.insert(std::string(core::name(b.collective))).second) {
        zero.emplace_back(core::name(b.collective));
      }
    }
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "SINGLE_RANK";
    f.message = fmt::format(
        "only 1 rank: busBw is 0 by definition for {} (factor (n-1)/n); nothing crossed a link",
        zero.empty() ? std::string("the (n-1) collectives") : fmt::format("{}", fmt::join(zero, ", ")));
    f.evidence = {{"nranks", 1}};
    f.remedy = "launch through mpirun/srun with one rank per GPU or process on the hosts you mean to test";
    doc.add_finding(f);
  }
}

namespace {

/// nccl-tests' `-I` columns of one placement: i_min i_max i_p99 i_cv% of core::nccl_tests_iter_stats over the
/// kept per-iteration samples after the first `skip`. fabcheck's samples are spans of its per-iteration pass
/// (max exit - min entry of each iteration, DESIGN §3), not GPU event gaps: the preamble says so.
std::string per_iter_columns(const model::PlacementResult& pr, int skip) {
  const auto st = pr.per_iter
                      ? core::nccl_tests_iter_stats(pr.per_iter->samples_us, static_cast<std::size_t>(skip))
                      : std::nullopt;
  if (!st) return fmt::sprintf("  %7s  %7s  %7s  %7s", "N/A", "N/A", "N/A", "N/A");
  return fmt::sprintf("  %7s  %7s  %7s  %7s", nccl_float(st->min_us, 7), nccl_float(st->max_us, 7),
                      nccl_float(st->p99_us, 7), nccl_float(st->cv_pct, 7));
}

/// The start of one collective's block: its binary, nccl-tests' options line and the -m blocking mode.
std::string sweep_block_preamble(const model::SweepOptions& o, const std::string& binary) {
  std::string out;
  out += fmt::sprintf("# Collective test starting: %s\n", binary);
  out += fmt::sprintf(
      "# nThread %d nGpus %d minBytes %ld maxBytes %ld step: %ld(%s) warmup iters: %d iters: %d agg iters: "
      "%d "
      "validation: %d graph: %d unalign: %d\n",
      1, 1, static_cast<long>(o.min_bytes), static_cast<long>(o.max_bytes),
      static_cast<long>(o.step_factor > 1 ? o.step_factor : o.step_bytes),
      o.step_factor > 1 ? "factor" : "bytes", o.warmup_iters, o.iters, o.agg_iters, o.check, o.cudagraph,
      o.unalign);
  if (o.blocking == 1) out += "# Blocking Enabled: wait and barrier after each inner iteration (-m) \n";
  if (o.blocking == 2) out += "# Blocking Enabled: wait after each inner iteration (-m), no barrier \n";
  if (o.blocking == 3) {
    out += "# Blocking Enabled: wait and barrier after each outer iteration (-n); time excludes barrier \n";
  }
  return out;
}

/// What nccl-tests flags mean here, said where a reader of the table looks.
std::string sweep_backend_notes(const model::SweepOptions& o) {
  const bool mpi = o.backend == "mpi", nccl = o.backend == "nccl";
  const bool avg = std::find(o.redops.begin(), o.redops.end(), core::RedOp::kAvg) != o.redops.end();
  // Each note: when it applies, and what it says after "# fabcheck: ".
  const std::pair<bool, std::string> notes[] = {
      {mpi && (o.parallel_init || o.stream_null),
       "-p/--parallel_init and -y/--stream_null have no effect on the mpi backend (one rank per process, no "
       "streams)"},
      {mpi && avg,
       "-o avg on the mpi backend: MPI has no average op; each call sums, then every rank holding a result "
       "divides it by nranks (timed as part of the call)"},
      {mpi && o.agg_iters > 1,
       fmt::format("-m {} on the mpi backend: {} nonblocking collectives posted back to back, then "
                   "MPI_Waitall, each on its own buffers; the per-iteration columns time single ops",
                   o.agg_iters, o.agg_iters)},
      {nccl && o.device_cta_count != 16,
       fmt::format("-V {} has no effect: it sizes nccl-tests' -D device-API kernels, which fabcheck does not "
                   "have",
                   o.device_cta_count)},
      {nccl && o.redops == core::all_redops(),
       "-o all is sum prod min max avg; nccl-tests' all adds mulsum on NCCL >= 2.11 (give -o "
       "sum,prod,min,max,avg,mulsum for its rows)"},
      {nccl && o.dtypes == core::all_dtypes(),
       "-d all is nccl-tests' ten types; nccl-tests' all adds f8e4m3 f8e5m2 on sm90 GPUs with NCCL >= 2.24 "
       "(name them: -d int8,uint8,int32,uint32,int64,uint64,half,float,double,bfloat16,f8e4m3,f8e5m2)"},
      {nccl && o.cudagraph > 0,
       fmt::format("-G {}: the timed ops are captured into one CUDA graph and launched {} times; the data "
                   "check runs its op outside the graph",
                   o.cudagraph, o.cudagraph)},
      {o.report_cputime && nccl,
       "-C on the nccl backend: the cputime column is rank 0's time to enqueue the ops (not reduced across "
       "ranks), as nccl-tests; algBw and busBw stay from the completion time"},
      {o.report_cputime && mpi,
       "-C cputime on the mpi backend: MPI collectives are blocking, so the CPU time per op is its "
       "completion time"},
      {o.per_iter_timing,
       fmt::format(
           "-I columns from the per-iteration pass (span = max exit - min entry per iteration, clocks "
           "aligned to rank 0), {} leading sample(s) skipped (-K)",
           o.per_iter_skip)},
  };
  std::string out;
  for (const auto& [applies, text] : notes)
    if (applies) out += "# fabcheck: " + text + "\n";
  return out;
}

/// nccl-tests' "Using devices" lines, and its maxBytes reduction when there was one.
std::string sweep_devices_lines(const SweepResult& r) {
  std::string out = "#\n# Using devices\n";
  for (const auto& d : r.devices) {
    out += fmt::sprintf("#  Rank %2d Group %2d Pid %6d on %10s device %2d %s\n", d.rank, 0, d.pid, d.host,
                        d.device, d.label);
  }
  if (r.max_bytes_reduced_to)  // nccl-tests prints it after the devices (common.cu run())
    out += fmt::format("#\n# Reducing maxBytes to {} due to memory limitation\n", *r.max_bytes_reduced_to);
  out += "#\n";
  return out;
}

/// The table's column headers, with the per-iteration columns under -I.
std::string sweep_table_header(const model::SweepOptions& o) {
  std::string out;
  const bool pi = o.per_iter_timing != 0;
  const char* time_col = o.report_cputime ? "cputime" : "time";
  if (pi) {  // nccl-tests -I: each block grows by i_min i_max i_p99 i_cv% (%7s each), "(+ per-iteration)"
    out += fmt::sprintf("# %10s  %12s  %8s  %6s  %6s  %-62s  %-62s\n", "", "", "", "", "",
                        "                   out-of-place (+ per-iteration)",
                        "                     in-place (+ per-iteration)");
    std::string h = fmt::sprintf("# %10s  %12s  %8s  %6s  %6s", "size", "count", "type", "redop", "root");
    std::string u = fmt::sprintf("# %10s  %12s  %8s  %6s  %6s", "(B)", "(elements)", "", "", "");
    for (int k = 0; k < 2; ++k) {
      h += fmt::sprintf("  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s", time_col, "algbw", "busbw", "#wrong",
                        "i_min", "i_max", "i_p99", "i_cv%");
      u += fmt::sprintf("  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s", "(us)", "(GB/s)", "(GB/s)", "", "(us)",
                        "(us)", "(us)", "");
    }
    out += h + "\n" + u + "\n";
  } else {
    out += fmt::sprintf(
        "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "",
        "", "", "", "");
    out += fmt::sprintf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "size",
                        "count", "type", "redop", "root", time_col, "algbw", "busbw", "#wrong", time_col,
                        "algbw", "busbw", "#wrong", 0, "");
    out += fmt::sprintf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "(B)",
                        "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
                        "", 0, "");
  }
  return out;
}

/// The table rows of collective `c` (every series of it). `errors` counts the placements with wrong
/// elements and `mean` takes every placement's busBw, for the footer.
std::string sweep_table_rows(const SweepResult& r, core::Collective c, int& errors, core::BusbwMean& mean) {
  const auto& o = r.options;
  const bool pi = o.per_iter_timing != 0;
  std::string out;
  for (const auto& b : r.blocks) {
    if (b.collective != c) continue;
    const std::string op = redop_name(b);
    const std::string root = fmt::sprintf("%6i", b.root);
    for (const auto& p : b.points) {
      out += fmt::sprintf("%12li  %12li  %8s  %6s  %6s", static_cast<long>(p.size_bytes),
                          static_cast<long>(p.count), std::string(core::name(b.dtype)), op, root);
      for (const auto* pr : {&p.out_of_place, &p.in_place}) {
        const double shown_us = o.report_cputime ? pr->cputime_us.value_or(pr->time_us) : pr->time_us;
        const std::string t = nccl_float(shown_us, 7), a = nccl_float(pr->algbw_gbps, 6),
                          bb = nccl_float(pr->busbw_gbps, 6);
        if (pr->wrong) {
          out += fmt::sprintf("  %7s  %6s  %6s  %6g", t, a, bb, static_cast<double>(*pr->wrong));
          if (*pr->wrong > 0) ++errors;
        } else {
          out += fmt::sprintf("  %7s  %6s  %6s    N/A", t, a, bb);
        }
        if (pi) out += per_iter_columns(*pr, o.per_iter_skip);
        mean.add(pr->busbw_gbps);
      }
      if (o.report_timestamps) out += "  " + core::local_time_text(p.measured_unix_s);
      out += "\n";
    }
  }
  return out;
}

}  // namespace

std::string render_sweep(const SweepResult& r) {
  const auto& o = r.options;
  std::string out;
  // Collectives in the order they ran; one nccl-tests block each.
  std::vector<core::Collective> order;
  for (const auto& b : r.blocks) {
    if (std::find(order.begin(), order.end(), b.collective) == order.end()) order.push_back(b.collective);
  }
  for (core::Collective c : order) {
    const std::string binary(core::nccl_tests_binary(c));
    out += sweep_block_preamble(o, binary);
    out += sweep_backend_notes(o);
    out += sweep_devices_lines(r);
    out += sweep_table_header(o);
    int errors = 0;
    core::BusbwMean mean;  // the footer: every block of this collective's tables
    out += sweep_table_rows(r, c, errors, mean);
    const double avg = mean.value().value_or(0.0);
    out += fmt::sprintf("# %-20s : %d %s\n", "Out of bounds values", errors, errors ? "FAILED" : "OK");
    out += fmt::sprintf("# %-20s : %g %s\n", "Avg bus bandwidth", avg, "");
    out += "#\n";
    out += fmt::sprintf("# Collective test concluded: %s\n", binary);
    if (o.memory > 0 && r.gpu_memory) {  // nccl-tests -M: after "concluded" (common.cu writeMemInfo)
      out += memory_usage_line(r.gpu_memory->init_bytes, r.gpu_memory->user_bytes,
                               r.gpu_memory->collective_bytes) +
             "\n";
    }
    out += "#\n\n";
  }
  if (r.topology.nranks == 1) {
    out +=
        "# fabcheck note: 1 rank: busBw is 0 by definition for collectives with an (n-1)/n factor; launch "
        "with "
        "mpirun -np N\n";
  }
  return out;
}

std::string render_sweep_compact(const SweepResult& r) {
  const auto& o = r.options;
  std::string out = fmt::format(
      "# sweeps: {} ranks, {} backend, {}..{}, -n {} -w {}, check {} (nccl-tests tables: --verbose)\n",
      r.topology.nranks, o.backend, core::format_size(o.min_bytes), core::format_size(o.max_bytes), o.iters,
      o.warmup_iters, o.check);
  for (const auto& b : r.blocks) {
    if (b.points.empty()) continue;
    double peak = -1;
    std::uint64_t peak_at = 0, wrong = 0;
    bool checked = false;
    std::vector<int> ranks;
    for (const auto& p : b.points) {
      for (const auto* pr : {&p.out_of_place, &p.in_place}) {
        if (pr->busbw_gbps > peak) {
          peak = pr->busbw_gbps;
          peak_at = p.size_bytes;
        }
        if (pr->wrong) {
          checked = true;
          wrong += *pr->wrong;
        }
        for (int k : pr->wrong_ranks)
          if (std::find(ranks.begin(), ranks.end(), k) == ranks.end()) ranks.push_back(k);
      }
    }
    std::sort(ranks.begin(), ranks.end());
    const auto& last = b.points.back();
    std::string check = !checked ? "not checked" : wrong == 0 ? "0 wrong" : fmt::format("{} WRONG", wrong);
    if (!ranks.empty()) check += fmt::format(" on rank(s) {}", fmt::join(ranks, ","));
    if (b.truncated_from_bytes)
      check += fmt::format("; sizes from {} not measured (time limit)",
                           core::format_size(*b.truncated_from_bytes));
    out += fmt::format(
        "#   {:<13} {:<8} {:<4} busBw peak {} GB/s at {}, {} GB/s at {}, avg {} GB/s; data check {}\n",
        core::name(b.collective), core::name(b.dtype), redop_name(b), nccl_float(peak, 6),
        core::format_size(peak_at), nccl_float(last.out_of_place.busbw_gbps, 6),
        core::format_size(last.size_bytes), nccl_float(b.avg_busbw_gbps, 6), check);
  }
  return out;
}

}  // namespace fabcheck::report
