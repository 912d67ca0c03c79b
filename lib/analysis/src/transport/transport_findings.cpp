// The transport verdict's own findings (DESIGN §5): RDMA_FALLBACK_SOCKET, GDR_DISABLED and
// NCCL_VERSION_MISMATCH. The socket-path findings are in transport_checks.cpp and socket_ifname.cpp, the
// health findings in transport_health.cpp.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "transport_internal.hpp"

namespace fabcheck::report::detail {

namespace {

// The first `cap` evidence lines from `sources` (every source when the list is empty), as JSON.
nlohmann::json evidence_json(const std::vector<EvidenceLine>& evidence,
                             std::initializer_list<std::string> sources, std::size_t cap) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& e : evidence) {
    if (arr.size() >= cap) break;
    if (std::find(sources.begin(), sources.end(), e.source) != sources.end() || sources.size() == 0)
      arr.push_back({{"source", e.source}, {"host", e.host}, {"message", e.message}});
  }
  return arr;
}

// The NCCL versions the hosts name: explicit versions per host, then bare rank-0 `NCCL version` lines.
std::map<parse::NcclVersionCode, std::vector<std::string>> versions_by_code(
    const std::vector<HostTransport>& per_host, const std::set<std::string>& bare) {
  std::map<parse::NcclVersionCode, std::vector<std::string>> by_version;
  for (const auto& ht : per_host)
    if (!ht.nccl_version.empty() && ht.nccl_version.find('(') == std::string::npos) {
      std::size_t start = 0;
      while (start < ht.nccl_version.size()) {
        std::size_t c = ht.nccl_version.find(", ", start);
        std::string v = ht.nccl_version.substr(start, c == std::string::npos ? std::string::npos : c - start);
        if (auto code = parse::nccl_version_code(v)) by_version[code].push_back(ht.host + " " + v);
        if (c == std::string::npos) break;
        start = c + 2;
      }
    }
  for (const auto& b : bare)
    if (auto code = parse::nccl_version_code(b))
      by_version[code].push_back("rank 0 (NCCL version line) " + b);
  return by_version;
}

}  // namespace

std::optional<Finding> fallback_finding(const TransportResult& r) {
  const auto& run = r.run;
  if (run.verdict != "socket_fallback") return std::nullopt;
  // Severity is a promise (DESIGN §5): RDMA hardware present while sockets carried NCCL's traffic is a
  // fail on the log's word; the MPI signature alone (a timing class) is a warning.
  Finding f;
  f.severity = run.network_source == "signature" ? Severity::kWarn : Severity::kFail;
  f.code = "RDMA_FALLBACK_SOCKET";
  std::vector<std::string> sock_hosts;
  for (const auto& ht : r.per_host)
    if (ht.assessment.network == "socket") sock_hosts.push_back(ht.host);
  const bool by_signature = run.network_source == "signature";
  const std::string who = sock_hosts.empty() ? "" : fmt::format(" (hosts: {})", fmt::join(sock_hosts, ", "));
  f.message = by_signature ? "RDMA hardware is present but MPI point-to-point traffic between hosts has a "
                             "TCP signature" +
                                 who
                           : "RDMA hardware is present but NCCL ran over TCP sockets" + who;
  f.evidence = {
      {"verdict", run.verdict},
      {"cause", run.cause},
      {"network", run.network_name},
      {"network_source", run.network_source},
      {"lines", by_signature ? evidence_json(r.evidence, {"signature", "inventory", "mpi_config"}, 12)
                             : evidence_json(r.evidence, {"nccl_log", "inventory"}, 12)}};
  if (!by_signature && !run.cause.empty() && run.cause != "unknown") f.message += " — cause: " + run.cause;
  f.remedy =
      by_signature
          ? "Let MPI use the RDMA ports: Open MPI with UCX (--mca pml ucx, and remove the ucx/openib "
            "exclusion from openmpi-mca-params.conf), UCX_NET_DEVICES naming the HCA port; rerun pairs"
      : run.cause == "libibverbs_missing"
          ? "Install rdma-core (libibverbs and the provider, e.g. libmlx5) in the image and pass "
            "/dev/infiniband into the container; then NCCL lists the HCAs (`NET/IB : Using ...`)"
      : run.cause == "plugin_failed"
          ? "The net plugin did not come up: check NCCL_NET_PLUGIN and that the plugin and its "
            "dependencies "
            "load (ldd), or set NCCL_NET_PLUGIN=none to use NCCL's internal IB transport"
      : run.cause == "ports_down"
          ? "Bring the RDMA ports up (ibv_devinfo: PORT_ACTIVE; cable, subnet manager for IB, link for "
            "RoCE), then rerun with NCCL_DEBUG=INFO"
          : "Make IB verbs usable to NCCL: rdma-core/libibverbs in the container, ACTIVE ports "
            "(ibv_devinfo), NCCL_IB_HCA and the net plugin (NCCL_NET_PLUGIN) matching the HCAs; rerun with "
            "NCCL_DEBUG=INFO";
  return f;
}

std::optional<Finding> gdr_disabled_finding(const TransportAssessment& run) {
  if (run.verdict != "rdma_no_gdr") return std::nullopt;
  Finding f;
  f.severity = Severity::kWarn;
  f.code = "GDR_DISABLED";
  f.message = "RDMA is used without GPUDirect RDMA: NET traffic is staged through host memory";
  f.evidence = {{"gdr_basis", run.gdr_basis}};
  bool distance = run.gdr_basis.find("distance") != std::string::npos;
  f.remedy = distance
                 ? "GPU and NIC are farther apart than NCCL_NET_GDR_LEVEL allows: use a NIC under the same "
                   "PCIe switch as the GPU, or raise NCCL_NET_GDR_LEVEL if the path is known to be fast"
                 : "Load nvidia_peermem (or nv_peer_mem) where this NCCL version looks for it, or enable "
                   "DMA-BUF (kernel >= 5.12, NCCL_DMABUF_ENABLE=1); then check for /GDRDMA in the NET lines";
  return f;
}

std::optional<Finding> version_mismatch_finding(const std::vector<HostTransport>& per_host,
                                                const std::set<std::string>& bare) {
  const auto by_version = versions_by_code(per_host, bare);
  nlohmann::json ev = nlohmann::json::array();
  bool mismatch = by_version.size() > 1;
  if (mismatch)
    for (const auto& [code, who] : by_version)
      for (const auto& w : who) ev.push_back(w);
  if (!mismatch && by_version.size() == 1) {
    parse::NcclVersionCode v = by_version.begin()->first;
    for (const auto& ht : per_host) {
      if (ht.nccl_version.find("(inferred)") == std::string::npos) continue;
      std::size_t dash = ht.nccl_version.find('-');
      auto lo2 = parse::nccl_version_code(ht.nccl_version.substr(0, dash));
      auto hi2 = parse::nccl_version_code(ht.nccl_version.substr(dash + 1));
      if (lo2 && hi2 && (v < lo2 || v > hi2)) {
        mismatch = true;
        ev.push_back(ht.host + " message formats of NCCL " + ht.nccl_version);
      }
    }
    if (mismatch) ev.push_back(by_version.begin()->second.front());
  }
  if (mismatch) {
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "NCCL_VERSION_MISMATCH";
    f.message = "Hosts of one job run different NCCL versions";
    f.evidence = {{"versions", ev}};
    f.remedy =
        "Install one NCCL version on every host/container image (check LD_LIBRARY_PATH and the PyTorch "
        "wheel's bundled NCCL)";
    return f;
  }
  return std::nullopt;
}

}  // namespace fabcheck::report::detail
