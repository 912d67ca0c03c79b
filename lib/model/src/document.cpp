#include "fabcheck/report/document.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "fabcheck/core/build_info.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/redact.hpp"

namespace fabcheck::report {

std::string_view name(Severity s) {
  static constexpr std::string_view kNames[] = {"info", "warn", "fail"};  // enum order
  return kNames[static_cast<std::size_t>(s)];
}

std::string utc_now_iso8601() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Document::Document(const std::vector<std::string>& argv) {
  doc_ = nlohmann::json::object();
  doc_["schema_version"] = kSchemaVersion;
  doc_["tool"] = {{"name", "fabcheck"},
                  {"version", build::kVersion},
                  {"features", {{"nccl", build::kHaveNccl}, {"ibverbs", build::kHaveIbverbs}}}};
  doc_["conventions"] = {
      {"time_table",
       "nccl-tests: one timer around iters back-to-back ops after warmup; per-op time reduced across ranks "
       "by -a "
       "(0 rank 0, 1 mean, 2 min, 3 max); algbw = size/1e9/s; busbw = algbw*factor(n) (nccl-tests "
       "doc/PERFORMANCE.md)"},
      {"per_iter",
       "separate pass; entry/exit per rank on clocks aligned to rank 0; span = max exit - min entry; "
       "straggler = "
       "rank that entered last"},
      {"percentile",
       "nearest rank: index = (p_bp*n + 9999)/10000 - 1 (integer), clamped to [0, n-1]; stdev with n-1; p99 "
       "low_confidence when n < 100, p99.9 when n < 1000"},
      {"histogram",
       "integer ns, half-open [lower, upper); unit buckets below 32 ns, then 16 log-linear sub-buckets per "
       "power of "
       "two; JSON keeps non-empty buckets as [lower_ns, upper_ns, count]"},
      {"units",
       "bandwidth GB/s = 1e9 bytes/s; time in microseconds (_us); sizes in bytes, binary suffixes on input"}};
  doc_["run"] = {{"started", utc_now_iso8601()},
                 {"duration_s", nullptr},
                 {"argv", core::redact_argv(argv)},
                 {"config", nullptr},
                 {"status", "incomplete"},
                 {"exit_code", nullptr},
                 {"sections", nlohmann::json::object()}};
  doc_["findings"] = nlohmann::json::array();
}

void Document::set_section(std::string_view section, SectionStatus status, std::string_view reason) {
  std::string st = status == SectionStatus::kOk        ? "ok"
                   : status == SectionStatus::kSkipped ? "skipped"
                                                       : "failed";
  nlohmann::json entry = {{"status", st}, {"reason", nullptr}};
  if (!reason.empty()) entry["reason"] = std::string(reason);
  doc_["run"]["sections"][std::string(section)] = entry;
}

void Document::add_finding(const Finding& f) {
  doc_["findings"].push_back({{"severity", std::string(name(f.severity))},
                              {"code", f.code},
                              {"message", f.message},
                              {"evidence", f.evidence},
                              {"remedy", f.remedy}});
}

bool Document::has_fail() const {
  for (const auto& f : doc_["findings"]) {
    if (f.value("severity", "") == "fail") return true;
  }
  return false;
}

int Document::exit_code(bool step_failed) const {
  const ExitCode c = step_failed ? ExitCode::kRuntime : has_fail() ? ExitCode::kFail : ExitCode::kOk;
  return static_cast<int>(c);
}

void Document::finish(std::string_view status, int exit_code, double duration_s) {
  doc_["run"]["status"] = std::string(status);
  doc_["run"]["exit_code"] = exit_code;
  doc_["run"]["duration_s"] = duration_s;
}

void Document::write_atomic(const std::string& path) const {
  write_text_atomic(path, json_text(doc_), "--json");
}

}  // namespace fabcheck::report
