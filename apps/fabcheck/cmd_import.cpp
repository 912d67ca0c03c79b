// `fabcheck import FILE... --json OUT`: nccl-tests results (console text in any layout, or the -J JSON file),
// fabcheck's own sweep console output, and perftest / OSU / IMB outputs (recognised by their
// headers; several files, e.g. one perftest output per link, make one report) → a fabcheck report, offline
// (no MPI), so that gate, compare, report and the score work on results users already have.
#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "command.hpp"
#include "fabcheck/core/ascii.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/parse/nccl_tests.hpp"
#include "fabcheck/parse/peer_bench.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/load.hpp"
#include "fabcheck/report/nccl_tests_import.hpp"
#include "fabcheck/report/peer_import.hpp"
#include "fabcheck/report/transport.hpp"
#include "fabcheck/suite/single.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct ImportCli {
  std::vector<std::string> files;
  std::string json, coll, format = "auto", link;
  int nranks = 0;
  bool quiet = false, report_gbits = false;
  ReportOutputs out;  // --html, --junit
};

std::string read_input(const std::string& path) {
  const std::string origin = fmt::format("import {}", path);
  std::string text = report::read_input_file(path, origin, "nccl-tests output file");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw UsageError(fmt::format(
        "{}: empty file (give the console output or -J file of an nccl-tests run, or a perftest, OSU or IMB "
        "output)",
        origin));
  }
  return text;
}

std::string peer_summary(const std::vector<report::PeerFileSummary>& files, const report::Document& doc) {
  std::string out;
  for (const auto& f : files) {
    out += fmt::format("imported {} ({} {}{}): {} table(s), {} row(s)\n", f.path, f.tool, f.format,
                       f.version.empty() ? "" : " " + f.version, f.tables, f.rows);
    for (const auto& p : f.placed) out += fmt::format("  {}\n", p);
  }
  for (const auto& f : doc.json()["findings"]) {
    out += fmt::format("{}: {}: {}\n", f.value("severity", ""), f.value("code", ""), f.value("message", ""));
  }
  return out;
}

/// `--link A:B` → {A, B}.
std::optional<std::pair<std::string, std::string>> parse_link(const std::string& s) {
  if (s.empty()) return std::nullopt;
  const auto c = s.find(':');
  if (c == std::string::npos || c == 0 || c + 1 >= s.size() || s.find(':', c + 1) != std::string::npos) {
    throw UsageError(
        fmt::format("--link: '{}' is not FROM:TO (give two host names, e.g. --link node1:node2)", s));
  }
  return std::pair{s.substr(0, c), s.substr(c + 1)};
}

std::string summary_text(const report::ImportSummary& s, const parse::NcclTestsRun& run,
                         const report::Document& doc, const std::string& file) {
  std::string out =
      fmt::format("imported {} ({}), nranks {} ({})\n", file, run.format, s.nranks, s.nranks_source);
  std::size_t blocks = 0, agree = 0;
  for (const auto& sw : s.sweeps) {
    std::size_t a = 0;
    for (const auto& c : sw.checks) a += c.agrees ? 1 : 0;
    blocks += sw.checks.size();
    agree += a;
    out += fmt::format("  {:<14} {:<8} {:<5} root {:>2}: {:>3} rows, busBw recomputed {}/{} agree ({})\n",
                       core::name(sw.collective), sw.dtype, sw.redop.empty() ? "-" : sw.redop, sw.root,
                       sw.rows, a, sw.checks.size(), sw.collective_source);
  }
  out += fmt::format("busBw check: {}/{} placement blocks agree at the file's precision\n", agree, blocks);
  for (const auto& f : doc.json()["findings"]) {
    out += fmt::format("{}: {}: {}\n", f.value("severity", ""), f.value("code", ""), f.value("message", ""));
  }
  return out;
}

std::function<int(const RunContext&)> setup_import(CLI::App& sub) {
  auto cli = std::make_shared<ImportCli>();
  sub.add_option(
         "file", cli->files,
         "nccl-tests console output (any layout, tagged or not, NCCL lines mixed in), its -J JSON file, "
         "or fabcheck sweep console output; or one or more perftest / OSU / IMB outputs")
      ->required();
  sub.add_option("--json,-J,--out", cli->json, "Write the report to FILE (atomically)")->required();
  add_report_outputs(sub, cli->out, false);
  sub.add_option(
      "--coll", cli->coll,
      "Collective of a file that does not name it (nccl-tests < 2.16.7): allreduce, allgather, ...");
  sub.add_option("--nranks", cli->nranks, "Rank count of a file without '# Using devices' lines");
  sub.add_option("--format", cli->format, "auto (default), text or json")
      ->check(CLI::IsMember({"auto", "text", "json"}));
  sub.add_option("--link", cli->link,
                 "FROM:TO hosts of perftest/OSU bandwidth and latency files (default: the file name "
                 "'..._A_to_B.txt' or 'A--B.txt')");
  sub.add_flag("--report-gbits", cli->report_gbits,
               "perftest --out_json files were written with --report_gbits (the file does not say)");
  sub.add_flag("--quiet,-q", cli->quiet, "Print nothing on success");
  sub.footer(
      "perftest, OSU and IMB outputs are recognised by their headers: latency rows go to latency[], "
      "bandwidth "
      "to\n"
      "pairs.links[] (GB/s = 1e9 B/s, the file's unit stated), collectives to sweeps[] (busBw derived where "
      "defined).\n"
      "nccl-tests: every row's busBw is recomputed from size, time and rank count (nccl-tests rules, DESIGN "
      "§3) and "
      "compared\n"
      "at the file's printed precision; disagreements are BUSBW_MISMATCH findings. Imported points have no\n"
      "per-iteration samples. Exit: 0 imported, 1 the file reports wrong data (WRONG_DATA), 2 bad input.");
  return [cli](const RunContext& ctx) -> int {
    const auto t0 = std::chrono::steady_clock::now();
    if (cli->nranks < 0 || cli->nranks > 10000000) {
      throw UsageError(fmt::format("--nranks: {} is not a rank count (give N >= 1)", cli->nranks));
    }
    report::Sinks sinks = suite::report_sinks(cli->json, cli->out.html, cli->out.junit);
    for (const auto& f : cli->files) sinks.input("file", f);
    sinks.check();
    // perftest / OSU / IMB: every file must be one of them.
    std::vector<std::string> texts;
    std::vector<std::string> formats;
    for (const auto& f : cli->files) {
      texts.push_back(read_input(f));
      formats.push_back(parse::detect_peer_format(texts.back()));
    }
    const bool peers = !formats.front().empty() && cli->format == "auto";
    if (peers || cli->files.size() > 1) {
      for (std::size_t i = 0; i < cli->files.size(); ++i) {
        if (formats[i].empty()) {
          throw UsageError(fmt::format(
              "import {}: not a perftest, OSU or IMB output (no header of theirs found; several files must "
              "all be such outputs, an nccl-tests file is imported alone)",
              cli->files[i]));
        }
      }
      if (!cli->coll.empty()) throw UsageError("--coll: only for nccl-tests files (OSU and IMB name theirs)");
      std::vector<report::PeerFile> files;
      for (std::size_t i = 0; i < cli->files.size(); ++i) {
        files.push_back({cli->files[i],
                         parse::parse_peer(texts[i], formats[i], fmt::format("import {}", cli->files[i]))});
      }
      report::PeerImportOptions po;
      po.link = parse_link(cli->link);
      if (cli->nranks > 0) po.nranks = cli->nranks;
      po.report_gbits = cli->report_gbits;
      report::Document doc(ctx.argv);
      const auto sum = report::add_peer_import(doc, files, po);
      const int code = doc.exit_code();
      doc.finish("complete", code,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      sinks.write(doc.json());
      if (!cli->quiet) {
        std::fputs(core::terminal_safe(peer_summary(sum, doc)).c_str(), stdout);
        std::fputs(fmt::format("report: {}\n", cli->json).c_str(), stdout);
        std::fflush(stdout);
      }
      return code;
    }
    if (!cli->link.empty()) throw UsageError("--link: only for perftest, OSU and IMB files");
    const std::string& file = cli->files.front();
    report::ImportOptions opts;
    opts.file = file;
    if (!cli->coll.empty()) {
      opts.collective = core::parse_collective(cli->coll);
      if (!opts.collective) {
        throw UsageError(fmt::format(
            "--coll: unknown collective '{}' (allreduce allgather reducescatter alltoall broadcast reduce "
            "sendrecv gather scatter)",
            cli->coll));
      }
    }
    if (cli->nranks > 0) opts.nranks = cli->nranks;
    const std::string& text = texts.front();
    const bool as_json = cli->format == "json" || (cli->format == "auto" && parse::looks_like_json(text));
    const parse::NcclTestsRun run = as_json
                                        ? parse::parse_nccl_tests_json(text, fmt::format("import {}", file))
                                        : parse::parse_nccl_tests_text(text);
    report::Document doc(ctx.argv);
    const auto sum = report::add_import(doc, run, opts);
    if (!as_json && run.nccl_lines > 0) {
      // NCCL INFO lines in the same output say which transport carried the traffic (inspect --nccl-log).
      report::TransportInput in;
      in.nccl_logs.push_back(parse::parse_nccl_log(text, file));
      report::add_transport(doc, report::analyze_transport(in));
    }
    const int code = doc.exit_code();
    doc.finish("complete", code,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    sinks.write(doc.json());
    if (!cli->quiet) {
      std::fputs(core::terminal_safe(summary_text(sum, run, doc, file)).c_str(), stdout);
      std::fputs(fmt::format("report: {}\n", cli->json).c_str(), stdout);
      std::fflush(stdout);
    }
    return code;
  };
}

const Registrar kImport{
    {"import",
     "Import nccl-tests results (text or -J JSON), fabcheck sweep output, or perftest/OSU/IMB outputs as a "
     "report, offline",
     false, 92, setup_import}};

}  // namespace
}  // namespace fabcheck::app
