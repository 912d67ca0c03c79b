#pragma once
/// @file The report's `topology` section (DESIGN §6).
#include "fabcheck/model/topology.hpp"
#include "fabcheck/report/document.hpp"

namespace fabcheck::report {

/// Sets `topology` = {nranks, hosts: [{host, ranks}], backend, mpi_library, nccl_version (null with
/// nccl_version_reason when NCCL was not used), clock_offset_us_max, clock_error_us_max}. Replaces an earlier
/// one.
void add_topology(Document& doc, const model::Topology& t);

/// The section as JSON (what add_topology stores).
nlohmann::json topology_json(const model::Topology& t);

}  // namespace fabcheck::report
