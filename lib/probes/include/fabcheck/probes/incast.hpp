#pragma once
/// @file Incast stress probe (DESIGN §5 "Incast"): k senders each send S bytes to one receiver, released
/// together (barrier, then a common start time on clocks aligned to rank 0); a victim ping-pong between the
/// receiver and a host that does not send is measured alone and during the bursts (GPCNeT's congestion
/// impact).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/model/incast.hpp"
#include "fabcheck/model/options_incast.hpp"

namespace fabcheck::probes {

using IncastOptions = model::IncastOptions;

/// Checks option ranges that need no communicator. @throws UsageError naming the flag.
void validate(const IncastOptions& opts);

/// Checks options against the run (endpoints available). @throws UsageError naming the flag.
void validate(const IncastOptions& opts, const std::vector<std::string>& endpoints);

/// The endpoints of a communicator (pure: from its host table).
model::IncastEndpoints incast_endpoints(const comm::Communicator& comm);

/// Runs the probe. Collective over `comm` (all ranks call it; non-endpoint ranks only join barriers).
/// @throws UsageError on options that do not fit the run (checked identically on every rank).
/// @throws RuntimeFailure on MPI errors.
model::IncastResult run_incast(const comm::Communicator& comm, const IncastOptions& opts);

}  // namespace fabcheck::probes
