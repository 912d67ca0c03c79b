#pragma once
// SOCKET_IFNAME_MGMT (warn, DESIGN §5): NCCL's or MPI's socket traffic pointed at a loopback,
// container-bridge or management interface (and, for Open MPI's TCP BTL, at a slower interface than the host
// has). The rule's one home: which names count (is_management_iface, declared in
// fabcheck/report/transport.hpp), which reader reports a name set in the environment (the transport analysis,
// not the inventory's MCA check), and the finding's code, severity, wording, evidence and remedy for both
// readers.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/model/inventory.hpp"
#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/report/document.hpp"

namespace fabcheck::report::detail {

/// The environment and NCCL log form (the transport analysis): NCCL_SOCKET_IFNAME,
/// OMPI_MCA_btl_tcp_if_include, OMPI_MCA_oob_tcp_if_include or UCX_NET_DEVICES in the effective `env` naming
/// a management interface, and the management interfaces NET/Socket used in `socket_procs` (the processes
/// whose network is sockets). One finding for the run, its `lines` the env entries then at most 16 in all.
std::optional<Finding> socket_ifname_from_env(const std::map<std::string, std::string>& env,
                                              const std::vector<const parse::NcclProcessLog*>& socket_procs);

/// The Open MPI MCA form (the inventory): one finding per interface of the host's effective
/// btl_tcp_if_include (a CIDR subnet aside) that is a management or virtual interface with no RDMA device, or
/// slower than the host's fastest physical interface. A management name from the environment
/// (OMPI_MCA_btl_tcp_if_include) is left to socket_ifname_from_env.
std::vector<Finding> socket_ifname_from_mca(const model::HostInventory& h);

}  // namespace fabcheck::report::detail
