// run_inventory: one inventory per host, collected by the host leader, gathered to rank 0 as JSON text.
#include <fmt/format.h>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/comm/phase.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/probes/inventory.hpp"

namespace fabcheck::probes {

InventoryResult run_inventory(const comm::Communicator& comm, const InventoryOptions& opts) {
  validate(opts);
  comm::enter_phase("inventory collect");
  std::string mine;
  std::string error;
  if (comm.local_rank() == 0) {
    try {
      auto verbs = make_system_verbs();
      auto h = collect_host_inventory(opts, *verbs, filter_transport_env(process_environment()), comm.host());
      mine = to_json_text(h);
    } catch (const std::exception& e) {
      error = fmt::format("inventory on host {}: {}", comm.host(), e.what());
    }
  }
  // Agree on failure before anyone returns, so no rank waits in the gather alone.
  const bool failed =
      comm.allreduce(static_cast<std::int64_t>(error.empty() ? 0 : 1), comm::ScalarOp::kMax) != 0;
  comm::enter_phase("inventory gather");
  auto all = comm.gather(failed ? error : mine, 0);
  InventoryResult r;
  if (comm.rank() != 0) {
    if (failed) throw RuntimeFailure("inventory failed on a host leader (rank 0 reports it)");
    return r;
  }
  if (failed) {
    for (const auto& s : all)
      if (!s.empty() && s.front() != '{') throw RuntimeFailure(s);
    throw RuntimeFailure("inventory failed on a host leader");
  }
  for (const auto& s : all)
    if (!s.empty()) r.hosts.push_back(host_inventory_from_json_text(s));
  return r;
}

}  // namespace fabcheck::probes
