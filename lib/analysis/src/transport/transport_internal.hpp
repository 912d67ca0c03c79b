#pragma once
// The transport verdict's inner steps (DESIGN §5), shared by its files: transport_process.cpp (which network
// each NCCL process used), transport_assess.cpp (the verdict of one scope), transport_inter_node.cpp (did
// traffic cross hosts), transport_findings.cpp (the verdict's findings) and transport.cpp (the pipeline and
// the section). Not part of the report's API.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fabcheck/core/ascii.hpp"
#include "fabcheck/report/transport.hpp"

namespace fabcheck::report::detail {

inline std::string lower(std::string_view s) {
  return core::ascii_lower(s);
}

inline bool starts(const std::string& s, const char* p) {
  return s.rfind(p, 0) == 0;
}

/// A log line's host, or "(no prefix)" for lines without a `host:pid:tid` prefix.
inline std::string host_label(const std::string& h) {
  return h.empty() ? "(no prefix)" : h;
}

/// The value of `k` in `env`, "" when unset.
std::string env_value(const std::map<std::string, std::string>& env, const std::string& k);

/// "IB", "IBext_v8", "Socket", "AWS Libfabric" → ib_verbs | ofi | socket | "" (unknown plugin).
std::string classify_network(const std::string& name);

/// ib0, ibp1s0, ibs3 (IPoIB) and mlx5 RoCE netdevs that carry the physical port name (ens1f0np0).
bool is_ipoib_or_roce_netdev(const std::string& n);

/// The external net plugin did not come up: a plugin failure line, a plugin that then found no device, or a
/// failed plugin init propagated from plugin/net.cc (`net.cc:79 -> 3`). Such a plugin is neither the network
/// in use nor evidence of RDMA hardware.
bool plugin_failed(const parse::NcclProcessLog& p);

/// libfabric providers that move data over kernel sockets (aws-ofi-nccl without EFA): not RDMA.
bool ofi_provider_is_socket(const std::string& provider);

/// One process of one log, with the network it used.
struct Proc {
  const parse::NcclProcessLog* p = nullptr;
  std::string net_class;  // ib_verbs | ofi | socket | "" unknown
  std::string net_name;
  std::string net_basis;  // the line/rule that decided it
};

/// The network of one process (the last `Using network`, else the connection
/// lines, else the OFI provider, verbs errors, error traces, the pre-2.6 device list).
Proc classify_process(const parse::NcclProcessLog& p);

/// What every scope's assessment shares: the run's inter_node, the env's choices, the judged signatures.
struct Ctx {
  std::optional<bool> inter_node;
  bool forced = false;
  bool configured = false;
  std::string configured_by;
  std::map<const MpiSignature*, SignatureJudgement> judged;  // every input signature, judged once
};

/// The evidence of one scope: the run, or one host.
struct Scope {
  std::vector<const Proc*> procs;
  std::vector<const HostRdmaEvidence*> hw;
  std::vector<const MpiSignature*> sigs;
  std::string host;  // "" = the run
};

/// The verdict of one scope (DESIGN §5 precedence); appends its evidence lines to `ev` when not null.
TransportAssessment assess(const Scope& s, const Ctx& ctx, std::vector<EvidenceLine>* ev);

/// What the processes say about inter-node traffic (nNodes, hosts, NET lines, nccl-tests' header); sets
/// r.inter_node and r.inter_node_basis and appends the `inter_node` evidence line.
void decide_inter_node(const std::vector<Proc>& procs, const TransportInput& in, bool forced,
                       TransportResult& r);

/// RDMA_FALLBACK_SOCKET (fail, or warn on the MPI signature's word) for a `socket_fallback` verdict.
std::optional<Finding> fallback_finding(const TransportResult& r);

/// GDR_DISABLED (warn) for an `rdma_no_gdr` verdict.
std::optional<Finding> gdr_disabled_finding(const TransportAssessment& run);

/// NCCL_VERSION_MISMATCH (warn): explicit versions per host, bare rank-0 `NCCL version` lines, and the
/// version ranges inferred from message formats.
std::optional<Finding> version_mismatch_finding(const std::vector<HostTransport>& per_host,
                                                const std::set<std::string>& bare);

}  // namespace fabcheck::report::detail
