#pragma once
/// @file The `nics` section of the report: every data NIC pair, the rail × rail reachability
/// matrix, per-rail bandwidth matrices, and the NIC findings. No MPI.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "fabcheck/model/nics.hpp"
#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/report/document.hpp"

namespace fabcheck::report {

/// Per rail pair (from rail, to rail): directed NIC pairs attempted and reachable, between NICs that are
/// not dead (nics_dead).
struct RailReach {
  int attempted = 0, reachable = 0;
};
std::vector<std::vector<RailReach>> rail_reachability(const model::NicsResult& r);

/// (host, nic) of every dead data NIC: no carrier, or none of its links on its own rail connected (either
/// way) while at least one same-rail link between two other hosts did.
std::vector<std::pair<int, int>> nics_dead(const model::NicsResult& r);

/// The findings (DESIGN §5 severities):
/// - NICS_RAIL_ONLY: ≥ 2 rails, every cross-rail NIC pair unreachable while same-rail pairs connect — a
///   rail-only fabric. info with NCCL_CROSS_NIC=0 in the environment; warn when unset or 2 (NCCL may try
///   a cross-rail connection: the `ibv_modify_qp … RTR` timeout); fail with NCCL_CROSS_NIC=1.
/// - NICS_NIC_DOWN (fail): a dead NIC, named with host and interface.
/// - NICS_UNREACHABLE (warn): a same-rail pair of live NICs that did not connect.
/// - NICS_SLOW_NIC: a bandwidth suspect of a rail's host × host matrix (the DESIGN §4 rule and attribution,
///   core::analyze_links) named as host and interface: fail when the retest confirmed it, warn when not
///   retested, info when refuted. When every data NIC of a host is a suspect the finding names the host.
/// - NICS_COUNT_MISMATCH (warn): hosts with different numbers of data NICs.
/// - NICS_MGMT_IN_USE (warn): OMPI_MCA_btl_tcp_if_include, NCCL_SOCKET_IFNAME or UCX_NET_DEVICES select
///   interfaces of host 0 none of which is a data NIC (the remedy names the data NICs); or the `--nccl-log`
///   log (NicsResult::nccl_log_hosts) shows NCCL's bootstrap interface, or its NET/Socket data interfaces
///   where the Socket network carries the data, on an interface of a measured host that is not a data NIC
///   (the management NIC, slower than the data NICs, or on another network than theirs; the remedy is
///   NCCL_SOCKET_IFNAME=<that host's data NICs>). One finding per role; with an NCCL_SOCKET_IFNAME finding
///   the log's lines join that one.
/// - NICS_NOT_BOUND (info): SO_BINDTODEVICE was refused (no CAP_NET_RAW): the kernel may have routed around
///   the NIC under test.
std::vector<Finding> nics_findings(const model::NicsResult& r);

/// JSON of the `nics` section: {hosts, ifaces, nics: [[{name, addr, prefix_len, carrier, data, speed_mbps,
/// rail}]], rails: [{subnet, bw_gbps, lat_p50_us, bw_median_gbps, suspects [{host, iface, confirmed}],
/// retest_reference_gbps}], reachability (rail × rail [{attempted, reachable}]), links [{from {host, iface},
/// to {host, iface}, reachable, error, connect_us, bw_gbps, lat_p50_us, lat_p99_us}], retests, schedule,
/// env, duration_s, verbs (nics_verbs_json), nccl_log (with --nccl-log: {path, hosts [{host, measured_host,
/// network, ifaces [{role, iface, addr}]}]})}.
nlohmann::json nics_json(const model::NicsResult& r);

/// JSON of the section's `verbs` member: `{"skipped": reason}` when nothing was measured and every host had
/// that reason; else {skipped (null or why), method, options {msg_size_bytes, iters, tx_depth, lat_iters},
/// hosts [{host, skipped, ports [{device, port, link_layer, netdev, gid_index, gid_index_source, gid, lid,
/// active_mtu_bytes}]}], links [{from {host, device, port, netdev, gid_index}, to {…}, reachable, error,
/// path_mtu_bytes, bw_gbps, lat_p50_us, lat_p99_us}]}.
nlohmann::json nics_verbs_json(const model::NicsResult& r);

/// Console lines of the verbs part: `# verbs: skipped: <reason>`, or one line per directed port pair.
std::string render_nics_verbs(const model::NicsResult& r);

/// The hosts of an NCCL log with the interfaces their NCCL used (`Bootstrap : Using` in all three forms,
/// `NET/Socket : Using`, 2.3's `NET : Using interface`), each matched to `hosts` (the measured host names)
/// by report::same_host_name; prefix-less lines (no host) are left out.
std::vector<model::NcclLogHost> nics_nccl_log_hosts(const parse::NcclLog& log,
                                                    const std::vector<std::string>& hosts);

/// Fills doc["nics"], run.sections.nics = ok, and nics_findings().
void add_nics(Document& doc, const model::NicsResult& r);

/// Console text: the NICs per host, the rail × rail reachability matrix, each rail's bandwidth matrix and
/// the findings, one line each.
std::string render_nics(const model::NicsResult& r);

}  // namespace fabcheck::report
