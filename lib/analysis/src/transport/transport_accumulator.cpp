#include "fabcheck/report/transport_accumulator.hpp"

#include "fabcheck/report/inventory.hpp"
#include "fabcheck/report/log_host.hpp"

namespace fabcheck::report {

void TransportAccumulator::add_inventory(std::vector<HostRdmaEvidence> hosts,
                                         const std::map<std::string, std::string>& env) {
  for (auto& h : hosts) in_.hosts.push_back(std::move(h));
  for (const auto& [k, v] : env) in_.env.emplace(k, v);  // NCCL's own environment, when known, wins
  any_ = true;
}

void TransportAccumulator::add_inventories(const model::InventoryResult& inventory,
                                           const std::map<std::string, std::string>& env) {
  add_inventory(rdma_evidence(inventory), env);
  for (const auto& h : inventory.hosts) inventory_.hosts.push_back(h);
}

void TransportAccumulator::add_nccl_logs(std::vector<parse::NcclLog> logs,
                                         const std::map<std::string, std::string>& env,
                                         std::vector<std::string> notes) {
  for (auto& l : logs) in_.nccl_logs.push_back(std::move(l));
  for (const auto& [k, v] : env) in_.env[k] = v;
  for (auto& n : notes) notes_.push_back(std::move(n));
  any_ = true;
}

void TransportAccumulator::add_signatures(std::vector<MpiSignature> sigs) {
  for (auto& s : sigs) in_.signatures.push_back(std::move(s));
  any_ = any_ || !in_.signatures.empty();
}

bool TransportAccumulator::empty() const {
  return !any_;
}

TransportResult TransportAccumulator::result() const {
  TransportResult t = analyze_transport(in_);
  for (const auto& note : notes_) t.evidence.push_back({"nccl_log", "", note});
  for (auto& f : log_host_findings(in_.nccl_logs, inventory_)) t.findings.push_back(std::move(f));
  return t;
}

}  // namespace fabcheck::report
