// HTML report: the environment — tool and build, topology (ranks per host), the inventory per host (RDMA
// ports, GPUs, GPUDirect, interfaces, NCCL/UCX/MPI environment), the per-host transport and the run's config.
#include <fmt/format.h>

#include "fabcheck/report/html.hpp"
#include "html_internal.hpp"

namespace fabcheck::report::html {
namespace {

std::string join_texts(const json& arr) {
  std::string out;
  for (const auto& x : as_array(&arr)) out += (out.empty() ? "" : ", ") + text(&x);
  return out;
}

std::string topology(const json& r) {
  const json* t = get(r, "topology");
  if (!t) return notice("note", "no topology in this report");
  std::string out =
      fmt::format("<p>{} rank(s); backend {}; MPI {}; NCCL {}; clock offset max {} us.</p>\n",
                  text(get(*t, "nranks")), text(get(*t, "backend")), text(get(*t, "mpi_library")),
                  text(get(*t, "nccl_version")), number(get(*t, "clock_offset_us_max")));
  std::vector<std::vector<std::string>> rows;
  for (const auto& h : as_array(get(*t, "hosts"))) {
    const json* ranks = get(h, "ranks");
    rows.push_back({text(get(h, "host")), ranks ? join_texts(*ranks) : "—"});
  }
  if (!rows.empty()) out += table({"host", "ranks"}, rows, "topology");
  return out;
}

std::string host_inventory(const json& h) {
  std::string out = fmt::format("<h3>{}</h3>\n", text(get(h, "host")));
  if (const json* rd = get(h, "rdma")) {
    out += fmt::format("<p>RDMA: {}{}</p>\n", text(get(*rd, "status")),
                       get(*rd, "reason") ? " — " + text(get(*rd, "reason")) : "");
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& d : as_array(get(h, "rdma_devices"))) {
    for (const auto& p : as_array(get(d, "ports"))) {
      const json* pcie = get(d, "pcie");
      rows.push_back({text(get(d, "name")), text(get(p, "port")), text(get(p, "state")),
                      text(get(p, "link_layer")), number(get(p, "rate_gbit")), text(get(p, "mtu")),
                      text(get(d, "numa_node")), pcie ? html_escape(pcie->dump()) : "—",
                      text(get(d, "fw_ver"))});
    }
  }
  if (!rows.empty()) {
    out += table({"device", "port", "state", "link layer", "rate Gbit/s", "MTU", "NUMA", "PCIe", "firmware"},
                 rows, "rdma-ports");
  } else {
    out += "<p class=\"muted\">no RDMA device</p>\n";
  }
  const auto& gpus = as_array(get(h, "gpus"));
  if (!gpus.empty()) {
    rows.clear();
    for (const auto& g : gpus)
      rows.push_back({text(get(g, "index")), text(get(g, "bdf")), text(get(g, "numa_node"))});
    out += table({"GPU", "PCI", "NUMA"}, rows, "gpus");
  }
  rows.clear();
  for (const auto& d : as_array(get(h, "gpu_nic_distance"))) {
    rows.push_back({text(get(d, "gpu")), text(get(d, "nic")), text(get(d, "level"))});
  }
  if (!rows.empty())
    out += "<details><summary>GPU–NIC distance</summary>\n" + table({"GPU", "NIC", "path"}, rows) +
           "</details>\n";
  if (const json* g = get(h, "gdr")) {
    out += fmt::format("<p>GPUDirect: nvidia_peermem {}, nv_peer_mem {}, seen by this NCCL {}</p>\n",
                       text(get(*g, "nvidia_peermem_loaded")), text(get(*g, "nv_peer_mem_loaded")),
                       text(get(*g, "seen_by_this_nccl")));
  }
  rows.clear();
  for (const auto& n : as_array(get(h, "net_interfaces"))) {
    rows.push_back({text(get(n, "name")), text(get(n, "operstate")), text(get(n, "mtu")),
                    text(get(n, "speed_mbit")), text(get(n, "type")), text(get(n, "rdma_device"))});
  }
  if (!rows.empty()) {
    out += "<details><summary>network interfaces</summary>\n" +
           table({"name", "state", "MTU", "speed Mbit/s", "type", "RDMA device"}, rows) + "</details>\n";
  }
  if (const json* env = get(h, "env"); env && env->is_object() && !env->empty()) {
    rows.clear();
    for (const auto& [k, v] : env->items()) rows.push_back({"<code>" + html_escape(k) + "</code>", text(&v)});
    out += "<details><summary>environment (NCCL_*, UCX_*, OMPI_MCA_*)</summary>\n" +
           table({"variable", "value"}, rows) + "</details>\n";
  }
  if (const json* eff = get_path(h, {"mpi_config", "effective"}); eff && eff->is_object() && !eff->empty()) {
    rows.clear();
    for (const auto& [k, v] : eff->items()) rows.push_back({"<code>" + html_escape(k) + "</code>", text(&v)});
    out += "<details><summary>Open MPI MCA parameters</summary>\n" + table({"parameter", "value"}, rows) +
           "</details>\n";
  }
  return out;
}

}  // namespace

std::string render_environment(const json& r) {
  std::string out =
      section_open(r, "environment", "Environment: topology and inventory", {"inventory", "transport"});
  if (const json* t = get(r, "tool")) {
    std::string feats;
    if (const json* f = get(*t, "features"); f && f->is_object()) {
      for (const auto& [k, v] : f->items())
        feats += fmt::format("{}{}={}", feats.empty() ? "" : ", ", html_escape(k), text(&v));
    }
    out += fmt::format("<p>{} {} ({})</p>\n", text(get(*t, "name")), text(get(*t, "version")), feats);
  }
  out += "<h3>Topology</h3>\n" + topology(r);
  const auto& ph = as_array(get_path(r, {"transport", "per_host"}));
  if (!ph.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& h : ph) {
      rows.push_back({text(get(h, "host")), text(get(h, "network")), text(get(h, "link_layer")),
                      text(get(h, "gdr")), text(get(h, "verdict")), text(get(h, "health")),
                      text(get(h, "errors_total"))});
    }
    out += "<h3>Transport per host</h3>\n" +
           table({"host", "network", "link layer", "GPUDirect", "verdict", "health", "errors"}, rows);
  }
  const auto& hosts = as_array(get_path(r, {"inventory", "hosts"}));
  if (hosts.empty()) {
    out += notice("note", "no host inventory in this report");
  } else {
    out += "<h3>Inventory</h3>\n";
    for (const auto& h : hosts) out += host_inventory(h);
  }
  if (const json* cfg = get_path(r, {"run", "config"})) {
    out += "<details><summary>effective config of the run</summary><pre>" + html_escape(cfg->dump(2)) +
           "</pre></details>\n";
  }
  if (const json* conv = get(r, "conventions"); conv && conv->is_object()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& [k, v] : conv->items()) rows.push_back({html_escape(k), text(&v)});
    out += "<details><summary>conventions</summary>\n" + table({"what", "convention"}, rows) + "</details>\n";
  }
  return out + section_close();
}

}  // namespace fabcheck::report::html
