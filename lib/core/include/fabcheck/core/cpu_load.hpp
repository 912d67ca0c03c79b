#pragma once
/// @file How busy a host's CPUs are (where a property cannot hold under load, fabcheck measures the load
/// and says so). A ping-pong's p50, a retest and a step's duration measure the CPUs as much as the fabric
/// when other work competes for the cores; fabcheck records the load beside every step so that its verdicts
/// can say so. Sources: proc(5) `/proc/loadavg` (the 1-minute load average; "number of currently runnable
/// kernel scheduling entities / number that exist"), sysconf(3) `_SC_NPROCESSORS_ONLN`, and
/// `/proc/sys/kernel/random/boot_id` (random(4): one value per boot of a kernel; network namespaces on one
/// machine, as the virtual fabric's hosts, share it: they share the cores) and the CPU time of the kernel's
/// other processes (proc_cpu.hpp).
///
/// Two measures of other work. Runnable tasks (the sampler) count fabcheck's ranks as running, which they are
/// when they spin but not when they sleep in poll(2) on a socket: a CPU hog beside sleeping ranks read 0.00
/// other tasks per core (fabric_latency_tail, 2026-12-01), and the kernel's own threads doing fabcheck's
/// network work read up to 0.67 on quiet steps. The other processes' CPU time sees a hog whatever the ranks
/// do, and not the kernel's work: where it was measured, it decides.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::core {

/// One reading of a host's load.
struct CpuLoadSample {
  double loadavg_1m = 0;  ///< 1-minute load average
  int runnable = 0;       ///< tasks runnable at the moment of reading (the 4th field's numerator)
  int cpus = 0;           ///< online CPUs
  std::string boot_id;    ///< the kernel this rank runs on ("" when unreadable)
  /// Mean of `runnable` read every 200 ms during the step by a sampler thread (CpuLoadSampler), the thread
  /// itself not counted; < 0 when this rank did not sample (one sampler per host: its local rank 0).
  double runnable_mean = -1;
  /// Over the step: CPU seconds used by the kernel's other processes (proc_cpu.hpp) and the wall time between
  /// the two readings; < 0 when this rank did not measure (one reader per host: its local rank 0).
  double other_proc_cpu_s = -1;
  double wall_s = -1;
};

/// Shortest step whose CPU-time measure is judged: process times count in clock ticks (100 per second), so
/// shorter windows are too coarse.
inline constexpr double kCpuTimeMinWall_s = 0.5;

/// Parses the text of /proc/loadavg ("0.52 0.58 0.59 3/612 12345"): fills loadavg_1m and runnable.
/// nullopt when the text does not have that form.
std::optional<CpuLoadSample> parse_loadavg(std::string_view text);

/// Reads this host's load now (nullopt where /proc/loadavg cannot be read: not Linux).
std::optional<CpuLoadSample> read_cpu_load();

/// One kernel's load as the ranks on it saw it at a step's end.
struct KernelLoad {
  std::string boot_id;             ///< "" when unknown (then one host = one kernel)
  std::vector<std::string> hosts;  ///< hosts (MPI host names) on this kernel, sorted
  int ranks = 0;                   ///< fabcheck's ranks on it
  int cpus = 0;
  double loadavg_1m = 0;      ///< the highest reading of its ranks (context: it trails by about a minute)
  int runnable = 0;           ///< the highest reading of its ranks at the step's end
  double runnable_mean = -1;  ///< the highest sampler mean of its ranks over the step (< 0: none sampled)
  /// Other runnable tasks per core: max(0, R - ranks) / cpus, with R the runnable mean over the step when a
  /// sampler ran, else the 1-minute load average. fabcheck's ranks are subtracted whole (MPI ranks spin while
  /// they wait, so each counts as one runnable task; a rank asleep in poll(2) makes this an underestimate).
  double runnable_excess_per_core = 0;
  /// Other processes' CPU time per core: C / (wall * cpus), with C the highest reading of its ranks that
  /// measured and wall that rank's window; < 0 when none did or the step was shorter than kCpuTimeMinWall_s.
  double other_cpu_per_core = -1;
  /// Other work per core as judged: other_cpu_per_core where measured (it counts what other processes used,
  /// not what fabcheck's own threads wait in), else runnable_excess_per_core.
  double excess_per_core = 0;
  /// "cpu_time" or "runnable": which measure excess_per_core is.
  std::string measured_by;
  /// excess_per_core at or above its measure's threshold (kCpuBusyOtherCpuPerCore, kCpuBusyExcessPerCore).
  /// Never on a step whose measured window was shorter than kCpuTimeMinWall_s: there only the runnable
  /// count is left, and it counts the launch's and the step's own start-up (a quiet default run on the
  /// virtual fabric, 2026-12-03: 0.32 other runnable tasks per core during its 0.01 s inventory step, the
  /// CPU-time measure 0.000-0.003 on every longer step), while a hog beside ranks asleep in poll(2) reads
  /// 0.00 there; the longer steps of the same run judge the load.
  bool busy = false;
};

/// Other work per core at which a kernel counts as busy: a quarter of a core's worth of other runnable tasks
/// per core (one foreign CPU hog on 4 cores; measured on the 2-core virtual fabric: one `yes` beside 4 ranks
/// gave 0.5, a quiet run 0.0-0.1).
inline constexpr double kCpuBusyExcessPerCore = 0.25;

/// Other processes' CPU time per core at which a kernel counts as busy: a tenth of every core. Measured on
/// the 2-core virtual fabric (4 hosts, default `run`, 2026-12-02): quiet steps 0.000-0.003; one `yes` beside
/// the run 0.199-0.229 (its fair share beside 4 spinning ranks, 1/5 of 2 cores, is 0.2). The runnable measure
/// read 0.26-0.30 on the same quiet run's sweep and scaling steps (the kernel's threads working for
/// fabcheck's sockets) and 0.00 with the hog beside 4 ranks asleep in poll(2), which is why CPU time, where
/// measured, decides.
inline constexpr double kCpuBusyOtherCpuPerCore = 0.1;

/// Samples this host's runnable tasks every 200 ms on a thread while it lives (proc(5) /proc/loadavg, 4th
/// field), for CpuLoadSample::runnable_mean. Inactive: no thread, mean() < 0.
class CpuLoadSampler {
 public:
  explicit CpuLoadSampler(bool active);
  ~CpuLoadSampler();
  CpuLoadSampler(const CpuLoadSampler&) = delete;
  CpuLoadSampler& operator=(const CpuLoadSampler&) = delete;
  /// Stops the thread (idempotent) and returns the mean runnable count, the sampler's own thread not counted;
  /// < 0 when inactive or nothing was read.
  double stop();

 private:
  struct State;
  State* s_ = nullptr;
};

/// Groups the ranks' samples by kernel (`samples[i]` and `hosts[i]` of rank i; a rank without a sample is
/// left out). Busy kernels first, then by excess_per_core, highest first.
std::vector<KernelLoad> group_cpu_load(const std::vector<std::optional<CpuLoadSample>>& samples,
                                       const std::vector<std::string>& hosts);

/// The sample as one line for gathering ("loadavg runnable cpus boot_id runnable_mean other_proc_cpu_s
/// wall_s", "-" for what was not measured), and back (nullopt when malformed).
std::string to_line(const CpuLoadSample& s);
std::optional<CpuLoadSample> cpu_load_from_line(std::string_view line);

}  // namespace fabcheck::core
