#include "fabcheck/report/topology.hpp"

#include "fabcheck/model/json_value.hpp"

namespace fabcheck::report {

nlohmann::json topology_json(const model::Topology& t) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const auto& h : t.hosts) hosts.push_back({{"host", h.host}, {"ranks", h.ranks}});
  nlohmann::json j = {{"nranks", t.nranks},
                      {"hosts", hosts},
                      {"backend", t.backend},
                      {"mpi_library", t.mpi_library},
                      {"nccl_version", nullptr},
                      {"clock_offset_us_max", t.clock_offset_us_max},
                      {"clock_error_us_max", t.clock_error_us_max}};
  if (t.nccl_version) {
    j["nccl_version"] = *t.nccl_version;
  } else {
    j["nccl_version_reason"] = "NCCL not used by backend " + t.backend;
  }
  return j;
}

nlohmann::json launcher_json(const model::Launcher& l) {
  const auto text = [](const std::string& v) {
    return v.empty() ? nlohmann::json(nullptr) : nlohmann::json(v);
  };
  return {{"kind", l.kind},
          {"evidence", l.evidence},
          {"slurm_job_id", model::value_or_null(l.slurm_job_id)},
          {"slurm_step_id", model::value_or_null(l.slurm_step_id)},
          {"nodelist", model::value_or_null(l.nodelist)},
          {"pmi", model::value_or_null(l.pmi)},
          {"slurm_mpi_type", model::value_or_null(l.slurm_mpi_type)},
          {"mpijob_role", model::value_or_null(l.mpijob_role)},
          {"mpi_implementation", text(l.mpi_implementation)},
          {"mpi_version", text(l.mpi_version)}};
}

void add_topology(Document& doc, const model::Topology& t) {
  doc.json()["topology"] = topology_json(t);
  if (t.launcher) doc.json()["run"]["launcher"] = launcher_json(*t.launcher);
  // The run section records the thread level MPI provided (MULTIPLE inflates small-message
  // figures).
  if (!t.mpi_thread_level.empty()) doc.json()["run"]["mpi_thread_level"] = t.mpi_thread_level;
  // The allocator policy the ranks ran under (comm::keep_freed_memory: MPI's per-call temporaries of 32 MiB
  // or more are not page-faulted in anew each call).
  if (!t.heap_set_by.empty()) {
    doc.json()["run"]["heap"] = {
        {"mmap_threshold_bytes", t.heap_mmap_threshold_bytes ? nlohmann::json(*t.heap_mmap_threshold_bytes)
                                                             : nlohmann::json(nullptr)},
        {"set_by", t.heap_set_by}};
  }
}

}  // namespace fabcheck::report
