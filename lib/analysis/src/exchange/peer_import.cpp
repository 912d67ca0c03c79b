#include "fabcheck/report/peer_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/model/json_value.hpp"
#include "fabcheck/report/sweep_json.hpp"

namespace fabcheck::report {

namespace {

using nlohmann::json;
using parse::PeerRow;
using parse::PeerRun;
using parse::PeerTable;

std::optional<double> val(const PeerRow& r, const char* col) {
  const auto it = r.values.find(col);
  if (it == r.values.end()) return std::nullopt;
  return it->second.value;
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// What each tool's latency numbers are (their sources' definitions).
std::string latency_statistic(const PeerRun& run, const PeerTable& t) {
  if (run.tool == "perftest") {
    return "perftest: half the round trip per iteration (ib_*_lat ping-pong); mean_us = t_avg, p50_us = "
           "t_typical (the median of the samples), p99_us/p999_us = its 99%/99.9% percentiles, min/max/stdev "
           "as printed";
  }
  if (run.tool == "osu") {
    return "OSU: mean_us is OSU's headline, the mean half round trip (total time / iterations / 2); "
           "p50/p90/p99 only with -z (per-iteration times sorted ascending: true tails)";
  }
  return t.test == "PingPing"
             ? "IMB PingPing: mean time of one message while both ranks send at once (not a half round trip)"
             : "IMB PingPong: mean_us = t[usec], half the mean round trip over #repetitions";
}

struct LinkHosts {
  std::string from, to, source;
};

LinkHosts hosts_for(const std::string& path, const PeerImportOptions& opts) {
  if (opts.link) return {opts.link->first, opts.link->second, "--link"};
  if (auto h = hosts_from_file_name(path)) return {h->first, h->second, "file name"};
  const std::string stem = base_name(path);
  return {stem + ":local", stem + ":remote",
          "unknown: the output names no hosts (give --link A:B or name the file A_to_B.txt)"};
}

std::optional<core::Collective> collective_of(const std::string& test) {
  std::string n = test;
  if (n.starts_with("osu_")) n = n.substr(4);
  for (auto& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n == "bcast") n = "broadcast";
  if (n == "reduce_scatter") n = "reducescatter";
  return core::parse_collective(n);
}

/// Element size of an MPI datatype name; 0 unknown.
std::size_t mpi_elt(const std::string& d) {
  static const std::map<std::string, std::size_t> k = {{"MPI_CHAR", 1},  {"MPI_BYTE", 1},   {"MPI_INT", 4},
                                                       {"MPI_FLOAT", 4}, {"MPI_DOUBLE", 8}, {"MPI_LONG", 8}};
  const auto it = k.find(d);
  return it == k.end() ? 0 : it->second;
}

struct Acc {
  json latency = json::array();
  json links = json::array();
  json sweeps = json::array();
  std::vector<std::string> hosts;
  json wrong = json::array();
  json completion = json::array();
  json incomplete = json::array();
  json no_results = json::array();  ///< perftest runs that stopped before their result rows
  std::size_t dropped = 0;
  json first_dropped = nullptr;
  int nranks = 0;
};

void add_host(Acc& a, const std::string& h) {
  if (std::find(a.hosts.begin(), a.hosts.end(), h) == a.hosts.end()) a.hosts.push_back(h);
}

json imported_of(const PeerFile& f, const PeerTable& t, std::size_t ti) {
  json j = {{"file", f.path},   {"tool", f.run.tool}, {"format", f.run.format}, {"test", t.test},
            {"title", t.title}, {"table", ti + 1},    {"columns", t.columns}};
  if (!f.run.version.empty()) j["version"] = f.run.version;
  return j;
}

std::size_t add_latency(Acc& a, const PeerFile& f, const PeerTable& t, std::size_t ti) {
  const bool pingping = t.test == "PingPing";
  for (const auto& r : t.rows) {
    json e = {{"kind", "p2p"},
              {"pattern", pingping ? "pingping" : "ring"},
              {"pattern_source",
               "imported two-party ping-pong (rank 0 <-> rank 1): the one pair fabcheck's ring has with 2 "
               "ranks"},
              {"size_bytes", r.size_bytes},
              {"nranks", 2},
              {"members", "imported pair"},
              {"mean_us", model::number_or_null(val(r, "t_avg_us"))},
              {"p50_us", model::number_or_null(val(r, f.run.tool == "perftest" ? "t_typical_us" : "p50_us"))},
              {"p90_us", model::number_or_null(val(r, "p90_us"))},
              {"p99_us", model::number_or_null(val(r, "p99_us"))},
              {"p999_us", model::number_or_null(val(r, "p999_us"))},
              {"min_us", model::number_or_null(val(r, "t_min_us"))},
              {"max_us", model::number_or_null(val(r, "t_max_us"))},
              {"stdev_us", model::number_or_null(val(r, "t_stdev_us"))},
              {"samples", model::number_or_null(val(r, "iterations"))},
              {"percentile_source", "imported: the file's own statistics (no samples)"},
              {"statistic", latency_statistic(f.run, t)},
              {"histogram", json::array()},
              {"per_pair", json::array()},
              {"imported", imported_of(f, t, ti)}};
    e["imported"]["line"] = r.line;
    if (auto bw = val(r, "bw_avg")) {
      e["bw_gbps"] = to_gbps(*bw, t.bw_unit);
      e["bw_unit_in_file"] = t.bw_unit;
    }
    if (e["p50_us"].is_null()) e["p50_reason"] = "not printed by the tool (OSU prints P50 only with -z)";
    a.latency.push_back(std::move(e));
  }
  return t.rows.size();
}

std::size_t add_link(Acc& a, const PeerFile& f, const PeerTable& t, std::size_t ti,
                     const PeerImportOptions& opts) {
  const auto h = hosts_for(f.path, opts);
  add_host(a, h.from);
  add_host(a, h.to);
  std::string unit = t.bw_unit;
  if (f.run.format == "perftest-json" && opts.report_gbits) unit = "Gb/s";
  json points = json::array();
  const PeerRow* largest = nullptr;
  for (const auto& r : t.rows) {
    json p = {
        {"size_bytes", r.size_bytes},
        {"bw_gbps", model::number_or_null(val(r, "bw_avg") ? std::optional(to_gbps(*val(r, "bw_avg"), unit))
                                                           : std::nullopt)},
        {"bw_in_file", model::number_or_null(val(r, "bw_avg"))},
        {"line", r.line}};
    if (auto pk = val(r, "bw_peak")) p["bw_peak_gbps"] = to_gbps(*pk, unit);
    if (auto m = val(r, "msg_rate_mpps")) p["msg_rate_mpps"] = *m;
    if (auto m = val(r, "msg_rate_per_s")) p["msg_rate_mpps"] = *m / 1e6;
    if (auto it = val(r, "iterations")) p["iterations"] = *it;
    for (const char* q : {"bw_p50", "bw_p90", "bw_p99"}) {
      if (auto v = val(r, q)) p[std::string(q) + "_gbps"] = to_gbps(*v, unit);
    }
    if (!r.validation.empty()) p["validation"] = r.validation;
    points.push_back(std::move(p));
    if (!largest || r.size_bytes >= largest->size_bytes) largest = &r;
  }
  json e = {{"from", h.from},
            {"to", h.to},
            {"hosts_source", h.source},
            {"kind", t.bidirectional ? "bidirectional" : (t.pairs > 1 ? "aggregate" : "unidirectional")},
            {"tool", f.run.tool},
            {"test", t.test},
            {"unit_in_file", unit},
            {"unit_note", unit == "MiB/s"  ? "perftest MB/sec = MiB/s (2^20 B/s), x 1.048576e-3 to GB/s"
                          : unit == "Gb/s" ? "perftest --report_gbits Gb/sec = 1e9 bit/s, / 8 to GB/s"
                                           : "MB/s = 1e6 B/s, / 1000 to GB/s"},
            {"size_bytes", largest ? json(largest->size_bytes) : json(nullptr)},
            {"bw_gbps", largest && val(*largest, "bw_avg") ? json(to_gbps(*val(*largest, "bw_avg"), unit))
                                                           : json(nullptr)},
            {"bw_statistic", f.run.tool == "perftest" ? "BW average at the largest size (peak beside it)"
                                                      : "the file's bandwidth at the largest size"},
            {"points", points},
            {"imported", imported_of(f, t, ti)}};
  if (f.run.format == "perftest-json" && !opts.report_gbits) {
    e["unit_note"] = std::string(e["unit_note"]) +
                     " (the --out_json file does not name its unit: MiB/s assumed; give --report-gbits when "
                     "the run used --report_gbits)";
  }
  if (t.pairs > 0) e["pairs"] = t.pairs;
  if (std::any_of(t.columns.begin(), t.columns.end(), [](const auto& c) { return c.starts_with("bw_p"); })) {
    e["tail_note"] =
        "OSU -z sorts the per-iteration bandwidths ascending, so its P99 is the fastest 1 %, not a tail";
  }
  a.links.push_back(std::move(e));
  return t.rows.size();
}

std::size_t add_sweep(Acc& a, const PeerFile& f, const PeerTable& t, std::size_t ti,
                      const PeerImportOptions& opts) {
  const auto coll = collective_of(t.test);
  const bool reduces =
      t.test.find("reduce") != std::string::npos || t.test.find("Reduce") != std::string::npos;
  std::string dtype = f.run.tool == "imb" ? (reduces ? t.reduction_datatype : t.datatype) : t.datatype;
  if (dtype.empty()) dtype = f.run.tool == "imb" ? (reduces ? "MPI_FLOAT" : "MPI_BYTE") : "MPI_CHAR";
  std::optional<int> n;
  std::string n_source;
  if (t.processes > 0) {
    n = t.processes;
    n_source = "file (#processes)";
  } else if (opts.nranks) {
    n = *opts.nranks;
    n_source = "--nranks";
  }
  if (n) a.nranks = std::max(a.nranks, *n);
  // nccl-tests' size column S is count x elt for allreduce, broadcast and reduce — what OSU and IMB print
  // too; for the split collectives S is n x the per-rank size they print (DESIGN §3), so only these three
  // get a derived busBw.
  const bool same_s = coll && (*coll == core::Collective::kAllReduce ||
                               *coll == core::Collective::kBroadcast || *coll == core::Collective::kReduce);
  const std::string busbw_reason =
      !coll     ? "no nccl-tests bus-bandwidth definition for this collective"
      : !same_s ? "the file's size is the per-rank size; nccl-tests' busBw needs its own size definition"
      : !n      ? "rank count unknown (OSU does not print it: give --nranks)"
                : "";
  const std::size_t elt = mpi_elt(dtype);
  json points = json::array();
  core::BusbwMean mean;
  for (const auto& r : t.rows) {
    const auto tm = val(r, "t_avg_us");
    const auto defects = val(r, "defects");
    const bool derived = same_s && n && tm && *tm > 0;
    SweepPointFields pf;
    pf.size_bytes = r.size_bytes;
    if (elt) pf.count = r.size_bytes / elt;
    pf.placement = "out_of_place";
    pf.time_us = tm;
    if (derived) {
      pf.algbw_gbps = core::algbw_gbps(r.size_bytes, *tm * 1e-6);
      pf.busbw_gbps = core::busbw_gbps(*coll, *n, *pf.algbw_gbps);
      mean.add(*pf.busbw_gbps);
    }
    if (defects) {
      pf.wrong = *defects;
    } else {
      pf.wrong_reason = !r.validation.empty() ? "OSU -c prints Pass/Fail, not a count"
                                              : "not checked (the run printed no validation column)";
    }
    pf.per_iter_reason = fmt::format("imported from {}: no per-iteration samples", f.run.format);
    json p = sweep_point_json(pf);
    p["time_min_us"] = model::number_or_null(val(r, "t_min_us"));
    p["time_max_us"] = model::number_or_null(val(r, "t_max_us"));
    p["iterations"] = model::number_or_null(val(r, "iterations"));
    p["line"] = r.line;
    if (defects) {
      p["wrong_source"] = "IMB -DCHECK defects column";
    } else if (!r.validation.empty()) {
      p["validation"] = r.validation;
    }
    if (derived) {
      p["busbw_source"] = "derived: size / time x busbw_factor(collective, nranks) (DESIGN §3)";
    } else {
      p["busbw_reason"] = busbw_reason.empty() ? "zero time" : busbw_reason;
    }
    points.push_back(std::move(p));
  }
  SweepSeriesFields sf;
  sf.collective = coll ? std::string(core::name(*coll)) : t.test;
  sf.dtype = dtype;
  if (reduces) sf.redop = "sum";
  sf.nranks = n;
  if (coll && n) sf.busbw_factor = core::busbw_factor(*coll, *n);
  sf.avg_busbw_gbps = mean.value();
  json e = sweep_series_json(sf, std::move(points));
  e["nranks_source"] = n ? json(n_source) : json("unknown");
  e["avg_busbw_source"] = mean.count() ? json("derived") : json(nullptr);
  e["time_statistic"] =
      f.run.tool == "osu"
          ? "OSU Avg Latency: each rank's mean time per operation over the iterations, averaged over "
            "ranks (min/max beside it with -f); not nccl-tests' one timer around N back-to-back ops"
          : "IMB t_avg: each rank's mean time per operation over #repetitions, averaged over ranks "
            "(t_min/t_max beside it); not nccl-tests' one timer around N back-to-back ops";
  e["imported"] = imported_of(f, t, ti);
  if (!busbw_reason.empty()) e["busbw_reason"] = busbw_reason;
  a.sweeps.push_back(std::move(e));
  return t.rows.size();
}

/// What an `ibv_wc_status` says and what to do about it, one pair per status. Meanings after the InfiniBand
/// Architecture Specification vol. 1 §10.10.3 (completion error types) as ibv_poll_cq(3) and rdmamojo's
/// "ibv_poll_cq()" state them; enum order of libibverbs verbs.h. Statuses of the Reliable Datagram (3, 14,
/// 15, 17, 18) and of tag matching (22, 23) cannot come from perftest's RC/UC/UD tests and say so.
struct WcAdvice {
  const char* meaning;
  const char* remedy;
};

WcAdvice wc_advice(int s) {
  switch (s) {
    case 1:
      return {"local length error: a message longer than the receive buffer, or than the port MTU on UD",
              "make both sides use the same -s/-a sizes and the same MTU (-m, ibv_devinfo active_mtu); on UD "
              "keep messages within the MTU"};
    case 2:
      return {
          "local QP operation error: the work request broke a limit of its QP (scatter/gather entries, "
          "inline size)",
          "lower -I (inline size) or the post list (-l); check the device limits with ibv_devinfo -v"};
    case 4:
      return {
          "local protection: the local buffer is not registered for this access (the memory registration / "
          "GPUDirect path: peer memory, PCIe ACS, IOMMU), not the fabric",
          "check GPUDirect RDMA on this host: the nvidia-peermem (or nv_peer_mem) module, ACS off on the "
          "switches between GPU and NIC, IOMMU passthrough; re-run without --use_cuda to confirm the host "
          "path"};
    case 5:
      return {
          "work request flushed: the QP had already gone to the error state (a consequence of an earlier "
          "error)",
          "look at the first completion error before this one: it is the cause"};
    case 6:
      return {"memory window bind error", "check the memory window's access flags and its region's bounds"};
    case 7:
      return {"bad response: the responder answered with an unexpected transport opcode",
              "compare perftest and firmware versions on both sides (ibv_devinfo fw_ver); a mismatch or a "
              "faulty NIC on the remote side"};
    case 8:
      return {"local access error: the receive buffer of an RDMA write with immediate was not writable",
              "check the local memory registration (access flags); with --use_cuda the GPUDirect path"};
    case 9:
      return {
          "remote invalid request: the remote QP refused the request (an operation it does not allow, a "
          "message longer than its buffer)",
          "run the same test, sizes and connection type (-c) on both sides; check the remote side's output"};
    case 10:
      return {
          "remote access error: the remote buffer's key or address was refused (not registered for "
          "remote access there)",
          "run the same perftest version with the same flags on both sides; with --use_cuda check the "
          "remote host's GPUDirect path (nvidia-peermem)"};
    case 11:
      return {"remote operation error: the responder could not complete the operation (its QP failed)",
              "look at the server side's output and the remote host's dmesg for the NIC's error"};
    case 12:
      return {
          "transport retry counter exceeded: the peer never acknowledged (unreachable, link down, a wrong "
          "GID/route, or packets lost on RoCE)",
          "check the path: both ports ACTIVE (ibstat), the GID index of both sides (-x; show_gids), "
          "MTU, and on RoCE PFC/ECN and the switch's drop counters; ping the peer's RoCE address"};
    case 13:
      return {"RNR retry counter exceeded: the receiver had no receive posted in time",
              "start the server first and give it the same -n/-D; raise the receive queue (-r) or the RNR "
              "retries"};
    case 16:
      return {"remote aborted: the responder aborted the operation",
              "look at the server side's output: it ended or failed first"};
    case 19:
      return {"fatal error: the device or its driver failed",
              "check dmesg for the NIC (firmware errors, a reset) and the device's health (mlxlink, "
              "mstflint); move the host out of the pool until fixed"};
    case 20:
      return {"response timeout: the responder did not answer in time",
              "check the remote host is alive and its port ACTIVE; on RoCE look for congestion drops"};
    case 21:
      return {"general error: a transport error no other status describes",
              "check dmesg on both hosts and re-run; if it repeats, the NIC or its firmware"};
    case 3:
    case 14:
    case 15:
    case 17:
    case 18:
      return {"a Reliable Datagram status (perftest does not use RD): the file is not what it claims",
              "check where the output came from"};
    case 22:
    case 23:
      return {"a tag-matching status (perftest does not use tag matching): the file is not what it claims",
              "check where the output came from"};
    default:
      return {"a status libibverbs does not define", "check where the output came from"};
  }
}

void scan_errors(Acc& a, const PeerFile& f) {
  for (const auto& e : f.run.errors) {
    json ev = {{"file", f.path}, {"line", e.line}, {"text", e.text}, {"kind", e.kind}};
    if (e.kind == "completion_error") {
      if (e.status) {
        ev["status"] = *e.status;
        ev["status_name"] = std::string(parse::wc_status_name(*e.status));
        const WcAdvice adv = wc_advice(*e.status);
        ev["meaning"] = adv.meaning;
        ev["remedy"] = adv.remedy;
      }
      a.completion.push_back(std::move(ev));
    } else if (e.kind == "validation_error") {
      a.wrong.push_back(std::move(ev));
    } else if (e.kind == "no_results") {
      a.no_results.push_back(std::move(ev));
    } else {
      a.incomplete.push_back(std::move(ev));
    }
  }
}

void add_findings(Document& doc, Acc& a) {
  if (!a.completion.empty()) {
    // The status line carries the number; join it to the "Completion with error" line before it.
    json withstatus = nullptr;
    for (const auto& c : a.completion) {
      if (c.contains("status")) withstatus = c;
    }
    Finding f;
    f.severity = Severity::kFail;
    f.code = "PEER_COMPLETION_ERROR";
    f.message =
        withstatus.is_null()
            ? fmt::format("perftest reported a completion with error ({} line(s))", a.completion.size())
            : fmt::format("perftest reported a completion with error: status {} = {} ({})",
                          withstatus["status"].get<int>(), withstatus["status_name"].get<std::string>(),
                          withstatus.value("file", ""));
    f.evidence = {{"lines", a.completion}};
    if (!withstatus.is_null()) {
      f.evidence["status"] = withstatus["status"];
      f.evidence["status_name"] = withstatus["status_name"];
      f.evidence["meaning"] = withstatus["meaning"];
    }
    // Each status has its own remedy (status 4 is the local registration/GPUDirect path, not the fabric).
    f.remedy = withstatus.is_null() ? std::string(
                                          "look for the `Failed status` line that names the completion "
                                          "status (perftest prints it after the error line)")
                                    : withstatus["remedy"].get<std::string>();
    doc.add_finding(f);
  }
  if (!a.wrong.empty()) {
    Finding f;
    f.severity = Severity::kFail;
    f.code = "WRONG_DATA";
    f.message =
        fmt::format("the imported run reports wrong data in {} place(s) (validation failed)", a.wrong.size());
    f.evidence = {{"checks", a.wrong}};
    f.remedy = "re-run the test to see whether it is intermittent, then bisect the hosts (NIC, GPU, memory)";
    doc.add_finding(f);
  }
  if (!a.no_results.empty()) {
    Finding f;
    f.severity = Severity::kFail;
    f.code = "PEER_NO_RESULTS";
    f.message = fmt::format("the perftest run produced no result: {} ({})", a.no_results[0].value("text", ""),
                            a.no_results[0].value("file", ""));
    f.evidence = {{"runs", a.no_results}};
    f.remedy =
        "look at the other side's output (a server without results: the client's, whose error names the "
        "cause); "
        "check that the client reached the server (address, -p port, firewall) and that both sides ran the "
        "same "
        "test with the same flags, then re-run";
    doc.add_finding(f);
  }
  if (!a.incomplete.empty()) {
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "IMPORT_INCOMPLETE";
    f.message = fmt::format("the imported run did not finish cleanly: {}",
                            a.incomplete[0].value("text", std::string("a table has no rows")));
    f.evidence = {{"problems", a.incomplete}};
    f.remedy = "look at those lines of the original run and re-run it to completion";
    doc.add_finding(f);
  }
  if (a.dropped > 0) {
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "IMPORT_ROWS_DROPPED";
    f.message = fmt::format("{} row(s) of the file(s) could not be read and were not imported", a.dropped);
    f.evidence = {{"dropped_rows", a.dropped}, {"first", a.first_dropped}};
    f.remedy = "look at those lines (a negative or non-finite number, a row cut short); re-run the test";
    doc.add_finding(f);
  }
}

}  // namespace

std::optional<std::pair<std::string, std::string>> hosts_from_file_name(const std::string& path) {
  std::string stem = base_name(path);
  if (const auto dot = stem.find('.'); dot != std::string::npos) stem.resize(dot);
  auto ok = [](const std::string& h) {
    if (h.empty() || h.size() > 253) return false;
    return std::all_of(h.begin(), h.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
    });
  };
  if (const auto to = stem.rfind("_to_"); to != std::string::npos) {
    std::string a = stem.substr(0, to), b = stem.substr(to + 4);
    if (const auto u = a.rfind('_'); u != std::string::npos) a = a.substr(u + 1);
    if (ok(a) && ok(b)) return std::pair{a, b};
  }
  if (const auto dd = stem.find("--"); dd != std::string::npos) {
    std::string a = stem.substr(0, dd), b = stem.substr(dd + 2);
    if (const auto u = a.rfind('_'); u != std::string::npos) a = a.substr(u + 1);
    if (ok(a) && ok(b)) return std::pair{a, b};
  }
  return std::nullopt;
}

double to_gbps(double v, const std::string& unit) {
  if (unit == "MiB/s") return v * 1048576.0 / 1e9;
  if (unit == "Gb/s") return v / 8.0;
  return v / 1e3;  // MB/s = 1e6 B/s
}

namespace {

/// Places one table where its kind belongs (latency[], pairs.links[] or sweeps[]), says where in the file's
/// summary, and collects what it adds to the findings (a table without rows, dropped rows, wrong data).
void place_table(Acc& a, PeerFileSummary& s, const PeerFile& f, std::size_t ti,
                 const PeerImportOptions& opts) {
  const auto& t = f.run.tables[ti];
  std::size_t n = 0;
  std::string where;
  if (t.kind == "latency") {
    n = add_latency(a, f, t, ti);
    where = "latency";
  } else if (t.kind == "bandwidth") {
    n = add_link(a, f, t, ti, opts);
    where = "pairs.links";
  } else {
    n = add_sweep(a, f, t, ti, opts);
    where = "sweeps";
  }
  s.rows += n;
  s.placed.push_back(fmt::format("{}{}: {} row(s) -> {}{}", t.test,
                                 t.bw_unit.empty() ? "" : " (" + t.bw_unit + ")", n, where,
                                 t.rows.empty() ? " (header without rows)" : ""));
  if (t.rows.empty()) {
    a.incomplete.push_back({{"file", f.path},
                            {"line", t.line},
                            {"text", fmt::format("{}: table has a header but no rows", t.test)}});
  }
  if (t.rejected_rows > 0) {
    if (a.dropped == 0)
      a.first_dropped = {{"file", f.path}, {"line", t.first_rejected_line}, {"text", t.first_rejected}};
    a.dropped += t.rejected_rows;
  }
  for (const auto& r : t.rows) {
    if (r.validation == "Fail") {
      a.wrong.push_back({{"file", f.path},
                         {"line", r.line},
                         {"test", t.test},
                         {"size_bytes", r.size_bytes},
                         {"validation", "Fail"}});
    }
    if (auto d = val(r, "defects"); d && *d > 0) {
      a.wrong.push_back({{"file", f.path},
                         {"line", r.line},
                         {"test", t.test},
                         {"size_bytes", r.size_bytes},
                         {"defects", *d}});
    }
  }
}

/// One run.imported.files[] entry.
json file_entry(const PeerFile& f, const PeerFileSummary& s) {
  json fi = {{"file", f.path},       {"tool", f.run.tool},  {"format", f.run.format},
             {"tables", s.tables},   {"rows", s.rows},      {"errors", f.run.errors.size()},
             {"lines", f.run.lines}, {"notes", f.run.notes}};
  fi["version"] = f.run.version.empty() ? json(nullptr) : json(f.run.version);
  if (!f.run.info.empty()) fi["info"] = f.run.info;
  return fi;
}

/// The `pairs` section of the imported links: the bw_gbps[from][to] and bidir_gbps matrices over the hosts
/// in order of appearance, and the median of the one-way links.
void write_pairs(Document& doc, const Acc& a) {
  const std::size_t n = a.hosts.size();
  json bw = json::array(), bidir = json::array();
  for (std::size_t i = 0; i < n; ++i) {
    bw.push_back(json::array());
    bidir.push_back(json::array());
    for (std::size_t k = 0; k < n; ++k) {
      bw[i].push_back(nullptr);
      bidir[i].push_back(nullptr);
    }
  }
  std::vector<double> values;
  for (const auto& l : a.links) {
    const auto fi = std::find(a.hosts.begin(), a.hosts.end(), l["from"].get<std::string>()) - a.hosts.begin();
    const auto ti = std::find(a.hosts.begin(), a.hosts.end(), l["to"].get<std::string>()) - a.hosts.begin();
    if (l["bw_gbps"].is_number()) {
      (l["kind"] == "bidirectional" ? bidir
                                    : bw)[static_cast<std::size_t>(fi)][static_cast<std::size_t>(ti)] =
          l["bw_gbps"];
      if (l["kind"] != "bidirectional") values.push_back(l["bw_gbps"].get<double>());
    }
  }
  std::sort(values.begin(), values.end());
  json median = values.empty() ? json(nullptr) : json(values[(values.size() - 1) / 2]);
  doc.json()["pairs"] = {
      {"hosts", a.hosts},
      {"size_bytes", a.links[0]["size_bytes"]},
      {"bw_gbps", bw},
      {"bidir_gbps", bidir},
      {"lat_p50_us", nullptr},
      {"bw_median_gbps", median},
      {"links", a.links},
      {"outliers", json::array()},
      {"suspects", json::array()},
      {"imported", true},
      {"convention",
       "imported: one links[] entry per bandwidth table, bw_gbps = the file's bandwidth at "
       "its largest size in GB/s (1e9 B/s), converted from unit_in_file; bw_gbps[from][to] "
       "holds it (bidirectional tables in bidir_gbps); no outlier test on imported links"}};
  doc.set_section("pairs", SectionStatus::kOk);
}

/// The sections, topology and run.imported of the whole import: latency, pairs and sweeps where a table went
/// there, every other section skipped with its reason.
void write_sections(Document& doc, Acc& a, json imported_files) {
  json& j = doc.json();
  const std::string why = "not measured: imported perftest/OSU/IMB results";
  if (!a.latency.empty()) {
    j["latency"] = a.latency;
    doc.set_section("latency", SectionStatus::kOk);
  }
  if (!a.links.empty()) write_pairs(doc, a);
  if (!a.sweeps.empty()) set_sweeps(doc, a.sweeps);
  for (const char* s : {"inventory", "transport", "latency", "incast", "pairs", "scaling", "sweeps"}) {
    if (!j.contains(s) || j[s].is_null()) {
      j[s] = nullptr;
      doc.set_section(s, SectionStatus::kSkipped, why);
    }
  }
  json hosts = json::array();
  for (const auto& h : a.hosts) hosts.push_back({{"host", h}, {"ranks", json::array()}});
  j["topology"] = {{"nranks", a.nranks > 0 ? json(a.nranks) : json(2)},
                   {"nranks_source", a.nranks > 0 ? "file" : "two-party tests"},
                   {"hosts", hosts},
                   {"backend", "mpi"},
                   {"mpi_library", nullptr},
                   {"nccl_version", nullptr},
                   {"clock_offset_us_max", nullptr},
                   {"clock_error_us_max", nullptr},
                   {"clock_reason", "imported: no clock alignment in the file"}};
  j["run"]["imported"] = {{"format", "peer-benchmarks"}, {"files", std::move(imported_files)}};
  j["conventions"]["imported_peers"] =
      "perftest, OSU and IMB results imported as printed: bandwidth converted to GB/s = 1e9 B/s from the "
      "unit each header names (perftest MB/sec and MiB/sec = 2^20 B/s, --report_gbits Gb/sec = 1e9 bit/s; "
      "OSU "
      "MB/s and IMB Mbytes/sec = 1e6 B/s); each latency entry names its statistic; collective times keep "
      "the tool's statistic (time_statistic); busbw only where derived (busbw_source)";
}

}  // namespace

std::vector<PeerFileSummary> add_peer_import(Document& doc, const std::vector<PeerFile>& files,
                                             const PeerImportOptions& opts) {
  Acc a;
  std::vector<PeerFileSummary> out;
  json imported_files = json::array();
  std::size_t total_rows = 0, total_errors = 0;
  for (const auto& f : files) {
    PeerFileSummary s{f.path, f.run.tool, f.run.format, f.run.version, f.run.tables.size(), 0, {}};
    for (std::size_t ti = 0; ti < f.run.tables.size(); ++ti) place_table(a, s, f, ti, opts);
    scan_errors(a, f);
    total_rows += s.rows;
    total_errors += f.run.errors.size();
    imported_files.push_back(file_entry(f, s));
    out.push_back(std::move(s));
  }
  if (total_rows == 0 && total_errors == 0) {
    throw UsageError(
        fmt::format("import {}: a {} output without result rows (give an output that got past its header)",
                    files.empty() ? "" : files.front().path, files.empty() ? "" : files.front().run.tool));
  }
  write_sections(doc, a, std::move(imported_files));
  add_findings(doc, a);
  return out;
}

}  // namespace fabcheck::report
