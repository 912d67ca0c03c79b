#pragma once
// Private to lib/probes: the RDMA verbs part of the nics probe. Implemented by nics_verbs.cpp
// where the build has libibverbs (FABCHECK_HAVE_IBVERBS), else by nics_noverbs.cpp; no verbs headers here.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/pair_schedule.hpp"
#include "fabcheck/model/nics_verbs.hpp"
#include "fabcheck/model/options_nics.hpp"

namespace fabcheck::probes::detail {

/// Why this build cannot run the verbs part ("built without libibverbs"), or nullopt.
std::optional<std::string> verbs_build_skip_reason();

/// The verbs part, collective over comm (every rank calls it; with libibverbs it exchanges each host's active
/// ports over MPI, then the host leaders measure every port pair of each scheduled host pair). `env` decides
/// the GID index as NCCL's (NCCL_IB_GID_INDEX, NCCL_IB_ADDR_FAMILY, …) and the service level / traffic class
/// (NCCL_IB_SL, NCCL_IB_TC). Links on rank 0 only. With opts.verbs "on", a host without an active port stops
/// the run on every rank. @throws RuntimeFailure for `--verbs on` when a host has none.
model::NicsVerbs run_nics_verbs(const comm::Communicator& comm, const model::NicsOptions& opts,
                                const std::vector<core::PairRound>& schedule,
                                const std::map<std::string, std::string>& env);

}  // namespace fabcheck::probes::detail
