// Offline NCCL-log inspection: parse → transport verdict → console + JSON report. No MPI.
#include "inspect_nccl_log.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "fabcheck/core/error.hpp"
#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/transport.hpp"

namespace fabcheck::app {

int run_inspect_nccl_logs(const std::vector<std::string>& files, const std::string& json_path, bool quiet) {
  auto t0 = std::chrono::steady_clock::now();
  if (files.empty())
    throw UsageError("--nccl-log: no file given (pass one or more NCCL_DEBUG=INFO log files)");
  for (const auto& f : files) {
    if (::access(f.c_str(), R_OK) != 0)
      throw UsageError("--nccl-log: cannot read " + f +
                       " (give an existing, readable NCCL_DEBUG=INFO log file)");
  }
  // One log given twice (or under two names) would double every count (issue 18 review).
  for (std::size_t i = 0; i < files.size(); ++i) {
    struct stat a {};
    if (::stat(files[i].c_str(), &a) != 0) continue;
    for (std::size_t j = 0; j < i; ++j) {
      struct stat b {};
      if (::stat(files[j].c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        throw UsageError("--nccl-log: " + files[i] + " is the same file as " + files[j] +
                         " (give each log once)");
    }
  }
  if (!json_path.empty()) report::check_writable(json_path, "--json");
  {
    std::vector<std::pair<std::string, std::string>> inputs;
    for (const auto& f : files) inputs.emplace_back("--nccl-log", f);
    report::check_distinct_paths(inputs, {{"--json", json_path}});
  }

  report::TransportInput in;
  for (const auto& f : files) in.nccl_logs.push_back(parse::parse_nccl_log_file(f));
  report::TransportResult r = report::analyze_transport(in);

  std::vector<std::string> argv = {"fabcheck", "inspect"};
  for (const auto& f : files) {
    argv.push_back("--nccl-log");
    argv.push_back(f);
  }
  report::Document doc(argv);
  report::add_transport(doc, r);
  int code = doc.has_fail() ? static_cast<int>(ExitCode::kFail) : static_cast<int>(ExitCode::kOk);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  doc.finish("complete", code, secs);
  if (!quiet) {
    std::fputs(report::render_transport(r).c_str(), stdout);
    std::fflush(stdout);
  }
  if (!json_path.empty()) doc.write_atomic(json_path);
  return code;
}

}  // namespace fabcheck::app
