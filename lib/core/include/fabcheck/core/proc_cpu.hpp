#pragma once
/// @file CPU time used by the other processes of a kernel (where a property cannot hold under
/// load, fabcheck measures the load and says so). Sources: proc(5) `/proc/[pid]/stat` (field 4 ppid, 14
/// utime, 15 stime in clock ticks, 22 starttime; the times of a process include those of its threads, exited
/// ones too) and sysconf(3) `_SC_CLK_TCK`.
///
/// Why not the kernel's busy time (`/proc/stat`) minus fabcheck's own (`CLOCK_PROCESS_CPUTIME_ID`): on the
/// virtual fabric 22 % of the busy ticks of a quiet sweep were softirq (veth and TCP work for fabcheck's own
/// sockets), charged to the ranks in part and to kernel threads in part, so that difference read -0.20 to
/// +0.09 per core on quiet steps, as far from zero as a CPU hog's share (2026-12-02). Summing the other user
/// processes counts a hog exactly and leaves the kernel's network work out.
#include <map>
#include <optional>
#include <string_view>

namespace fabcheck::core {

/// One process's line of /proc/[pid]/stat, the fields this file reads.
struct ProcStat {
  int ppid = 0;
  double cpu_ticks = 0;  ///< utime + stime
  unsigned long long starttime = 0;
};

/// Parses /proc/[pid]/stat text (the command name in parentheses may hold blanks and parentheses: fields are
/// counted after the last ')'). nullopt when malformed.
std::optional<ProcStat> parse_proc_pid_stat(std::string_view text);

/// CPU ticks of each user process of this kernel, by pid, with its start time. Leaves out kernel threads
/// (pid 2, kthreadd, and its children) and every process running the same executable as this one
/// (`/proc/self/exe`: fabcheck's ranks, and their threads).
struct ProcessCpu {
  std::map<int, ProcStat> by_pid;
  bool ok = false;  ///< /proc could be read
};
ProcessCpu read_other_process_cpu();

/// CPU seconds the processes used between two readings: a process in both (same pid and start time) counts
/// its increase, one that started in between counts all of its time; one that ended in between is missed
/// (its time is not readable any more). `ticks_per_s`: sysconf(_SC_CLK_TCK). < 0 when either reading failed.
double other_process_cpu_s(const ProcessCpu& before, const ProcessCpu& after, double ticks_per_s);

}  // namespace fabcheck::core
