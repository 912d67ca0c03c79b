#pragma once
/// @file `fabcheck pairs`: every host pair measured, the link matrix, the slow link or bad host named (DESIGN
/// §5). Measurement only: returns plain structs, never prints.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/link_outliers.hpp"
#include "fabcheck/core/pair_schedule.hpp"
#include "fabcheck/model/options_pairs.hpp"
#include "fabcheck/model/pairs.hpp"

namespace fabcheck::probes {

using PairsOptions = model::PairsOptions;

/// Checks option ranges. @throws UsageError naming the flag (`--size 0`, `--window 0`, size < window, …).
void validate(const PairsOptions& opts);

/// Why pairs cannot run on this communicator (fewer than two hosts), or nullopt when it can.
/// `fabcheck pairs` turns the reason into a usage error (exit 2); `fabcheck run` into a skipped section.
std::optional<std::string> pairs_skip_reason(const comm::Communicator& comm);
/// The same for any probe that measures host pairs (pairs, nics): `probe` names it in the reason.
std::optional<std::string> two_host_skip_reason(const comm::Communicator& comm, std::string_view probe);

/// Sets model::PairsOutlier::owner from rail.analysis: the first suspect host for which the outlier lies in a
/// direction where most of the host's links are flagged (its outgoing or incoming bandwidth links, or its
/// latency pairs); -1 (a link finding) otherwise. rail.outliers must mirror rail.analysis.outliers.
void assign_owners(model::PairsRail& rail);

/// Runs the probe (collective over comm). Rounds of the circle schedule run one after another; within a round
/// all pairs take the same step at once, with a barrier after each step: bandwidth lower → higher host, then
/// higher → lower, then (--bidir) both at once, then 8 B latency. Then (retest) each flagged link not owned
/// by a suspect host (at most 32 per rail), up to 3 flagged links per flagged direction of each suspect host,
/// and up to 3 reference links (not flagged, between non-suspect hosts) are measured one at a time,
/// references interleaved with the checks; a check still bad by core::still_outlier against the worst
/// reference measurement confirms it (conservative: noise on the references refutes rather than condemns); a
/// suspect host is confirmed when most of its re-measured links are; outliers it owns that were not
/// re-measured inherit that.
/// @throws UsageError when pairs_skip_reason() gives a reason; RuntimeFailure on MPI errors.
model::PairsResult run_pairs(const comm::Communicator& comm, const PairsOptions& opts);

}  // namespace fabcheck::probes
