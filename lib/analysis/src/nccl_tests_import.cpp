#include "fabcheck/report/nccl_tests_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "fabcheck/core/error.hpp"

namespace fabcheck::report {

namespace {

using nlohmann::json;
using parse::NcclTestsRow;
using parse::NcclTestsRun;
using parse::NcclTestsTable;

/// Element size of an nccl-tests type name (including the types fabcheck does not measure); 0 when unknown.
std::size_t elt_size(const std::string& dtype) {
  if (auto d = core::parse_dtype(dtype)) return core::dtype_size(*d);
  static const std::map<std::string, std::size_t, std::less<>> extra = {
      {"half", 2}, {"float16", 2}, {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1}};
  const auto it = extra.find(dtype);
  return it == extra.end() ? 0 : it->second;
}

/// Program name → collective: strips the directory, `NAME_SUFFIX` `_mpi`. nullopt when not a known binary.
std::optional<core::Collective> collective_of_program(std::string name, const std::string& file) {
  if (const auto slash = name.find_last_of('/'); slash != std::string::npos) name = name.substr(slash + 1);
  if (name.ends_with("_mpi")) name.resize(name.size() - 4);
  if (name == "hypercube_perf" || name == "alltoallv_perf" || name == "hypercube" || name == "alltoallv") {
    throw UsageError(fmt::format(
        "import {}: {} is not a collective fabcheck models (its busBw rule differs); import the other "
        "collectives' output",
        file, name));
  }
  if (!name.ends_with("_perf")) return std::nullopt;
  return core::parse_collective(name);
}

/// busBw/algBw of the largest row with algBw ≥ 1 GB/s (enough printed digits), nullopt when none.
std::optional<double> bw_ratio(const std::vector<const NcclTestsRow*>& rows) {
  const NcclTestsRow* best = nullptr;
  for (const auto* r : rows) {
    if (r->in_place.algbw_gbps.value >= 1.0 && (!best || r->size_bytes > best->size_bytes)) best = r;
  }
  if (!best) return std::nullopt;
  return best->in_place.busbw_gbps.value / best->in_place.algbw_gbps.value;
}

/// size/(count·elt) of the first row with a count, nullopt when none.
std::optional<double> size_ratio(const std::vector<const NcclTestsRow*>& rows) {
  for (const auto* r : rows) {
    const auto e = elt_size(r->dtype);
    if (r->count > 0 && e > 0) {
      return static_cast<double>(r->size_bytes) / (static_cast<double>(r->count) * static_cast<double>(e));
    }
  }
  return std::nullopt;
}

struct Inferred {
  core::Collective collective = core::Collective::kAllReduce;
  std::string why;  ///< what the inference rests on (finding evidence)
};

/// Infers the collective of a table that does not name it, from the columns nccl-tests prints (redop
/// `none` or an op, root, size = count·elt or n·count·elt) and the busBw/algBw ratio.
Inferred infer_collective(const NcclTestsTable& t, const std::vector<const NcclTestsRow*>& rows, int nranks) {
  using core::Collective;
  const auto& r0 = *rows.front();
  const auto sr = size_ratio(rows);
  const bool split = sr && nranks > 1 && std::abs(*sr - nranks) < 1e-9;
  const bool reduces = t.has_redop_column && !r0.redop.empty() && r0.redop != "none";
  const bool rooted = t.has_root_column && r0.root >= 0;
  const auto ratio = bw_ratio(rows);
  Inferred out;
  if (rooted) {
    out.collective = reduces ? Collective::kReduce : split ? Collective::kGather : Collective::kBroadcast;
    out.why = fmt::format("root {} and redop {}{}", r0.root, reduces ? r0.redop : "none",
                          split ? ", size = nranks x count x elt (gather or scatter)" : "");
    return out;
  }
  if (reduces) {
    if (split) {
      out.collective = Collective::kReduceScatter;
      out.why = fmt::format("redop {}, no root, size = nranks x count x elt", r0.redop);
    } else if (ratio && nranks > 2 && std::abs(*ratio - 1.0) < 0.02) {
      out.collective = Collective::kSendRecv;
      out.why =
          fmt::format("redop {}, size = count x elt, busbw/algbw = {:.3f} (factor 1)", r0.redop, *ratio);
    } else {
      out.collective = Collective::kAllReduce;
      out.why = fmt::format("redop {}, no root, size = count x elt{}", r0.redop,
                            nranks == 2 ? " (sendrecv prints the same with 2 ranks)" : "");
    }
    return out;
  }
  if (!t.has_redop_column && !split) {
    out.collective = Collective::kSendRecv;  // legacy tables: no redop column for all_gather and sendrecv
    out.why = "legacy table without redop column, size = count x elt";
    return out;
  }
  out.collective = Collective::kAllGather;
  out.why = "redop none, no root, size = nranks x count x elt (alltoall prints the same)";
  return out;
}

/// Rank count of the run: distinct ranks in rank 0's NCCL_TESTS_SPLIT group.
std::optional<int> nranks_from_devices(const NcclTestsRun& run) {
  if (run.devices.empty()) return std::nullopt;
  int group = run.devices.front().group;
  for (const auto& d : run.devices) {
    if (d.rank == 0) group = d.group;
  }
  std::set<int> ranks;
  for (const auto& d : run.devices) {
    if (d.group == group) ranks.insert(d.rank);
  }
  return static_cast<int>(ranks.size());
}

/// Rank count from the numbers when the file lists no devices: size ratio of split collectives, else the
/// busBw/algBw ratio of allreduce (2(n−1)/n) or an (n−1)/n collective.
std::optional<int> nranks_from_rows(const std::vector<const NcclTestsRow*>& rows,
                                    std::optional<core::Collective> c) {
  const auto sr = size_ratio(rows);
  if (sr && *sr > 1.5 && std::abs(*sr - std::round(*sr)) < 1e-9) return static_cast<int>(std::round(*sr));
  const auto ratio = bw_ratio(rows);
  if (!ratio) return std::nullopt;
  const bool allreduce = !c || *c == core::Collective::kAllReduce;
  const double n = allreduce ? 2.0 / (2.0 - *ratio) : 1.0 / (1.0 - *ratio);
  if (!std::isfinite(n) || n < 1 || n > 1e6) return std::nullopt;
  return static_cast<int>(std::lround(n));
}

BusbwCheck check_block(const parse::NcclTestsBlock& b, std::uint64_t size, core::Collective c, int n,
                       const char* placement) {
  BusbwCheck k;
  k.size_bytes = size;
  k.placement = placement;
  k.file_gbps = b.busbw_gbps.value;
  const double t = b.time_us.value;
  if (t <= 0) {
    // nccl-tests prints 0 bandwidth for a zero time (nothing measurable); nothing to recompute.
    k.recomputed_gbps = 0;
    k.tolerance_gbps = b.busbw_gbps.half_ulp;
    k.agrees = std::abs(k.file_gbps) <= k.tolerance_gbps;
    return k;
  }
  const double alg = core::algbw_gbps(size, t * 1e-6);
  k.recomputed_gbps = core::busbw_gbps(c, n, alg);
  // The printed busBw carries half an ulp; the printed time carries its own half ulp, which moves the
  // recomputed value by recomputed · (half_ulp_t / t). A hair of slack for binary floating point.
  k.tolerance_gbps = b.busbw_gbps.half_ulp + k.recomputed_gbps * (b.time_us.half_ulp / t) +
                     1e-9 * std::max(1.0, std::abs(k.recomputed_gbps));
  k.agrees = std::abs(k.file_gbps - k.recomputed_gbps) <= k.tolerance_gbps;
  return k;
}

json point_json(const NcclTestsRow& r, const parse::NcclTestsBlock& b, const BusbwCheck& k, int cycle,
                const char* placement, const std::string& format, bool legacy) {
  json j = {{"size_bytes", r.size_bytes},
            {"count", r.count},
            {"cycle", cycle},
            {"placement", placement},
            {"time_us", b.time_us.value},
            {"algbw_gbps", b.algbw_gbps.value},
            {"busbw_gbps", b.busbw_gbps.value},
            {"wrong", nullptr},
            {"per_iter", nullptr},
            {"per_iter_reason", fmt::format("imported from {}: no per-iteration samples", format)},
            {"busbw_recomputed_gbps", k.recomputed_gbps},
            {"busbw_agrees", k.agrees}};
  if (b.wrong) {
    j["wrong"] = *b.wrong;
  } else if (legacy) {
    j["wrong_reason"] = "legacy nccl-tests (<= 2.11) prints the max deviation ('error'), not a count";
    if (b.legacy_error) j["legacy_error"] = *b.legacy_error;
  } else {
    j["wrong_reason"] = "not checked (N/A in the file)";
  }
  if (r.line > 0) j["line"] = r.line;
  return j;
}

void add_skipped_sections(Document& doc, const std::string& format) {
  const std::string why = fmt::format("not measured: imported from {} (sweeps only)", format);
  for (const char* s : {"inventory", "transport", "latency", "incast", "pairs", "scaling"}) {
    if (!doc.json().contains(s)) doc.json()[s] = nullptr;
    if (doc.json()[s].is_null()) doc.set_section(s, SectionStatus::kSkipped, why);
  }
}

}  // namespace

ImportSummary add_import(Document& doc, const NcclTestsRun& run, const ImportOptions& opts) {
  std::size_t total_rows = 0;
  for (const auto& t : run.tables) total_rows += t.rows.size();
  if (total_rows == 0) {
    throw UsageError(fmt::format(
        "import {}: no nccl-tests result rows found (give the console output or -J file of an nccl-tests or "
        "fabcheck sweep run that got past its header, or a perftest, OSU or IMB output)",
        opts.file));
  }
  ImportSummary sum;
  // Rank count: --nranks, else the devices of rank 0's group, else inferred from the numbers.
  std::vector<const NcclTestsRow*> all_rows;
  for (const auto& t : run.tables) {
    for (const auto& r : t.rows) all_rows.push_back(&r);
  }
  if (opts.nranks) {
    sum.nranks = *opts.nranks;
    sum.nranks_source = "--nranks";
  } else if (auto n = nranks_from_devices(run)) {
    sum.nranks = *n;
    sum.nranks_source = "devices";
  } else if (auto m = nranks_from_rows(all_rows, opts.collective)) {
    sum.nranks = *m;
    sum.nranks_source = "inferred";
  } else {
    throw UsageError(fmt::format(
        "import {}: cannot tell the rank count (no '# Using devices' lines and no row to infer it from; give "
        "--nranks N)",
        opts.file));
  }
  const int n = sum.nranks;

  json& j = doc.json();
  json sweeps = json::array();
  json mismatches = json::array();
  json wrong_rows = json::array();
  double total_wrong = 0;
  std::size_t failed_checks = 0;
  std::vector<std::string> incomplete;
  json inferred = json::array();
  std::set<std::string> layouts;
  std::set<std::string> zero_factor;

  for (std::size_t ti = 0; ti < run.tables.size(); ++ti) {
    const auto& t = run.tables[ti];
    if (t.rows.empty()) {
      incomplete.push_back(fmt::format("table {} has a header but no rows", ti + 1));
      continue;
    }
    layouts.insert(t.layout);
    const bool legacy = t.layout.starts_with("legacy");
    std::vector<const NcclTestsRow*> rows;
    for (const auto& r : t.rows) rows.push_back(&r);
    // Collective: the file's own name, else --coll, else inferred.
    std::optional<core::Collective> named;
    if (!t.program.empty()) named = collective_of_program(t.program, opts.file);
    core::Collective coll;
    std::string source;
    if (named) {
      if (opts.collective && *opts.collective != *named) {
        throw UsageError(fmt::format("--coll: {} contradicts {}, which names its collective {} (drop --coll)",
                                     core::name(*opts.collective), opts.file, t.program));
      }
      coll = *named;
      source = "file";
    } else if (opts.collective) {
      coll = *opts.collective;
      source = "--coll";
    } else {
      const auto inf = infer_collective(t, rows, n);
      coll = inf.collective;
      source = "inferred";
      inferred.push_back({{"table", ti + 1}, {"collective", core::name(coll)}, {"because", inf.why}});
    }
    if (core::busbw_factor(coll, n) == 0.0) zero_factor.insert(std::string(core::name(coll)));

    // Series: one per (dtype, redop, root) in order of first appearance; a size that does not grow starts a
    // new -N cycle of its series.
    struct Series {
      std::string dtype, redop;
      int root;
      std::vector<const NcclTestsRow*> rows;
      std::vector<int> cycles;
    };
    std::vector<Series> series;
    for (const auto* r : rows) {
      auto it = std::find_if(series.begin(), series.end(), [&](const Series& s) {
        return s.dtype == r->dtype && s.redop == r->redop && s.root == r->root;
      });
      if (it == series.end()) {
        series.push_back({r->dtype, r->redop, r->root, {}, {}});
        it = series.end() - 1;
      }
      int cycle = it->cycles.empty() ? 0 : it->cycles.back();
      if (!it->rows.empty() && r->size_bytes <= it->rows.back()->size_bytes &&
          !(r->size_bytes == 0 && it->rows.back()->size_bytes == 0)) {
        ++cycle;
      }
      it->rows.push_back(r);
      it->cycles.push_back(cycle);
    }
    for (const auto& s : series) {
      ImportedSweep is;
      is.collective = coll;
      is.collective_source = source;
      is.dtype = s.dtype;
      is.redop = s.redop;
      is.root = s.root;
      is.rows = s.rows.size();
      json points = json::array();
      double bw_sum = 0;
      std::size_t bw_n = 0;
      for (std::size_t i = 0; i < s.rows.size(); ++i) {
        const auto& r = *s.rows[i];
        const std::pair<const parse::NcclTestsBlock*, const char*> blocks[] = {
            {r.out_of_place ? &*r.out_of_place : nullptr, "out_of_place"}, {&r.in_place, "in_place"}};
        for (const auto& [b, placement] : blocks) {
          if (!b) continue;
          const auto k = check_block(*b, r.size_bytes, coll, n, placement);
          is.checks.push_back(k);
          points.push_back(point_json(r, *b, k, s.cycles[i], placement, run.format, legacy));
          bw_sum += b->busbw_gbps.value;
          ++bw_n;
          if (!k.agrees) {
            ++sum.mismatches;
            if (mismatches.size() < 20) {
              mismatches.push_back({{"collective", core::name(coll)},
                                    {"size_bytes", r.size_bytes},
                                    {"placement", placement},
                                    {"file_busbw_gbps", k.file_gbps},
                                    {"recomputed_busbw_gbps", k.recomputed_gbps},
                                    {"tolerance_gbps", k.tolerance_gbps},
                                    {"line", r.line}});
            }
          }
          if (b->wrong && *b->wrong > 0) {
            total_wrong += *b->wrong;
            ++failed_checks;
            if (wrong_rows.size() < 50) {
              wrong_rows.push_back({{"collective", core::name(coll)},
                                    {"dtype", s.dtype},
                                    {"redop", s.redop},
                                    {"size_bytes", r.size_bytes},
                                    {"placement", placement},
                                    {"wrong", *b->wrong}});
            }
          }
        }
      }
      // The file's own `# Avg bus bandwidth` (nccl-tests.md §3: the mean busBw of every printed block of the
      // run) is kept exactly as printed when this series is all the table holds (issue 18, class 11); the
      // mean of the printed (rounded) rows sits beside it as avg_busbw_recomputed_gbps.
      const double recomputed = bw_n ? bw_sum / static_cast<double>(bw_n) : 0.0;
      const bool printed = t.avg_busbw_gbps && series.size() == 1;
      json e = {{"collective", core::name(coll)},
                {"dtype", s.dtype},
                {"redop", nullptr},
                {"root", nullptr},
                {"nranks", n},
                {"busbw_factor", core::busbw_factor(coll, n)},
                {"avg_busbw_gbps", printed ? t.avg_busbw_gbps->value : recomputed},
                {"avg_busbw_source", printed ? "file" : "recomputed"},
                {"avg_busbw_recomputed_gbps", recomputed},
                {"points", points},
                {"imported", {{"table", ti + 1}, {"layout", t.layout}, {"collective_source", source}}}};
      if (!s.redop.empty() && s.redop != "none") e["redop"] = s.redop;
      if (s.root >= 0) e["root"] = s.root;
      if (!t.program.empty()) e["imported"]["program"] = t.program;
      if (t.avg_busbw_gbps) e["imported"]["file_avg_busbw_gbps"] = t.avg_busbw_gbps->value;
      sweeps.push_back(std::move(e));
      sum.sweeps.push_back(std::move(is));
    }
    if (!t.avg_busbw_gbps) incomplete.push_back(fmt::format("table {} has no footer", ti + 1));
    if (t.partial_rows > 0) {
      incomplete.push_back(fmt::format("table {} has {} row(s) cut short", ti + 1, t.partial_rows));
    }
    if (legacy && t.out_of_bounds && *t.out_of_bounds > 0) {
      ++failed_checks;
      wrong_rows.push_back({{"collective", core::name(coll)}, {"out_of_bounds", *t.out_of_bounds}});
    }
  }
  j["sweeps"] = sweeps;
  doc.set_section("sweeps", SectionStatus::kOk);

  // Topology from the device lines (rank 0's group).
  json hosts = json::array();
  json devices = json::array();
  {
    std::vector<std::string> order;
    std::map<std::string, std::set<int>> ranks;
    for (const auto& d : run.devices) {
      devices.push_back({{"rank", d.rank},
                         {"group", d.group},
                         {"pid", d.pid},
                         {"host", d.host},
                         {"device", d.device},
                         {"bus", d.bus},
                         {"name", d.name}});
      if (!ranks.contains(d.host)) order.push_back(d.host);
      ranks[d.host].insert(d.rank);
    }
    for (const auto& h : order) hosts.push_back({{"host", h}, {"ranks", ranks[h]}});
  }
  const bool host_buffers = run.format == "fabcheck-sweep-text" && !run.devices.empty() &&
                            run.devices.front().name.find("host buffers") != std::string::npos;
  j["topology"] = {{"nranks", n},
                   {"nranks_source", sum.nranks_source},
                   {"hosts", hosts},
                   {"devices", devices},
                   {"backend", host_buffers ? "mpi" : "nccl"},
                   {"mpi_library", nullptr},
                   {"nccl_version", nullptr},
                   {"clock_offset_us_max", nullptr},
                   {"clock_error_us_max", nullptr},
                   {"clock_reason", "imported: no clock alignment in the file"}};
  if (!run.nccl_version.empty()) {
    j["topology"]["nccl_version"] = "NCCL " + run.nccl_version;
  } else {
    j["topology"]["nccl_version_reason"] = "not printed in the imported file";
  }

  // run: where it came from, and the preamble as the sweep config.
  json imported = {
      {"file", opts.file},
      {"format", run.format},
      {"layouts", layouts},
      {"nccl_tests_version", run.nccl_tests_version.empty() ? json() : json(run.nccl_tests_version)},
      {"tagged_output", run.tagged},
      {"tables", run.tables.size()},
      {"lines", run.lines},
      {"nccl_log_lines", run.nccl_lines},
      {"other_lines", run.other_lines},
      {"errors", run.errors},
      {"notes", run.notes}};
  if (run.format == "nccl-tests-json") {
    imported["json_version"] = run.json_version;
    imported["start_time"] = run.start_time;
    imported["args"] = run.args;
  }
  j["run"]["imported"] = imported;
  json cfg = json::object();
  auto put = [&](const char* key, const std::optional<std::int64_t>& v) {
    if (v) cfg[key] = *v;
  };
  put("nthreads", run.nthreads);
  put("ngpus", run.ngpus);
  put("minimum_bytes", run.min_bytes);
  put("maximum_bytes", run.max_bytes);
  put("step_factor", run.step_factor);
  put("step_bytes", run.step_bytes);
  put("warmup_iters", run.warmup_iters);
  put("iterations", run.iters);
  put("aggregated_iterations", run.agg_iters);
  put("validation", run.validation);
  put("graph", run.graph);
  if (!j["run"]["config"].is_object()) j["run"]["config"] = json::object();
  j["run"]["config"]["sweep"] = cfg;
  j["conventions"]["imported"] =
      "sweeps imported from a file: time_us, algbw_gbps and busbw_gbps are the file's values; "
      "busbw_recomputed_gbps = size/1e9/(time_us*1e-6) * busbw_factor(collective, nranks); busbw_agrees "
      "compares them at the file's printed precision (half an ulp of busbw plus the time's rounding)";
  add_skipped_sections(doc, run.format);

  // Findings.
  if (sum.mismatches > 0) {
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "BUSBW_MISMATCH";
    std::size_t blocks = 0;
    for (const auto& s : sum.sweeps) blocks += s.checks.size();
    f.message = fmt::format(
        "{} of {} imported busBw value(s) disagree with size/time x factor(n={}) at the file's precision",
        sum.mismatches, blocks, n);
    f.evidence = {{"nranks", n}, {"nranks_source", sum.nranks_source}, {"mismatches", mismatches}};
    f.remedy =
        "check the rank count (--nranks, -g/-t, NCCL_TESTS_SPLIT groups) and the collective (--coll); "
        "nccl-tests before mid-2020 folded (n-1)/n into allgather/reducescatter algbw; an edited file also "
        "shows here";
    doc.add_finding(f);
  }
  if (total_wrong > 0 || failed_checks > 0) {
    Finding f;
    f.severity = Severity::kFail;
    f.code = "WRONG_DATA";
    f.message =
        fmt::format("the imported run reports wrong data: {} element(s) in {} checked row placement(s)",
                    total_wrong, failed_checks);
    f.evidence = {{"total_wrong", total_wrong}, {"failed_checks", failed_checks}, {"checks", wrong_rows}};
    f.remedy =
        "re-run with -c 5 to see whether it is intermittent, then bisect the hosts (a faulty NIC, GPU, "
        "memory "
        "or firmware corrupts data silently)";
    doc.add_finding(f);
  }
  if (n == 1 && !zero_factor.empty()) {
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "SINGLE_RANK";
    f.message =
        fmt::format("only 1 rank: busBw is 0 by definition for {} (factor (n-1)/n); nothing crossed a link",
                    fmt::join(zero_factor, ", "));
    f.evidence = {{"nranks", 1}, {"nranks_source", sum.nranks_source}};
    f.remedy =
        "a non-MPI nccl-tests build (make MPI=1) or a wrong launch runs each process alone: rebuild with "
        "MPI=1 "
        "and launch one rank per GPU";
    doc.add_finding(f);
  }
  {
    // Rows the file printed that could not be imported (issue 19): said, with the count and the first one.
    std::size_t dropped = 0;
    json first = nullptr;
    for (const auto& t : run.tables) {
      dropped += t.rejected_rows;
      if (t.rejected_rows && first.is_null())
        first = {{"line", t.first_rejected_line}, {"text", t.first_rejected}};
    }
    if (dropped > 0) {
      Finding f;
      f.severity = Severity::kWarn;
      f.code = "IMPORT_ROWS_DROPPED";
      f.message =
          fmt::format("{} row(s) of the file could not be read and were not imported (first: line {})",
                      dropped, first.value("line", 0));
      f.evidence = {{"dropped_rows", dropped}, {"first", first}};
      f.remedy =
          "look at those lines of the original output (a non-finite or negative number, a garbled row); "
          "re-run the test if the file was damaged";
      doc.add_finding(f);
    }
  }
  if (!incomplete.empty() || !run.errors.empty()) {
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "IMPORT_INCOMPLETE";
    f.message = fmt::format("the imported run did not finish cleanly: {}",
                            incomplete.empty() ? std::string("it printed failure lines")
                                               : fmt::format("{}", fmt::join(incomplete, "; ")));
    f.evidence = {{"problems", incomplete}, {"errors", run.errors}};
    f.remedy = "look at the failure lines of the original run (NCCL_DEBUG=INFO) and re-run it to completion";
    doc.add_finding(f);
  }
  if (!inferred.empty()) {
    Finding f;
    f.severity = Severity::kInfo;
    f.code = "IMPORT_COLLECTIVE_INFERRED";
    f.message = fmt::format("the file does not name its collective; read as {} from its columns",
                            inferred[0]["collective"].get<std::string>());
    f.evidence = {{"tables", inferred}};
    f.remedy = "give --coll NAME if that is wrong (nccl-tests >= 2.16.7 prints '# Collective test starting')";
    doc.add_finding(f);
  }
  return sum;
}

}  // namespace fabcheck::report
