#include "fabcheck/probes/topology.hpp"

#include "fabcheck/comm/heap_policy.hpp"

namespace fabcheck::probes {

Topology describe_topology(const comm::Communicator& comm, std::string_view backend,
                           const comm::ClockAlignment& clocks, std::string_view nccl_version) {
  Topology t;
  t.nranks = comm.size();
  const auto& hosts = comm.hosts();
  const auto& by_host = comm.ranks_by_host();
  for (std::size_t i = 0; i < hosts.size(); ++i) t.hosts.push_back({hosts[i], by_host[i]});
  t.backend = std::string(backend);
  t.mpi_library = comm::Runtime::library_version();
  t.mpi_thread_level = comm::Runtime::thread_level();
  const comm::HeapPolicy heap = comm::heap_policy();
  t.heap_mmap_threshold_bytes = heap.mmap_threshold_bytes;
  t.heap_set_by = heap.set_by;
  if (!nccl_version.empty()) t.nccl_version = std::string(nccl_version);
  t.clock_offset_us_max = clocks.max_abs_offset_us;
  t.clock_error_us_max = clocks.max_error_us;
  t.launcher = model::detect_launcher(model::process_env(), t.mpi_library);
  return t;
}

}  // namespace fabcheck::probes
