// A command's output files: the checks before it runs, the atomic writer, the multiplexer (sinks.hpp).
#include "fabcheck/report/sinks.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "fabcheck/core/error.hpp"

namespace fabcheck::report {
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

/// The process's umask, read without changing it (umask(2) can only be read by setting it, which would race
/// with the watchdog's thread): /proc/self/status "Umask:" (Linux 4.7+), else the usual 022.
mode_t current_umask() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
  }
  return 022;
}

/// A file written beside its target under a name nobody else could have made, not yet renamed.
struct Prepared {
  std::string tmp, path, flag;
};

[[noreturn]] void cannot_write(std::string_view flag, const std::string& path, int err) {
  throw UsageError(fmt::format("{}: cannot write {}: {}", flag, path, std::strerror(err)));
}

/// Writes `text` to a temporary file in the target's folder: created by mkostemp(3) (O_EXCL: a symlink,
/// FIFO or device planted under a predictable name is never opened), given the mode of the file it will
/// replace, synced. A file size limit (`ulimit -f`) surfaces as EFBIG: SIGXFSZ, which would end the
/// process and leave the file, is ignored.
Prepared prepare(const std::string& path, const std::string& text, std::string_view flag) {
  static const bool xfsz_ignored = [] {
    std::signal(SIGXFSZ, SIG_IGN);
    return true;
  }();
  (void)xfsz_ignored;
  check_target_kind(path, flag);
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  // A name of up to 255 bytes keeps room for ".<name>.XXXXXX"; a longer one uses a fixed short stem.
  std::string tmpl = dir + (base.size() <= 240 ? "." + base : std::string(".fabcheck")) + ".XXXXXX";
  const int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) cannot_write(flag, path, errno);
  struct stat st {};
  const mode_t mode = ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : (0644 & ~current_umask());
  int err = ::fchmod(fd, mode) != 0 ? errno : 0;
  std::size_t done = 0;
  while (err == 0 && done < text.size()) {
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
    std::remove(tmpl.c_str());  // no temporary file is left behind
    cannot_write(flag, path, err);
  }
  return {tmpl, path, std::string(flag)};
}

void commit(const Prepared& p) {
  if (std::rename(p.tmp.c_str(), p.path.c_str()) != 0) {
    const int err = errno;
    std::remove(p.tmp.c_str());
    cannot_write(p.flag, p.path, err);
  }
}

}  // namespace

std::string json_text(const nlohmann::json& report) {
  // error_handler replace: never throw on odd bytes in foreign strings (hostnames, log lines).
  return report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void write_text_atomic(const std::string& path, const std::string& text, std::string_view flag) {
  commit(prepare(path, text, flag));
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

Sinks& Sinks::input(std::string flag, std::string path) {
  inputs_.emplace_back(std::move(flag), std::move(path));
  return *this;
}

Sinks& Sinks::add(Sink s) {
  outputs_.push_back(std::move(s));
  return *this;
}

Sinks& Sinks::json(std::string flag, std::string path) {
  return add({std::move(flag), std::move(path), json_text});
}

bool Sinks::any() const {
  for (const auto& s : outputs_)
    if (!s.path.empty()) return true;
  return false;
}

void Sinks::check() const {
  std::vector<std::pair<std::string, std::string>> outs;
  for (const auto& s : outputs_) {
    if (!s.path.empty()) check_writable(s.path, s.flag);
    outs.emplace_back(s.flag, s.path);
  }
  check_distinct_paths(inputs_, outs);
}

void Sinks::write(const nlohmann::json& report) const {
  std::vector<std::string> texts;
  for (const auto& s : outputs_) texts.push_back(!s.path.empty() && s.text ? s.text(report) : std::string());
  std::vector<Prepared> ready;
  try {
    for (std::size_t i = 0; i < outputs_.size(); ++i) {
      if (!outputs_[i].path.empty() && outputs_[i].text)
        ready.push_back(prepare(outputs_[i].path, texts[i], outputs_[i].flag));
    }
  } catch (...) {
    for (const auto& p : ready) std::remove(p.tmp.c_str());
    throw;
  }
  for (std::size_t i = 0; i < ready.size(); ++i) {
    try {
      commit(ready[i]);
    } catch (...) {
      for (std::size_t j = i + 1; j < ready.size(); ++j) std::remove(ready[j].tmp.c_str());
      throw;
    }
  }
}

}  // namespace fabcheck::report
