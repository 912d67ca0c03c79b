#pragma once
/// @file The transport verdict of DESIGN §5: which network carried the traffic (IB verbs, OFI, sockets), over
/// which link layer, with or without GPUDirect RDMA, whether any traffic crossed hosts, and — the point of it
/// — whether RDMA hardware was present while sockets carried the traffic (`socket_fallback`).
///
/// Inputs are plain structs: parsed NCCL logs (lib/parse), per-host hardware evidence (filled by the
/// inventory), the environment, and an optional MPI signature (8 B point-to-point latency and large-message
/// bandwidth, report/signature.hpp). Evidence strength: NCCL log > inventory > signature — the signature
/// decides `network` only when no log does, and an rdma-like signature never outweighs an inventory that
/// found no RDMA hardware. Precedence (DESIGN §5): `intra_node_only` (no inter-node connection attested and
/// no env forcing local peers onto NET) → `socket_configured` (NCCL_IB_DISABLE=1 / NCCL_NET=Socket) → for
/// sockets: `socket_fallback` when there is positive evidence of RDMA hardware (HCA listed, IPoIB/RoCE
/// netdev, IB plugin loaded, ACTIVE port), else `no_rdma_hardware` → for IB verbs / OFI: `rdma_no_gdr` when
/// GDR is off, else `rdma` → `unknown`.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/signature.hpp"
#include "fabcheck/report/transport_health.hpp"

namespace fabcheck::report {

/// What the host inventory knows about one host's RDMA capability (filled by `fabcheck inspect` from
/// model::HostInventory; every field may stay empty when not inspected).
struct HostRdmaEvidence {
  std::string host;  ///< host name (as MPI/hostname reports it, cut at the first '.')
  std::vector<std::string>
      rdma_devices;      ///< RDMA devices listed (sysfs /sys/class/infiniband or verbs), e.g. "mlx5_0"
  int active_ports = 0;  ///< ports in state ACTIVE over all devices
  std::string
      link_layer;  ///< link layer of the active ports: "InfiniBand", "RoCE" or "" (none/mixed unknown)
  std::vector<std::string> rdma_netdevs;  ///< IPoIB / RoCE netdevs (e.g. "ib0", "ens1f0np0")
  std::string verbs_error;         ///< libibverbs failure text (e.g. "Function not implemented"), "" if none
  std::optional<bool> gdr_module;  ///< peer-memory module visible where NCCL looks; nullopt = not checked
  std::map<std::string, std::string> env;  ///< NCCL_* / UCX_* / OMPI_MCA_* of that host
  bool mpi_rdma_excluded = false;          ///< Open MPI's MCA files exclude the RDMA components (ucx/openib)
  std::optional<double> link_rate_gbit;    ///< fastest ACTIVE RDMA port, Gbit/s (judges signature bandwidth)
};

/// Everything the verdict is drawn from.
struct TransportInput {
  std::vector<parse::NcclLog> nccl_logs;  ///< parsed logs (may be empty)
  std::vector<HostRdmaEvidence> hosts;    ///< inventory evidence per host (may be empty)
  std::map<std::string, std::string>
      env;  ///< launcher environment (NCCL_IB_DISABLE, NCCL_NET, NCCL_SOCKET_IFNAME...)
  std::vector<MpiSignature> signatures;  ///< MPI signatures between hosts (may be empty)
};

/// One evidence line: `{source: inventory|nccl_log|env|mpi_config|signature, host, message}`.
struct EvidenceLine {
  std::string source;   ///< inventory | nccl_log | env | mpi_config | signature
  std::string host;     ///< host it concerns ("" = the run)
  std::string message;  ///< one line, quoting the log line or value where there is one
};

/// The verdict fields for one scope (the run, or one host).
struct TransportAssessment {
  std::string network = "none";  ///< ib_verbs | ofi | socket | none
  std::string network_name;      ///< as NCCL printed it ("IB", "IBext_v8", "Libfabric", "Socket"), "" if none
  std::string network_source;    ///< evidence that decided `network`: "nccl_log" | "signature" | "" (none)
  std::optional<std::string> link_layer;  ///< "InfiniBand" | "RoCE" | nullopt
  std::string link_layer_reason;          ///< why link_layer is null ("" when set)
  std::string gdr = "unknown";            ///< on | off | unknown
  std::string gdr_basis;                  ///< which lines decided gdr
  std::string verdict = "unknown";        ///< rdma | rdma_no_gdr | socket_fallback | socket_configured |
                                          ///< no_rdma_hardware | intra_node_only | unknown
  std::string cause;  ///< why sockets (network socket, or none with a socket-class verdict): user_disabled |
                      ///< libibverbs_missing | plugin_failed | no_device | ports_down | unknown; "" otherwise
};

/// Per-host view.
struct HostTransport {
  std::string host;                ///< host name ("(no prefix)" for prefix-less log lines)
  TransportAssessment assessment;  ///< network, link_layer, gdr, verdict for this host
  std::string
      nccl_version;        ///< explicit version, or an inferred range "2.17.0-2.18.99 (inferred)", "" unknown
  std::string net_plugin;  ///< external net plugin ("" none seen)
  int processes = 0;       ///< host:pid groups seen in the logs
  std::map<std::string, int>
      connections;        ///< count of connection lines by transport: p2p, shm, net, net_gdr, collnet
  int nvls_channels = 0;  ///< NVLS channels reported
  std::vector<std::string> net_devices;    ///< IB devices listed ("mlx5_0:1/InfiniBand")
  std::vector<std::string> socket_ifaces;  ///< NET/Socket interfaces ("eth0")
  std::vector<parse::NcclIssue> errors;    ///< warnings/errors (first 20)
  std::size_t errors_total = 0;            ///< all warnings/errors
  std::string health = "ok";               ///< ok | degraded | failed (report/transport_health.hpp)
};

/// Summary of one parsed log file (line accounting: skipped and unparsed lines are reported, not hidden).
struct LogSummary {
  std::string source;         ///< file name
  parse::NcclLogStats stats;  ///< line counters
  int processes = 0;          ///< host:pid groups
  int hosts = 0;              ///< distinct host names
};

/// The whole transport analysis.
struct TransportResult {
  TransportAssessment run;  ///< the run-level verdict
  std::optional<bool>
      inter_node;                 ///< inter-node traffic attested (true), excluded (false), unknown (nullopt)
  std::string inter_node_basis;   ///< the rule that decided inter_node (or why it is null)
  bool net_forced_local = false;  ///< env forces same-host peers onto NET (P2P and SHM disabled)
  std::map<std::string, std::string> env;  ///< transport-steering variables seen (env, logs, commands)
  std::vector<EvidenceLine> evidence;      ///< why, line by line
  std::vector<HostTransport> per_host;     ///< one entry per host (logs and/or inventory)
  std::vector<LogSummary> logs;            ///< per input log
  TransportHealth health;                  ///< whether the attempted transport worked (DESIGN §5)
  std::vector<Finding>
      findings;  ///< RDMA_FALLBACK_SOCKET, GDR_DISABLED, NCCL_VERSION_MISMATCH, SOCKET_IFNAME_MGMT,
                 ///< SOCKET_SINGLE_NIC, BOOTSTRAP_ADDR_NOT_ROUTABLE and the health findings
                 ///< (NCCL_IB_CONNECT_FAILED, NCCL_IB_COMPLETION_ERROR, ...)
};

/// Draws the verdict. Pure function of its input; never throws on content.
TransportResult analyze_transport(const TransportInput& in);

/// Writes the `transport` section (DESIGN §6: network, link_layer, gdr, inter_node, verdict, per_host,
/// evidence, plus logs with their line accounting), appends the findings and marks run.sections.transport ok.
void add_transport(Document& doc, const TransportResult& r);

/// Replaces the `transport` section written earlier from `previous` by the one of `r` (e.g. once the MPI
/// signature of latency/pairs is known): removes previous's findings from `findings` (one match each, so an
/// identical finding from another section stays), then add_transport(doc, r).
void update_transport(Document& doc, const TransportResult& previous, const TransportResult& r);

/// Console text: the verdict and the health on the first line ("transport verdict: rdma — connection setup
/// FAILED on node01 (ibv_modify_qp: Network is unreachable ×17)"), then evidence, one table row per host,
/// findings.
std::string render_transport(const TransportResult& r);

/// True when `iface` is a loopback, container, virtual-bridge or management interface name
/// (lo, docker*, virbr*, br-*, veth*, cni*, flannel*, cali*, tun*/tap*, mgmt*/bmc*/idrac*/ipmi*).
bool is_management_iface(const std::string& iface);

}  // namespace fabcheck::report
