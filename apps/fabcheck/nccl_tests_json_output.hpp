#pragma once
/// @file `fabcheck sweep -J FILE`: nccl-tests' `-J` file handling (util.cu:317-352
/// jsonOutputInit) around report::nccl_tests_json — rank 0 opens FILE with "wx" (create, fail if it exists),
/// else FILE.0, FILE.1, … until one is free, prints `# Writing JSON output to <path>` before the run, and
/// writes the file from the sweep result when the sweep has finished.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "fabcheck/model/options_sweep.hpp"
#include "fabcheck/model/sweep.hpp"
#include "fabcheck/report/nccl_tests_json_writer.hpp"

namespace fabcheck::app {

/// The open `-J` file of rank 0.
class NcclTestsJsonOutput {
 public:
  /// Rank 0 (`is_root`): opens the file as nccl-tests does and prints its line on stdout; nullptr on other
  /// ranks, for an empty path, and where nccl-tests writes nothing: a name without the `.json` suffix
  /// (common.cu:166-173 classifyOutputFile; fabcheck says so in a `# skipping json output; ...` line where
  /// nccl-tests is silent) or a path that cannot be created (`# skipping json output; <path> not
  /// accessible`, util.cu:336-338; the run goes on, as nccl-tests' does).
  /// @throws UsageError on every rank alike when `opts` has more than one collective (one file holds one).
  static std::unique_ptr<NcclTestsJsonOutput> open(bool is_root, const std::string& path,
                                                   const std::vector<std::string>& argv,
                                                   const model::SweepOptions& opts);
  /// Writes the whole file from `r` and closes it.
  void write(const model::SweepResult& r);
  /// A file never written (the sweep failed) is removed: no half file is left for a script to read.
  ~NcclTestsJsonOutput();
  NcclTestsJsonOutput(const NcclTestsJsonOutput&) = delete;
  NcclTestsJsonOutput& operator=(const NcclTestsJsonOutput&) = delete;

 private:
  NcclTestsJsonOutput(std::FILE* f, std::string path, report::NcclTestsJsonRun run)
      : f_(f), path_(std::move(path)), run_(std::move(run)) {}
  std::FILE* f_;
  std::string path_;
  report::NcclTestsJsonRun run_;
};

}  // namespace fabcheck::app
