// `-J FILE`: nccl-tests' file handling around the nccl-tests JSON writer (nccl_tests_json_output.hpp).
#include "nccl_tests_json_output.hpp"

#include <fmt/format.h>
#include <strings.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "fabcheck/core/build_info.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/time_text.hpp"

extern char** environ;

namespace fabcheck::app {

namespace {

/// util.cu:302-308 formatNow.
std::string now_string() {
  return core::local_time_text(static_cast<std::int64_t>(std::time(nullptr)));
}

/// common.cu:140-164 getExtension + 166-173 classifyOutputFile: the text after the last '.' that follows
/// the last '/', compared case-insensitively with "json".
bool json_suffix(const std::string& path) {
  const auto dot = path.find_last_of('.');
  const auto slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot + 1 == path.size())
    return false;
  return strcasecmp(path.c_str() + dot + 1, "json") == 0;
}

}  // namespace

std::unique_ptr<NcclTestsJsonOutput> NcclTestsJsonOutput::open(bool is_root, const std::string& path,
                                                               const std::vector<std::string>& argv,
                                                               const model::SweepOptions& opts) {
  if (path.empty()) return nullptr;
  if (opts.collectives.size() > 1) {
    throw UsageError(
        "-J: nccl-tests' JSON holds one collective per file (its binary is the collective): give one --coll, "
        "or use --json for fabcheck's report of several");
  }
  if (!is_root) return nullptr;
  if (!json_suffix(path)) {
    std::printf("# skipping json output; %s does not end in .json (nccl-tests writes -J files only then)\n",
                path.c_str());
    return nullptr;
  }
  // util.cu:332-347: "wx", then PATH.0, PATH.1, ... while the name exists.
  std::string try_path = path;
  std::FILE* f = std::fopen(try_path.c_str(), "wx");
  for (int n = 0; !f; ++n) {
    if (errno != EEXIST) {
      std::printf("# skipping json output; %s not accessible\n", try_path.c_str());
      std::fflush(stdout);
      return nullptr;
    }
    try_path = fmt::format("{}.{}", path, n);
    f = std::fopen(try_path.c_str(), "wx");
  }
  std::printf("# Writing JSON output to %s\n", try_path.c_str());  // util.cu:349
  std::fflush(stdout);
  report::NcclTestsJsonRun run;
  run.args = argv;
  for (char** e = environ; e && *e; ++e) run.env.emplace_back(*e);
  run.start_time = now_string();
  run.fabcheck_version = build::kVersion;
  run.report_cputime = opts.report_cputime != 0;  // the flags of the sweep, as nccl-tests records them
  run.per_iter_timing = opts.per_iter_timing != 0;
  run.per_iter_skip = opts.per_iter_skip;
  run.agg_iters = opts.agg_iters;
  run.parallel_init = opts.parallel_init != 0;
  if (const char* m = std::getenv("NCCL_TESTS_MIN_BW"); m && *m) {
    char* end = nullptr;
    const double v = std::strtod(m, &end);
    if (end && *end == '\0' && std::isfinite(v) && v > 0) run.min_bw_gbps = v;
  }
  return std::unique_ptr<NcclTestsJsonOutput>(new NcclTestsJsonOutput(f, try_path, std::move(run)));
}

void NcclTestsJsonOutput::write(const model::SweepResult& r) {
  if (!f_) return;
  run_.end_time = now_string();
  const std::string text = report::nccl_tests_json(r, run_);
  const bool ok = std::fwrite(text.data(), 1, text.size(), f_) == text.size();
  const bool closed = std::fclose(f_) == 0;
  f_ = nullptr;
  if (!ok || !closed) throw RuntimeFailure(fmt::format("-J: writing {} failed", path_));
}

NcclTestsJsonOutput::~NcclTestsJsonOutput() {
  if (f_) {
    std::fclose(f_);
    std::remove(path_.c_str());
  }
}

}  // namespace fabcheck::app
