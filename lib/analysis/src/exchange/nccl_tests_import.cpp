#include "fabcheck/report/nccl_tests_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/report/sweep_json.hpp"

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
  SweepPointFields f;
  f.size_bytes = r.size_bytes;
  f.count = r.count;
  f.cycle = cycle;
  f.placement = placement;
  f.time_us = b.time_us.value;
  f.algbw_gbps = b.algbw_gbps.value;
  f.busbw_gbps = b.busbw_gbps.value;
  if (b.wrong) {
    f.wrong = *b.wrong;
  } else {
    f.wrong_reason = legacy ? "legacy nccl-tests (<= 2.11) prints the max deviation ('error'), not a count"
                            : "not checked (N/A in the file)";
  }
  f.per_iter_reason = fmt::format("imported from {}: no per-iteration samples", format);
  json j = sweep_point_json(f);
  j["busbw_recomputed_gbps"] = k.recomputed_gbps;
  j["busbw_agrees"] = k.agrees;
  if (!b.wrong && legacy && b.legacy_error) j["legacy_error"] = *b.legacy_error;
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

/// What the tables add up to over the run: the `sweeps[]` entries and the evidence of the findings.
struct ImportAcc {
  json sweeps = json::array();
  json mismatches = json::array();  ///< BUSBW_MISMATCH evidence (the first 20)
  json wrong_rows = json::array();  ///< WRONG_DATA evidence (the first 50)
  double total_wrong = 0;
  std::size_t failed_checks = 0;
  std::vector<std::string> incomplete;  ///< IMPORT_INCOMPLETE problems
  json inferred = json::array();        ///< IMPORT_COLLECTIVE_INFERRED evidence
  std::set<std::string> layouts;        ///< table layouts seen (run.imported.layouts)
  std::set<std::string> zero_factor;    ///< collectives with busBw factor 0 at the rank count (SINGLE_RANK)
};

/// One table as its series see it: the table, its 1-based number, and its collective with the source of it.
struct TableCtx {
  const NcclTestsTable& t;
  std::size_t ti = 0;  ///< 0-based index (reported + 1)
  core::Collective coll = core::Collective::kAllReduce;
  std::string source;  ///< "file", "--coll", "inferred"
  bool legacy = false;
};

/// One (dtype, redop, root) series of a table, with the -N cycle of each row.
struct Series {
  std::string dtype, redop;
  int root;
  std::vector<const NcclTestsRow*> rows;
  std::vector<int> cycles;
};

/// Step 1: refuses a run without result rows (one line naming the file and what to give instead).
void require_rows(const NcclTestsRun& run, const ImportOptions& opts) {
  std::size_t total_rows = 0;
  for (const auto& t : run.tables) total_rows += t.rows.size();
  if (total_rows == 0) {
    throw UsageError(fmt::format(
        "import {}: no nccl-tests result rows found (give the console output or -J file of an nccl-tests or "
        "fabcheck sweep run that got past its header, or a perftest, OSU or IMB output)",
        opts.file));
  }
}

/// Step 2: the rank count: --nranks, else the devices of rank 0's group, else inferred from the numbers.
void resolve_nranks(ImportSummary& sum, const NcclTestsRun& run, const ImportOptions& opts) {
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
}

/// Step 3, per table: the collective: the file's own name, else --coll, else inferred from the columns (the
/// inference joins the IMPORT_COLLECTIVE_INFERRED evidence).
TableCtx table_collective(ImportAcc& a, const NcclTestsTable& t, std::size_t ti,
                          const std::vector<const NcclTestsRow*>& rows, int n, const ImportOptions& opts) {
  TableCtx c{t, ti, core::Collective::kAllReduce, "", t.layout.starts_with("legacy")};
  std::optional<core::Collective> named;
  if (!t.program.empty()) named = collective_of_program(t.program, opts.file);
  if (named) {
    if (opts.collective && *opts.collective != *named) {
      throw UsageError(fmt::format("--coll: {} contradicts {}, which names its collective {} (drop --coll)",
                                   core::name(*opts.collective), opts.file, t.program));
    }
    c.coll = *named;
    c.source = "file";
  } else if (opts.collective) {
    c.coll = *opts.collective;
    c.source = "--coll";
  } else {
    const auto inf = infer_collective(t, rows, n);
    c.coll = inf.collective;
    c.source = "inferred";
    a.inferred.push_back({{"table", ti + 1}, {"collective", core::name(c.coll)}, {"because", inf.why}});
  }
  return c;
}

/// Step 4, per table: one series per (dtype, redop, root) in order of first appearance; a size that does not
/// grow starts a new -N cycle of its series.
std::vector<Series> split_series(const std::vector<const NcclTestsRow*>& rows) {
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
  return series;
}

/// The evidence one placement block adds: a busBw that disagrees with the recomputation, wrong elements.
void record_block(ImportAcc& a, ImportSummary& sum, const TableCtx& c, const Series& s, const NcclTestsRow& r,
                  const parse::NcclTestsBlock& b, const BusbwCheck& k, const char* placement) {
  if (!k.agrees) {
    ++sum.mismatches;
    if (a.mismatches.size() < 20) {
      a.mismatches.push_back({{"collective", core::name(c.coll)},
                              {"size_bytes", r.size_bytes},
                              {"placement", placement},
                              {"file_busbw_gbps", k.file_gbps},
                              {"recomputed_busbw_gbps", k.recomputed_gbps},
                              {"tolerance_gbps", k.tolerance_gbps},
                              {"line", r.line}});
    }
  }
  if (b.wrong && *b.wrong > 0) {
    a.total_wrong += *b.wrong;
    ++a.failed_checks;
    if (a.wrong_rows.size() < 50) {
      a.wrong_rows.push_back({{"collective", core::name(c.coll)},
                              {"dtype", s.dtype},
                              {"redop", s.redop},
                              {"size_bytes", r.size_bytes},
                              {"placement", placement},
                              {"wrong", *b.wrong}});
    }
  }
}

/// Step 5, per series: its points (every placement block with its busBw check) and its `sweeps[]` entry
/// through the one writer (report/sweep_json.hpp), plus the importer's own fields.
void add_series(ImportAcc& a, ImportSummary& sum, const NcclTestsRun& run, const TableCtx& c, const Series& s,
                bool only_series, int n) {
  ImportedSweep is;
  is.collective = c.coll;
  is.collective_source = c.source;
  is.dtype = s.dtype;
  is.redop = s.redop;
  is.root = s.root;
  is.rows = s.rows.size();
  json points = json::array();
  core::BusbwMean mean;
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    const auto& r = *s.rows[i];
    const std::pair<const parse::NcclTestsBlock*, const char*> blocks[] = {
        {r.out_of_place ? &*r.out_of_place : nullptr, "out_of_place"}, {&r.in_place, "in_place"}};
    for (const auto& [b, placement] : blocks) {
      if (!b) continue;
      const auto k = check_block(*b, r.size_bytes, c.coll, n, placement);
      is.checks.push_back(k);
      points.push_back(point_json(r, *b, k, s.cycles[i], placement, run.format, c.legacy));
      mean.add(b->busbw_gbps.value);
      record_block(a, sum, c, s, r, *b, k, placement);
    }
  }
  // The file's own `# Avg bus bandwidth` (nccl-tests src/common.cu: the mean busBw of every printed block of
  // the run) is kept exactly as printed when this series is all the table holds; the mean of the printed
  // (rounded) rows sits beside it as avg_busbw_recomputed_gbps.
  const double recomputed = mean.value().value_or(0.0);
  const auto& t = c.t;
  const bool printed = t.avg_busbw_gbps && only_series;
  SweepSeriesFields f;
  f.collective = core::name(c.coll);
  f.dtype = s.dtype;
  if (!s.redop.empty() && s.redop != "none") f.redop = s.redop;
  if (s.root >= 0) f.root = s.root;
  f.nranks = n;
  f.busbw_factor = core::busbw_factor(c.coll, n);
  f.avg_busbw_gbps = printed ? t.avg_busbw_gbps->value : recomputed;
  json e = sweep_series_json(f, std::move(points));
  e["avg_busbw_source"] = printed ? "file" : "recomputed";
  e["avg_busbw_recomputed_gbps"] = recomputed;
  e["imported"] = {{"table", c.ti + 1}, {"layout", t.layout}, {"collective_source", c.source}};
  if (!t.program.empty()) e["imported"]["program"] = t.program;
  if (t.avg_busbw_gbps) e["imported"]["file_avg_busbw_gbps"] = t.avg_busbw_gbps->value;
  a.sweeps.push_back(std::move(e));
  sum.sweeps.push_back(std::move(is));
}

/// Steps 3-5 for one table, and what the table itself lacks (footer, cut rows, legacy out-of-bounds count).
void add_table(ImportAcc& a, ImportSummary& sum, const NcclTestsRun& run, std::size_t ti,
               const ImportOptions& opts) {
  const auto& t = run.tables[ti];
  const int n = sum.nranks;
  if (t.rows.empty()) {
    a.incomplete.push_back(fmt::format("table {} has a header but no rows", ti + 1));
    return;
  }
  a.layouts.insert(t.layout);
  std::vector<const NcclTestsRow*> rows;
  for (const auto& r : t.rows) rows.push_back(&r);
  const TableCtx c = table_collective(a, t, ti, rows, n, opts);
  if (core::busbw_factor(c.coll, n) == 0.0) a.zero_factor.insert(std::string(core::name(c.coll)));
  const auto series = split_series(rows);
  for (const auto& s : series) add_series(a, sum, run, c, s, series.size() == 1, n);
  if (!t.avg_busbw_gbps) a.incomplete.push_back(fmt::format("table {} has no footer", ti + 1));
  if (t.partial_rows > 0) {
    a.incomplete.push_back(fmt::format("table {} has {} row(s) cut short", ti + 1, t.partial_rows));
  }
  if (c.legacy && t.out_of_bounds && *t.out_of_bounds > 0) {
    ++a.failed_checks;
    a.wrong_rows.push_back({{"collective", core::name(c.coll)}, {"out_of_bounds", *t.out_of_bounds}});
  }
}

/// Step 6: `topology` from the device lines (rank 0's group); the backend is mpi only for fabcheck's own
/// host-buffer sweeps.
void write_topology(Document& doc, const NcclTestsRun& run, const ImportSummary& sum) {
  json hosts = json::array();
  json devices = json::array();
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
  const bool host_buffers = run.format == "fabcheck-sweep-text" && !run.devices.empty() &&
                            run.devices.front().name.find("host buffers") != std::string::npos;
  json& j = doc.json();
  j["topology"] = {{"nranks", sum.nranks},
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
}

/// Step 7: `run.imported` (where it came from), the preamble as run.config.sweep, and the convention.
void write_run(Document& doc, const NcclTestsRun& run, const ImportOptions& opts,
               const std::set<std::string>& layouts) {
  json& j = doc.json();
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
}

/// Step 8: the findings on the numbers: BUSBW_MISMATCH (warn), WRONG_DATA (fail), SINGLE_RANK (warn).
void add_number_findings(Document& doc, const ImportAcc& a, const ImportSummary& sum) {
  const int n = sum.nranks;
  if (sum.mismatches > 0) {
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "BUSBW_MISMATCH";
    std::size_t blocks = 0;
    for (const auto& s : sum.sweeps) blocks += s.checks.size();
    f.message = fmt::format(
        "{} of {} imported busBw value(s) disagree with size/time x factor(n={}) at the file's precision",
        sum.mismatches, blocks, n);
    f.evidence = {{"nranks", n}, {"nranks_source", sum.nranks_source}, {"mismatches", a.mismatches}};
    f.remedy =
        "check the rank count (--nranks, -g/-t, NCCL_TESTS_SPLIT groups) and the collective (--coll); "
        "nccl-tests before mid-2020 folded (n-1)/n into allgather/reducescatter algbw; an edited file also "
        "shows here";
    doc.add_finding(f);
  }
  if (a.total_wrong > 0 || a.failed_checks > 0) {
    Finding f;
    f.severity = Severity::kFail;
    f.code = "WRONG_DATA";
    f.message =
        fmt::format("the imported run reports wrong data: {} element(s) in {} checked row placement(s)",
                    a.total_wrong, a.failed_checks);
    f.evidence = {
        {"total_wrong", a.total_wrong}, {"failed_checks", a.failed_checks}, {"checks", a.wrong_rows}};
    f.remedy =
        "re-run with -c 5 to see whether it is intermittent, then bisect the hosts (a faulty NIC, GPU, "
        "memory "
        "or firmware corrupts data silently)";
    doc.add_finding(f);
  }
  if (n == 1 && !a.zero_factor.empty()) {
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "SINGLE_RANK";
    f.message =
        fmt::format("only 1 rank: busBw is 0 by definition for {} (factor (n-1)/n); nothing crossed a link",
                    fmt::join(a.zero_factor, ", "));
    f.evidence = {{"nranks", 1}, {"nranks_source", sum.nranks_source}};
    f.remedy =
        "a non-MPI nccl-tests build (make MPI=1) or a wrong launch runs each process alone: rebuild with "
        "MPI=1 "
        "and launch one rank per GPU";
    doc.add_finding(f);
  }
}

/// Step 9: the findings on the input: IMPORT_ROWS_DROPPED (warn: rows the file printed that could not be
/// read), IMPORT_INCOMPLETE (warn: no footer, cut rows, failure lines), IMPORT_COLLECTIVE_INFERRED
/// (info).
void add_input_findings(Document& doc, const ImportAcc& a, const NcclTestsRun& run) {
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
    const std::size_t line = first.value("line", std::size_t{0});
    f.message =
        fmt::format("{} row(s) of the file could not be read and were not imported (first: {})", dropped,
                    line > 0 ? fmt::format("line {}", line) : first.value("text", std::string()));
    f.evidence = {{"dropped_rows", dropped}, {"first", first}};
    f.remedy =
        "look at those lines of the original output (a non-finite or negative number, a garbled row); "
        "re-run the test if the file was damaged";
    doc.add_finding(f);
  }
  if (!a.incomplete.empty() || !run.errors.empty()) {
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "IMPORT_INCOMPLETE";
    f.message = fmt::format("the imported run did not finish cleanly: {}",
                            a.incomplete.empty() ? std::string("it printed failure lines")
                                                 : fmt::format("{}", fmt::join(a.incomplete, "; ")));
    f.evidence = {{"problems", a.incomplete}, {"errors", run.errors}};
    f.remedy = "look at the failure lines of the original run (NCCL_DEBUG=INFO) and re-run it to completion";
    doc.add_finding(f);
  }
  if (!a.inferred.empty()) {
    Finding f;
    f.severity = Severity::kInfo;
    f.code = "IMPORT_COLLECTIVE_INFERRED";
    f.message = fmt::format("the file does not name its collective; read as {} from its columns",
                            a.inferred[0]["collective"].get<std::string>());
    f.evidence = {{"tables", a.inferred}};
    f.remedy = "give --coll NAME if that is wrong (nccl-tests >= 2.16.7 prints '# Collective test starting')";
    doc.add_finding(f);
  }
}

}  // namespace

ImportSummary add_import(Document& doc, const NcclTestsRun& run, const ImportOptions& opts) {
  require_rows(run, opts);
  ImportSummary sum;
  resolve_nranks(sum, run, opts);
  ImportAcc a;
  for (std::size_t ti = 0; ti < run.tables.size(); ++ti) add_table(a, sum, run, ti, opts);
  set_sweeps(doc, std::move(a.sweeps));
  write_topology(doc, run, sum);
  write_run(doc, run, opts, a.layouts);
  add_skipped_sections(doc, run.format);
  add_number_findings(doc, a, sum);
  add_input_findings(doc, a, run);
  return sum;
}

}  // namespace fabcheck::report
