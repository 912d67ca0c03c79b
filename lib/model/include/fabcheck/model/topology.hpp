#pragma once
/// @file Result structs of the topology probe, as the report model holds them (the model owns every
/// probe's data; lib/probes fills them, lib/analysis and lib/render read them, without MPI).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fabcheck/model/launcher.hpp"

namespace fabcheck::model {
/// The ranks on one host.
struct HostRanks {
  std::string host;        ///< host name (cut at the first '.')
  std::vector<int> ranks;  ///< ranks on it, ascending
};
/// `topology` of the report: {nranks, hosts: [{host, ranks}], backend, mpi_library, nccl_version,
/// clock_offset_us_max}.
struct Topology {
  int nranks = 0;                ///< ranks in the communicator
  std::vector<HostRanks> hosts;  ///< hosts in order of their lowest rank
  std::string backend;           ///< collective backend: "mpi" | "nccl"
  std::string mpi_library;       ///< MPI_Get_library_version, first line
  std::string mpi_thread_level;  ///< MPI_Query_thread: single|funneled|serialized|multiple (in run)
  std::optional<std::int64_t> heap_mmap_threshold_bytes;  ///< comm::HeapPolicy (in run.heap)
  std::string heap_set_by;                                ///< comm::HeapPolicy::set_by; "" when not recorded
  std::optional<std::string> nccl_version;  ///< e.g. "NCCL 2.28.3"; nullopt when NCCL was not used
  double clock_offset_us_max = 0;           ///< max |clock offset to rank 0| over ranks, µs
  double clock_error_us_max = 0;            ///< max error bound (half round trip) of that alignment, µs
  std::optional<Launcher> launcher;         ///< how the ranks were started (report: run.launcher)
};

}  // namespace fabcheck::model
