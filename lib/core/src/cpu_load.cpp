// Reading and grouping hosts' CPU load (see cpu_load.hpp).
#include "fabcheck/core/cpu_load.hpp"

#include "fabcheck/core/ascii.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace fabcheck::core {
namespace {

std::string first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  return line;
}

std::optional<double> to_double(std::string_view t) {
  double v = 0;
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || !std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

std::optional<int> to_int(std::string_view t) {
  int v = 0;
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || v < 0) return std::nullopt;
  return v;
}

}  // namespace

std::optional<CpuLoadSample> parse_loadavg(std::string_view text) {
  const auto f = split_blanks(text);
  if (f.size() < 4) return std::nullopt;
  const auto load = to_double(f[0]);
  const auto slash = f[3].find('/');
  if (!load || slash == std::string_view::npos) return std::nullopt;
  const auto runnable = to_int(f[3].substr(0, slash));
  if (!runnable) return std::nullopt;
  CpuLoadSample s;
  s.loadavg_1m = *load;
  s.runnable = *runnable;
  return s;
}

std::optional<CpuLoadSample> read_cpu_load() {
  auto s = parse_loadavg(first_line("/proc/loadavg"));
  if (!s) return std::nullopt;
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  s->cpus = cpus > 0 ? static_cast<int>(cpus) : 1;
  s->boot_id = first_line("/proc/sys/kernel/random/boot_id");
  return s;
}

std::vector<KernelLoad> group_cpu_load(const std::vector<std::optional<CpuLoadSample>>& samples,
                                       const std::vector<std::string>& hosts) {
  std::map<std::string, KernelLoad> by_kernel;
  std::map<std::string, std::set<std::string>> hosts_of;
  std::map<std::string, double> other_per_core;  // the highest reading of the kernel's ranks that measured
  std::map<std::string, double> longest_wall;    // the longest window of the kernel's ranks that measured
  for (std::size_t i = 0; i < samples.size() && i < hosts.size(); ++i) {
    if (!samples[i]) continue;
    const auto& s = *samples[i];
    const std::string key = s.boot_id.empty() ? "host:" + hosts[i] : s.boot_id;
    auto& k = by_kernel[key];
    k.boot_id = s.boot_id;
    ++k.ranks;
    k.cpus = std::max(k.cpus, s.cpus);
    k.loadavg_1m = std::max(k.loadavg_1m, s.loadavg_1m);
    k.runnable = std::max(k.runnable, s.runnable);
    k.runnable_mean = std::max(k.runnable_mean, s.runnable_mean);
    hosts_of[key].insert(hosts[i]);
    if (s.wall_s >= 0) longest_wall[key] = std::max(longest_wall[key], s.wall_s);
    if (s.other_proc_cpu_s >= 0 && s.wall_s >= kCpuTimeMinWall_s) {
      const double per_core = s.other_proc_cpu_s / (s.wall_s * std::max(1, s.cpus));
      auto [it, fresh] = other_per_core.try_emplace(key, per_core);
      if (!fresh) it->second = std::max(it->second, per_core);
    }
  }
  std::vector<KernelLoad> out;
  for (auto& [key, k] : by_kernel) {
    k.hosts.assign(hosts_of[key].begin(), hosts_of[key].end());
    const double r = k.runnable_mean >= 0 ? k.runnable_mean : k.loadavg_1m;
    k.runnable_excess_per_core = std::max(0.0, r - k.ranks) / std::max(1, k.cpus);
    if (const auto o = other_per_core.find(key); o != other_per_core.end()) k.other_cpu_per_core = o->second;
    if (k.other_cpu_per_core >= 0) {
      k.excess_per_core = k.other_cpu_per_core;
      k.measured_by = "cpu_time";
      k.busy = k.excess_per_core >= kCpuBusyOtherCpuPerCore;
    } else {
      k.excess_per_core = k.runnable_excess_per_core;
      k.measured_by = "runnable";
      // A step too short for the CPU-time measure is not judged by the runnable count either (see
      // KernelLoad::busy): it counts the launch's and the step's own start-up work.
      const auto w = longest_wall.find(key);
      const bool short_step = w != longest_wall.end() && w->second < kCpuTimeMinWall_s;
      k.busy = !short_step && k.excess_per_core >= kCpuBusyExcessPerCore;
    }
    out.push_back(std::move(k));
  }
  std::stable_sort(out.begin(), out.end(), [](const KernelLoad& a, const KernelLoad& b) {
    if (a.busy != b.busy) return a.busy;
    return a.excess_per_core > b.excess_per_core;
  });
  return out;
}

std::string to_line(const CpuLoadSample& s) {
  const auto num = [](double v) { return v >= 0 ? fmt::format("{:.6f}", v) : std::string("-"); };
  return fmt::format("{:.2f} {} {} {} {} {} {}", s.loadavg_1m, s.runnable, s.cpus,
                     s.boot_id.empty() ? "-" : s.boot_id, num(s.runnable_mean), num(s.other_proc_cpu_s),
                     num(s.wall_s));
}

std::optional<CpuLoadSample> cpu_load_from_line(std::string_view line) {
  const auto f = split_blanks(line);
  if (f.size() != 7) return std::nullopt;
  const auto load = to_double(f[0]);
  const auto runnable = to_int(f[1]);
  const auto cpus = to_int(f[2]);
  if (!load || !runnable || !cpus || *cpus < 1) return std::nullopt;
  CpuLoadSample s;
  s.loadavg_1m = *load;
  s.runnable = *runnable;
  s.cpus = *cpus;
  s.boot_id = f[3] == "-" ? "" : std::string(f[3]);
  double* dest[] = {&s.runnable_mean, &s.other_proc_cpu_s, &s.wall_s};
  for (std::size_t i = 0; i < 3; ++i) {
    if (f[4 + i] == "-") continue;
    const auto v = to_double(f[4 + i]);
    if (!v) return std::nullopt;
    *dest[i] = *v;
  }
  return s;
}

struct CpuLoadSampler::State {
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  double sum = 0;
  std::size_t n = 0;
  std::thread thread;
};

CpuLoadSampler::CpuLoadSampler(bool active) {
  if (!active) return;
  s_ = new State;
  s_->thread = std::thread([st = s_] {
    std::unique_lock<std::mutex> lk(st->mu);
    // The first reading after 200 ms, not at the step's start (where every rank and sampler starts at once).
    while (!st->cv.wait_for(lk, std::chrono::milliseconds(200), [st] { return st->stop; })) {
      lk.unlock();
      const auto r = parse_loadavg(first_line("/proc/loadavg"));
      lk.lock();
      // The sampler runs while it reads: it is one of the runnable tasks it counts.
      if (r) {
        st->sum += std::max(0, r->runnable - 1);
        ++st->n;
      }
    }
  });
}

double CpuLoadSampler::stop() {
  if (!s_) return -1;
  {
    std::lock_guard<std::mutex> lk(s_->mu);
    s_->stop = true;
  }
  s_->cv.notify_all();
  if (s_->thread.joinable()) s_->thread.join();
  return s_->n ? s_->sum / static_cast<double>(s_->n) : -1;
}

CpuLoadSampler::~CpuLoadSampler() {
  stop();
  delete s_;
}

}  // namespace fabcheck::core
