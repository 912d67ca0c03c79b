#pragma once
/// @file One transport verdict per run, drawn from all the evidence its steps brought.
///
/// Every step that learns something about the transport appends it here — the inventory (what the hosts
/// have, the launcher's environment), NCCL's own log (what NCCL used), the MPI signature of latency/pairs
/// (what MPI's timings show) — and the verdict is redrawn from everything so far (analyze_transport on the
/// whole input), so a later step never drops an earlier step's evidence. When it holds both NCCL's logs and
/// the hosts' inventories, the log x host cross-checks (report/log_host.hpp: the GID index in effect,
/// NCCL_IB_HCA, NCCL_SOCKET_IFNAME against each host) join the verdict's findings.
#include <map>
#include <string>
#include <vector>

#include "fabcheck/model/inventory.hpp"
#include "fabcheck/report/transport.hpp"

namespace fabcheck::report {

class TransportAccumulator {
 public:
  /// The inventory's evidence per host and the launcher's (filtered) environment.
  void add_inventory(std::vector<HostRdmaEvidence> hosts, const std::map<std::string, std::string>& env);
  /// The hosts' inventories: their evidence (rdma_evidence) as above, and the inventories themselves for the
  /// log x host cross-checks.
  void add_inventories(const model::InventoryResult& inventory,
                       const std::map<std::string, std::string>& env);
  /// NCCL's own logs, the environment NCCL ran with (it wins over the launcher's) and notes on the logs
  /// (ranks without a log, …), quoted as `nccl_log` evidence.
  void add_nccl_logs(std::vector<parse::NcclLog> logs, const std::map<std::string, std::string>& env,
                     std::vector<std::string> notes);
  /// MPI signatures measured between hosts.
  void add_signatures(std::vector<MpiSignature> sigs);
  /// True before any evidence.
  bool empty() const;
  /// The verdict from all evidence so far.
  TransportResult result() const;
  /// The evidence so far.
  const TransportInput& input() const { return in_; }

 private:
  TransportInput in_;
  model::InventoryResult inventory_;
  std::vector<std::string> notes_;
  bool any_ = false;
};

}  // namespace fabcheck::report
