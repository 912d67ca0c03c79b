// RANK_CPU_FAR_FROM_NIC: a rank bound to CPUs of another NUMA node than the NIC it sends through.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "fabcheck/core/cpulist.hpp"
#include "host/pcie_findings.hpp"

namespace fabcheck::report::detail {
namespace {

bool shares_cpu(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  return !both.empty();
}

/// The NICs a rank sends through: on a GPU host its GPU's rail NIC — the GPU is the one of the rank's
/// local index, as nccl-tests and the usual launchers map them (`cudaSetDevice(local_rank % ngpus)`) —;
/// without GPUs any RDMA device with an ACTIVE port (MPI picks among them).
std::vector<const model::RdmaDevice*> nics_of(const model::HostInventory& h,
                                              const std::vector<GpuRail>& rails, int local_rank) {
  std::vector<const model::RdmaDevice*> out;
  if (!rails.empty()) {
    const auto& r = rails[static_cast<std::size_t>(local_rank) % rails.size()];
    if (const auto* d = model::find_rdma_device(h, r.nic)) out.push_back(d);
    return out;
  }
  for (const auto& d : h.rdma_devices)
    if (std::any_of(d.ports.begin(), d.ports.end(), [](const model::RdmaPort& p) { return p.active(); }))
      out.push_back(&d);
  return out;
}

}  // namespace

/// A rank whose allowed CPUs share none with the NIC's `local_cpulist` (the CPUs of the NUMA node the
/// NIC's PCIe root port hangs off, Linux Documentation/ABI/testing/sysfs-bus-pci) reaches the NIC's memory
/// and doorbells across the inter-socket link; NCCL's and the vendors' tuning guides bind each rank to the
/// NIC's (and GPU's) NUMA node for that reason. Unbound ranks (every online CPU allowed) are left to the
/// scheduler and not judged; a NIC whose CPU list is unknown is not judged.
void rank_binding_findings(const model::HostInventory& h, const std::vector<GpuRail>& rails,
                           std::vector<Finding>& out) {
  std::vector<std::string> far;
  nlohmann::json ev = nlohmann::json::array();
  for (const auto& b : h.rank_bindings) {
    const auto cpus = core::parse_cpulist(b.cpus);
    if (!cpus || cpus->empty() || static_cast<int>(cpus->size()) >= b.host_cpus) continue;
    const auto nics = nics_of(h, rails, b.local_rank);
    std::vector<std::string> lists;
    bool near = nics.empty();
    for (const auto* d : nics) {
      const auto nic_cpus = d->pci ? core::parse_cpulist(d->pci->local_cpulist) : std::nullopt;
      if (!nic_cpus || nic_cpus->empty() || shares_cpu(*cpus, *nic_cpus)) {
        near = true;
        break;
      }
      lists.push_back(
          fmt::format("{} (CPUs {}{})", d->name, d->pci->local_cpulist,
                      d->pci->numa_node ? fmt::format(", NUMA node {}", *d->pci->numa_node) : ""));
    }
    if (near) continue;
    far.push_back(fmt::format("rank {} on CPUs {} uses {}", b.rank, b.cpus, fmt::join(lists, " or ")));
    ev.push_back({{"rank", b.rank}, {"local_rank", b.local_rank}, {"cpus", b.cpus}, {"nics", lists}});
  }
  if (far.empty()) return;
  out.push_back(host_fact_finding(
      Severity::kWarn, "RANK_CPU_FAR_FROM_NIC",
      fmt::format("{}: {} rank(s) are bound to CPUs of another NUMA node than their NIC ({}): their traffic "
                  "crosses the inter-socket link",
                  h.host, far.size(), fmt::join(far, "; ")),
      {{"host", h.host}, {"ranks", ev}},
      "bind each rank to its NIC's NUMA node: Open MPI `--map-by ppr:<ranks per node>:numa --bind-to core`, "
      "Slurm `--cpu-bind=ldoms`, or `numactl --cpunodebind=<node>`"));
}

}  // namespace fabcheck::report::detail
