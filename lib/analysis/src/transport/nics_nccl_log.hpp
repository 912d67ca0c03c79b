#pragma once
// NCCL's log beside the nics probe: what nics.cpp and nics_findings.cpp call; the public part
// (nics_nccl_log_hosts) is declared in report/nics.hpp.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "fabcheck/model/nics.hpp"
#include "fabcheck/report/nics.hpp"

namespace fabcheck::report {

/// JSON of the section's `nccl_log` member: {path, hosts [{host, measured_host (null: none), network,
/// ifaces [{role, iface, addr}]}]}.
nlohmann::json nics_nccl_log_json(const model::NicsResult& r);

/// Console lines of the log's hosts: `# nccl log PATH: HOST (measured host M | not a measured host):
/// bootstrap IF:ADDR, socket IF:ADDR`, or that no line names a host.
std::string render_nccl_log_hosts(const model::NicsResult& r);

namespace detail {

/// NICS_MGMT_IN_USE from the log: per role (bootstrap, then NET/Socket where the Socket network carries the
/// data), the measured hosts whose NCCL named an interface that is not one of their data NICs (found by name,
/// else by address; an interface the probe did not see counts as data when its address lies on a data
/// rail's subnet). The reason names the management NIC, its speed against the data NICs', and another
/// network. When `out` already holds the NCCL_SOCKET_IFNAME finding, the log's lines join its evidence.
void add_nccl_log_mgmt(const model::NicsResult& r, std::vector<Finding>& out);

}  // namespace detail

}  // namespace fabcheck::report
