// The CPU time of a kernel's other processes (see proc_cpu.hpp).
#include "fabcheck/core/proc_cpu.hpp"

#include "fabcheck/core/ascii.hpp"

#include <dirent.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <string>

namespace fabcheck::core {
namespace {

template <typename T>
std::optional<T> number(std::string_view t) {
  T v{};
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
  return v;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  if (in) std::getline(in, s);
  return s;
}

std::string exe_of(const std::string& pid) {
  char buf[4096];
  const ssize_t n = ::readlink(("/proc/" + pid + "/exe").c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

std::optional<ProcStat> parse_proc_pid_stat(std::string_view text) {
  const auto close = text.rfind(')');
  if (close == std::string_view::npos || text.find('(') == std::string_view::npos) return std::nullopt;
  // After ")": field 3 (state) is index 0, so field k is index k - 3.
  const auto f = split_blanks(text.substr(close + 1));
  if (f.size() < 20) return std::nullopt;
  const auto ppid = number<int>(f[1]);
  const auto utime = number<unsigned long long>(f[11]);
  const auto stime = number<unsigned long long>(f[12]);
  const auto start = number<unsigned long long>(f[19]);
  if (!ppid || !utime || !stime || !start) return std::nullopt;
  ProcStat s;
  s.ppid = *ppid;
  s.cpu_ticks = static_cast<double>(*utime) + static_cast<double>(*stime);
  s.starttime = *start;
  return s;
}

ProcessCpu read_other_process_cpu() {
  ProcessCpu out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  const std::string self_exe = exe_of("self");
  const int self = static_cast<int>(::getpid());
  while (const dirent* e = ::readdir(d)) {
    const auto pid = number<int>(e->d_name);
    if (!pid || *pid == self || *pid == 2) continue;
    const auto st = parse_proc_pid_stat(read_text(std::string("/proc/") + e->d_name + "/stat"));
    if (!st || st->ppid == 2) continue;  // gone meanwhile, or a kernel thread
    if (!self_exe.empty() && exe_of(e->d_name) == self_exe) continue;
    out.by_pid[*pid] = *st;
  }
  ::closedir(d);
  out.ok = true;
  return out;
}

double other_process_cpu_s(const ProcessCpu& before, const ProcessCpu& after, double ticks_per_s) {
  if (!before.ok || !after.ok || ticks_per_s <= 0) return -1;
  double ticks = 0;
  for (const auto& [pid, a] : after.by_pid) {
    const auto b = before.by_pid.find(pid);
    if (b != before.by_pid.end() && b->second.starttime == a.starttime)
      ticks += std::max(0.0, a.cpu_ticks - b->second.cpu_ticks);
    else
      ticks += a.cpu_ticks;  // started during the window (or a reused pid)
  }
  return ticks / ticks_per_s;
}

}  // namespace fabcheck::core
