// After each step: gather every rank's CPU load reading and record it on rank 0 (see cpu_load_record.hpp).
#include "cpu_load_record.hpp"

#include <optional>
#include <vector>

#include "fabcheck/core/cpu_load.hpp"
#include "fabcheck/report/cpu_load.hpp"

namespace fabcheck::suite::detail {

nlohmann::json gather_cpu_load(const comm::Communicator& world, double runnable_mean) {
  auto mine = core::read_cpu_load();
  if (mine) mine->runnable_mean = runnable_mean;
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
