// After each step: gather every rank's CPU load reading and record it on rank 0 (see cpu_load_record.hpp).
#include "cpu_load_record.hpp"

#include <unistd.h>

#include <optional>
#include <vector>

#include "fabcheck/core/cpu_load.hpp"
#include "fabcheck/report/cpu_load.hpp"

namespace fabcheck::suite::detail {

CpuWindow start_cpu_window(const comm::Communicator& world) {
  CpuWindow w;
  if (world.local_rank() == 0) w.procs = core::read_other_process_cpu();
  w.started = std::chrono::steady_clock::now();
  return w;
}

nlohmann::json gather_cpu_load(const comm::Communicator& world, double runnable_mean,
                               const CpuWindow& window) {
  auto mine = core::read_cpu_load();
  if (mine) {
    mine->runnable_mean = runnable_mean;
    if (window.procs.ok) {
      const double other_s = core::other_process_cpu_s(window.procs, core::read_other_process_cpu(),
                                                       static_cast<double>(::sysconf(_SC_CLK_TCK)));
      if (other_s >= 0) {
        mine->other_proc_cpu_s = other_s;
        mine->wall_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - window.started).count();
      }
    }
  }
  const auto lines = world.gather(mine ? core::to_line(*mine) : std::string(), 0);
  if (world.rank() != 0) return nullptr;
  std::vector<std::optional<core::CpuLoadSample>> samples;
  samples.reserve(lines.size());
  for (const auto& l : lines) samples.push_back(core::cpu_load_from_line(l));
  const auto kernels = core::group_cpu_load(samples, world.hosts_of_ranks());
  if (kernels.empty()) return nullptr;  // nowhere readable (not Linux): no record, nothing explained
  return report::cpu_load_json(kernels);
}

}  // namespace fabcheck::suite::detail
