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
                 {"argv", argv},
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
  // error_handler replace: never throw on odd bytes in foreign strings (hostnames, log lines).
  write_text_atomic(path, doc_.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                    "--json");
}

namespace {

/// Only regular files (or a new name) are ours to replace: a rename over a device node, a FIFO, a
/// socket or a directory would replace what is not a report, and a symlink's target is not what the user
/// named. Refused, with the fix.
void check_target_kind(const std::string& path, std::string_view flag) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;  // a new file
  if (S_ISLNK(st.st_mode))
    throw UsageError(
        fmt::format("{}: will not write {}: it is a symbolic link (give the real path)", flag, path));
  if (S_ISDIR(st.st_mode)) throw UsageError(fmt::format("{}: cannot write {}: is a directory", flag, path));
  if (!S_ISREG(st.st_mode))
    throw UsageError(
        fmt::format("{}: will not write {}: not a regular file (a device, FIFO or socket); give a "
                    "file name",
                    flag, path));
}

}  // namespace

void write_text_atomic(const std::string& path, const std::string& text, std::string_view flag) {
  check_target_kind(path, flag);
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  {
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw UsageError(fmt::format("{}: cannot write {}: {}", flag, path, std::strerror(errno)));
    std::size_t done = 0;
    int err = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        err = n < 0 ? errno : EIO;
        break;
      }
      done += static_cast<std::size_t>(n);
    }
    if (err == 0 && ::fsync(fd) != 0 && errno != EINVAL) err = errno;  // ENOSPC can surface only here
    if (::close(fd) != 0 && err == 0) err = errno;
    if (err != 0) {
      std::remove(tmp.c_str());  // no temporary file is left behind
      throw UsageError(fmt::format("{}: cannot write {}: {}", flag, path, std::strerror(err)));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw UsageError(fmt::format("{}: cannot write {}: {}", flag, path, std::strerror(err)));
  }
}

void check_writable(const std::string& path, std::string_view flag) {
  if (path.empty()) throw UsageError(fmt::format("{}: empty path (give a file name)", flag));
  check_target_kind(path, flag);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (::access(path.c_str(), W_OK) != 0) {
      throw UsageError(fmt::format("{}: cannot write {}: {}", flag, path, std::strerror(errno)));
    }
  }
  std::string dir = ".";
  auto slash = path.find_last_of('/');
  if (slash != std::string::npos) dir = slash == 0 ? "/" : path.substr(0, slash);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw UsageError(fmt::format("{}: cannot write {}: directory {} does not exist", flag, path, dir));
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    throw UsageError(fmt::format("{}: cannot write {}: directory {} is not writable", flag, path, dir));
  }
}

void check_distinct_paths(const std::vector<std::pair<std::string, std::string>>& inputs,
                          const std::vector<std::pair<std::string, std::string>>& outputs) {
  auto same_file = [](const std::string& a, const std::string& b) {
    struct stat sa {
    }, sb{};
    if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
      return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    // Not both there yet: the same absolute, normalized name is the same file (o.xml and /dir/./o.xml).
    std::error_code ea, eb;
    const auto na = std::filesystem::weakly_canonical(std::filesystem::absolute(a, ea), ea);
    const auto nb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, eb), eb);
    return ea || eb ? a == b : na == nb;
  };
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [flag, path] = outputs[i];
    if (path.empty()) continue;
    for (const auto& [iflag, ipath] : inputs) {
      if (!ipath.empty() && same_file(path, ipath))
        throw UsageError(
            fmt::format("{}: {} is also the input {}: writing it would destroy the input (give "
                        "another file name)",
                        flag, path, iflag));
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (!outputs[j].second.empty() && same_file(path, outputs[j].second))
        throw UsageError(fmt::format("{}: {} is also the output of {} (give each output its own file)", flag,
                                     path, outputs[j].first));
    }
  }
}

}  // namespace fabcheck::report
