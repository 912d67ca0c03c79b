// run_inventory: one inventory per host, collected by the host leader, gathered to rank 0 as JSON text.
#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <sstream>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/comm/phase.hpp"
#include "fabcheck/core/cpulist.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/probes/inventory.hpp"

namespace fabcheck::probes {
namespace {

/// This process's allowed CPUs (sched_getaffinity(2)) in list form and the CPUs online on the host, as
/// "<cpus> <online>"; "" when the call fails.
std::string my_binding() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return "";
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return core::format_cpulist(cpus) + " " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN));
}

/// Gives each host's inventory the bindings of its ranks (rank 0, after the gathers).
void attach_bindings(const comm::Communicator& comm, const std::vector<std::string>& bindings,
                     InventoryResult& r) {
  for (int rank = 0; rank < static_cast<int>(bindings.size()); ++rank) {
    std::istringstream in(bindings[static_cast<std::size_t>(rank)]);
    model::RankBinding b;
    if (!(in >> b.cpus >> b.host_cpus)) continue;
    b.rank = rank;
    const auto& on_host = comm.ranks_by_host()[static_cast<std::size_t>(comm.host_index(rank))];
    b.local_rank = static_cast<int>(std::find(on_host.begin(), on_host.end(), rank) - on_host.begin());
    const auto& host = comm.hosts_of_ranks()[static_cast<std::size_t>(rank)];
    for (auto& h : r.hosts)
      if (h.host == host) h.rank_bindings.push_back(b);
  }
}

}  // namespace

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
  const auto bindings = comm.gather(my_binding(), 0);
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
  attach_bindings(comm, bindings, r);
  return r;
}

}  // namespace fabcheck::probes
