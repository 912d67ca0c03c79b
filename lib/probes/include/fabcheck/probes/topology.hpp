#pragma once
/// @file Who ran where: the report's `topology` section (DESIGN §6), gathered from a communicator.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/model/topology.hpp"

namespace fabcheck::probes {
using HostRanks = model::HostRanks;
using Topology = model::Topology;

/// Describes `comm` (no communication: hosts are known to the communicator).
/// @param backend       backend name recorded in the section.
/// @param clocks        the clock alignment the probe used (comm::align_clocks).
/// @param nccl_version  NCCL version text when the nccl backend ran; empty otherwise.
Topology describe_topology(const comm::Communicator& comm, std::string_view backend,
                           const comm::ClockAlignment& clocks, std::string_view nccl_version = {});

}  // namespace fabcheck::probes
