#pragma once
/// @file The report's `topology` section (DESIGN §6).
#include "fabcheck/model/topology.hpp"
#include "fabcheck/report/document.hpp"

namespace fabcheck::report {

/// Sets `topology` = {nranks, hosts: [{host, ranks}], backend, mpi_library, nccl_version (null with
/// nccl_version_reason when NCCL was not used), clock_offset_us_max, clock_error_us_max}. Replaces an earlier
/// one. Also sets `run.launcher` (launcher_json) when the topology carries one.
void add_topology(Document& doc, const model::Topology& t);

/// The section as JSON (what add_topology stores).
nlohmann::json topology_json(const model::Topology& t);

/// `run.launcher`: {kind, evidence, slurm_job_id, slurm_step_id, nodelist, pmi, slurm_mpi_type, mpijob_role,
/// mpi_implementation, mpi_version}; null where unknown.
nlohmann::json launcher_json(const model::Launcher& l);

}  // namespace fabcheck::report
