// `fabcheck import FILE --json OUT`: nccl-tests results (console text in any layout, or the -J JSON file) and
// fabcheck's own sweep console output → a fabcheck report, offline (no MPI), so that gate, compare, report
// and the score work on results users already have.
#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "command.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/parse/nccl_tests.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/load.hpp"
#include "fabcheck/report/nccl_tests_import.hpp"
#include "fabcheck/report/transport.hpp"

namespace fabcheck::app {
namespace {

struct ImportCli {
  std::string file, json, coll, format = "auto";
  int nranks = 0;
  bool quiet = false;
};

std::string read_input(const std::string& path) {
  const std::string origin = fmt::format("import {}", path);
  std::string text = report::read_input_file(path, origin, "nccl-tests output file");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw UsageError(
        fmt::format("{}: empty file (give the console output or -J file of an nccl-tests run)", origin));
  }
  return text;
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
         "file", cli->file,
         "nccl-tests console output (any layout, tagged or not, NCCL lines mixed in), its -J JSON file, "
         "or fabcheck sweep console output")
      ->required();
  sub.add_option("--json,-J,--out", cli->json, "Write the report to FILE (atomically)")->required();
  sub.add_option(
      "--coll", cli->coll,
      "Collective of a file that does not name it (nccl-tests < 2.16.7): allreduce, allgather, ...");
  sub.add_option("--nranks", cli->nranks, "Rank count of a file without '# Using devices' lines");
  sub.add_option("--format", cli->format, "auto (default), text or json")
      ->check(CLI::IsMember({"auto", "text", "json"}));
  sub.add_flag("--quiet,-q", cli->quiet, "Print nothing on success");
  sub.footer(
      "Every row's busBw is recomputed from size, time and rank count (nccl-tests rules, DESIGN §3) and "
      "compared\n"
      "at the file's printed precision; disagreements are BUSBW_MISMATCH findings. Imported points have no\n"
      "per-iteration samples. Exit: 0 imported, 1 the file reports wrong data (WRONG_DATA), 2 bad input.");
  return [cli](const RunContext& ctx) -> int {
    const auto t0 = std::chrono::steady_clock::now();
    report::ImportOptions opts;
    opts.file = cli->file;
    if (!cli->coll.empty()) {
      opts.collective = core::parse_collective(cli->coll);
      if (!opts.collective) {
        throw UsageError(fmt::format(
            "--coll: unknown collective '{}' (allreduce allgather reducescatter alltoall broadcast reduce "
            "sendrecv gather scatter)",
            cli->coll));
      }
    }
    if (cli->nranks < 0 || cli->nranks > 10000000) {
      throw UsageError(fmt::format("--nranks: {} is not a rank count (give N >= 1)", cli->nranks));
    }
    if (cli->nranks > 0) opts.nranks = cli->nranks;
    report::check_writable(cli->json, "--json");
    report::check_distinct_paths({{"file", cli->file}}, {{"--json", cli->json}});
    const std::string text = read_input(cli->file);
    const bool as_json = cli->format == "json" || (cli->format == "auto" && parse::looks_like_json(text));
    const parse::NcclTestsRun run =
        as_json ? parse::parse_nccl_tests_json(text, fmt::format("import {}", cli->file))
                : parse::parse_nccl_tests_text(text);
    report::Document doc(ctx.argv);
    const auto sum = report::add_import(doc, run, opts);
    if (!as_json && run.nccl_lines > 0) {
      // NCCL INFO lines in the same output say which transport carried the traffic (inspect --nccl-log).
      report::TransportInput in;
      in.nccl_logs.push_back(parse::parse_nccl_log(text, cli->file));
      report::add_transport(doc, report::analyze_transport(in));
    }
    const int code = doc.has_fail() ? static_cast<int>(ExitCode::kFail) : static_cast<int>(ExitCode::kOk);
    doc.finish("complete", code,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    doc.write_atomic(cli->json);
    if (!cli->quiet) {
      std::fputs(summary_text(sum, run, doc, cli->file).c_str(), stdout);
      std::fputs(fmt::format("report: {}\n", cli->json).c_str(), stdout);
      std::fflush(stdout);
    }
    return code;
  };
}

const Registrar kImport{
    {"import", "Import nccl-tests results (text or -J JSON) or fabcheck sweep output as a report, offline",
     false, 92, setup_import}};

}  // namespace
}  // namespace fabcheck::app
