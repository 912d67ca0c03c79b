// Host inventory from sysfs. Every path is built from InventoryOptions::sysfs_root; every
// read tolerates failure one file at a time.
#include "fabcheck/probes/inventory.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "fabcheck/core/error.hpp"
#include "fabcheck/core/redact.hpp"
#include "fabcheck/parse/mca_params.hpp"
#include "inventory_facts.hpp"
#include "sysfs_read.hpp"

extern char** environ;

namespace fabcheck::probes {

namespace fs = std::filesystem;

namespace {

using detail::list_dir;
using detail::path_exists;
using detail::read_attr;
using detail::read_long;
using detail::read_or;

/// "N: TEXT" → (N, TEXT).
std::pair<int, std::string> split_num_text(const std::string& s) {
  auto colon = s.find(':');
  if (colon == std::string::npos) return {0, s};
  int n = std::atoi(s.substr(0, colon).c_str());
  std::string t = s.substr(colon + 1);
  while (!t.empty() && t.front() == ' ') t.erase(t.begin());
  return {n, t};
}

/// "16.0 GT/s PCIe", "8 GT/s", "Unknown" → GT/s.
std::optional<double> parse_gts(const std::optional<std::string>& s) {
  if (!s || s->empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s->c_str(), &end);
  if (end == s->c_str() || v <= 0) return std::nullopt;
  return v;
}

std::optional<int> opt_int(const std::optional<long>& v) {
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

bool is_bdf(const std::string& s) {
  // dddd:bb:dd.f
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u, 11u})
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

bool is_zero_gid(const std::string& g) {
  for (char c : g)
    if (c != '0' && c != ':') return false;
  return true;
}

class Reader {
 public:
  explicit Reader(fs::path root) : root_(std::move(root)) {
    std::error_code ec;
    canon_root_ = fs::canonical(root_, ec);
    if (ec) canon_root_ = root_;
  }
  fs::path at(const std::string& rel) const { return root_ / rel; }
  const fs::path& root() const { return root_; }

  /// realpath of root/rel, as a path relative to the root ("devices/pci0000:15/..."); nullopt when it
  /// escapes.
  std::optional<fs::path> resolve(const fs::path& p) const {
    std::error_code ec;
    auto c = fs::canonical(p, ec);
    if (ec) return std::nullopt;
    auto rel = c.lexically_relative(canon_root_);
    if (rel.empty() || *rel.begin() == "..") return std::nullopt;
    return rel;
  }

  /// Location of a PCI function given its path relative to the root ("devices/pci0000:15/.../0000:1a:00.0").
  std::optional<model::PciLocation> pci_location(const fs::path& rel) const {
    std::vector<std::string> parts;
    for (const auto& c : rel) parts.push_back(c.string());
    if (parts.size() < 3 || parts[0] != "devices" || parts[1].rfind("pci", 0) != 0) return std::nullopt;
    model::PciLocation loc;
    loc.root_complex = parts[1];
    for (std::size_t i = 2; i < parts.size(); ++i) {
      if (!is_bdf(parts[i])) break;
      loc.chain.push_back(parts[i]);
    }
    if (loc.chain.empty()) return std::nullopt;
    loc.bdf = loc.chain.back();
    fs::path dir = root_ / "devices" / loc.root_complex;
    for (const auto& b : loc.chain) dir /= b;
    fill_pci(loc, dir);
    return loc;
  }

 private:
  void fill_pci(model::PciLocation& loc, const fs::path& dir) const {
    loc.vendor = read_or(dir / "vendor");
    loc.device = read_or(dir / "device");
    loc.pci_class = read_or(dir / "class");
    if (auto n = read_long(dir / "numa_node"); n && *n >= 0) loc.numa_node = static_cast<int>(*n);
    loc.local_cpulist = read_or(dir / "local_cpulist");
    auto& l = loc.link;
    l.current_gts = parse_gts(read_attr(dir / "current_link_speed"));
    l.max_gts = parse_gts(read_attr(dir / "max_link_speed"));
    l.current_width = opt_int(read_long(dir / "current_link_width"));
    l.max_width = opt_int(read_long(dir / "max_link_width"));
    if (loc.chain.size() >= 2) {
      fs::path parent = dir.parent_path();
      l.parent_max_gts = parse_gts(read_attr(parent / "max_link_speed"));
      l.parent_max_width = opt_int(read_long(parent / "max_link_width"));
    }
    l.cap_gts = l.max_gts;
    if (l.parent_max_gts && (!l.cap_gts || *l.parent_max_gts < *l.cap_gts)) l.cap_gts = l.parent_max_gts;
    l.cap_width = l.max_width;
    if (l.parent_max_width && (!l.cap_width || *l.parent_max_width < *l.cap_width))
      l.cap_width = l.parent_max_width;
    l.speed_below_cap = l.current_gts && l.cap_gts && *l.current_gts + 1e-9 < *l.cap_gts;
    l.width_below_cap = l.current_width && l.cap_width && *l.current_width < *l.cap_width;
    if (l.current_gts && l.current_width) l.current_gbit = pcie_gbit(*l.current_gts, *l.current_width);
    if (l.cap_gts && l.cap_width) l.cap_gbit = pcie_gbit(*l.cap_gts, *l.cap_width);
    detail::read_pci_facts(root_, dir, loc);
  }

  fs::path root_;
  fs::path canon_root_;
};

/// iboe_get_mtu (include/rdma/ib_addr.h): netdev MTU minus 96 B of headers, rounded down to an IB MTU.
std::optional<int> iboe_mtu(int netdev_mtu) {
  int avail = netdev_mtu - (40 + 8 + 12 + 4 + 28 + 4);
  for (int m : {4096, 2048, 1024, 512, 256})
    if (avail >= m) return m;
  return std::nullopt;
}

std::string ipv4_of_gid(const std::string& g) {
  // 0000:0000:0000:0000:0000:ffff:c000:0248
  if (g.size() != 39 || g.compare(0, 25, "0000:0000:0000:0000:0000:") != 0 || g.compare(25, 4, "ffff") != 0)
    return {};
  auto hex = [&](std::size_t pos) {
    return static_cast<unsigned>(std::strtoul(g.substr(pos, 4).c_str(), nullptr, 16));
  };
  unsigned hi = hex(30), lo = hex(35);
  return fmt::format("{}.{}.{}.{}", hi >> 8, hi & 0xff, lo >> 8, lo & 0xff);
}

model::RdmaPort read_port(const fs::path& pdir, int num) {
  model::RdmaPort p;
  p.port = num;
  auto st = split_num_text(read_or(pdir / "state"));
  p.state_num = st.first;
  p.state = st.second;
  p.phys_state = split_num_text(read_or(pdir / "phys_state")).second;
  p.link_layer = read_or(pdir / "link_layer", "Unknown");
  p.rate_raw = read_or(pdir / "rate");
  p.lid = read_or(pdir / "lid");
  if (p.active() && !p.rate_raw.empty()) {
    char* end = nullptr;
    double r = std::strtod(p.rate_raw.c_str(), &end);
    if (end != p.rate_raw.c_str() && r > 0) p.rate_gbit = r;
  }
  const bool ib = p.link_layer == "InfiniBand";
  std::vector<int> idx;
  for (const auto& n : list_dir(pdir / "gids")) {
    char* end = nullptr;
    long v = std::strtol(n.c_str(), &end, 10);
    if (end != n.c_str() && *end == '\0' && v >= 0) idx.push_back(static_cast<int>(v));
  }
  std::sort(idx.begin(), idx.end());
  p.gid_tbl_len = idx.empty() ? 0 : idx.back() + 1;
  for (int i : idx) {
    auto g = read_attr(pdir / "gids" / std::to_string(i));
    if (!g || is_zero_gid(*g)) continue;
    model::GidEntry e;
    e.index = i;
    e.gid = *g;
    auto t = read_attr(pdir / "gid_attrs" / "types" / std::to_string(i));
    if (t) {
      if (*t == "RoCE v2")
        e.type = "RoCE v2";
      else if (*t == "IB/RoCE v1")
        e.type = ib ? "IB" : "RoCE v1";
      else
        e.type = *t;
    } else if (ib) {
      e.type = "IB";
    }
    e.netdev = read_or(pdir / "gid_attrs" / "ndevs" / std::to_string(i));
    e.link_local = e.gid.rfind("fe80:0000:0000:0000:", 0) == 0;
    e.ipv4 = ipv4_of_gid(e.gid);
    p.gids.push_back(e);
  }
  if (p.link_layer == "Ethernet") {
    // NCCL's choice with the default address family (IPv4 first), then any routable RoCE v2 GID.
    for (int pass = 0; pass < 2 && !p.rocev2_gid_index; ++pass)
      for (const auto& e : p.gids)
        if (e.type == "RoCE v2" && !e.link_local && (pass == 1 || !e.ipv4.empty())) {
          p.rocev2_gid_index = e.index;
          break;
        }
  }
  return p;
}

model::GdrInfo read_gdr(const Reader& r, const std::string& nccl_version) {
  model::GdrInfo g;
  g.nvidia_peermem_loaded = path_exists(r.at("module/nvidia_peermem"));
  g.nv_peer_mem_loaded = path_exists(r.at("module/nv_peer_mem"));
  const char* nv_mem = "kernel/mm/memory_peers/nv_mem/version";
  const char* nv_mem_nc = "kernel/mm/memory_peers/nv_mem_nc/version";
  const char* peermem_dash = "kernel/mm/memory_peers/nvidia-peermem/version";
  const char* module_ver = "module/nvidia_peermem/version";
  for (const char* p : {nv_mem, nv_mem_nc, peermem_dash, module_ver, "module/nv_peer_mem/version"})
    if (path_exists(r.at(p))) g.paths_present.emplace_back(p);
  auto has = [&](const char* p) {
    return std::find(g.paths_present.begin(), g.paths_present.end(), p) != g.paths_present.end();
  };
  if (g.nvidia_peermem_loaded) g.module_version = read_or(r.at(module_ver));
  if (g.module_version.empty() && g.nv_peer_mem_loaded)
    g.module_version = read_or(r.at("module/nv_peer_mem/version"));
  // The paths NCCL's src/transport/net_ib/gdr.cc checked, release by release.
  g.seen_by_nccl["<=2.9.7"] = has(nv_mem);
  g.seen_by_nccl["2.9.8-2.21"] = has(nv_mem) || has(peermem_dash);
  g.seen_by_nccl["2.22.0-2.23.3"] = has(nv_mem) || has(nv_mem_nc);
  g.seen_by_nccl[">=2.23.4"] = has(nv_mem) || has(nv_mem_nc) || has(module_ver);
  g.nccl_version = nccl_version;
  auto range = nccl_gdr_range(nccl_version);
  if (!range.empty()) g.seen_by_this_nccl = g.seen_by_nccl[range];
  return g;
}

model::MpiConfig read_mpi_config(const std::string& etc_root, const std::map<std::string, std::string>& env) {
  model::MpiConfig m;
  fs::path f = fs::path(etc_root) / "openmpi" / "openmpi-mca-params.conf";
  if (auto text = read_attr(f)) {
    model::MpiConfigFile file;
    file.path = f.string();
    file.params = parse::parse_mca_params(*text).params;
    for (auto& [k, v] : file.params) v = core::redact_value(k, v);  // oob_tcp_password, pml_ucx_token
    for (const auto& [k, v] : file.params) {
      m.effective[k] = v;
      m.origin[k] = "file " + file.path;
    }
    m.files.push_back(std::move(file));
  }
  for (const auto& [k, v] : env) {
    if (k.rfind("OMPI_MCA_", 0) != 0) continue;
    auto key = k.substr(9);
    m.effective[key] = v;
    m.origin[key] = "env " + k;
  }
  auto note = [&](const char* fw, const std::vector<std::string>& cands) {
    auto it = m.effective.find(fw);
    if (it == m.effective.end()) return;
    auto ex = parse::mca_excluded(it->second, cands);
    if (!ex.empty()) {
      std::string names;
      for (const auto& e : ex) names += (names.empty() ? "" : ",") + e;
      m.rdma_excluded.push_back(
          fmt::format("{} = {} (excludes {}; {})", fw, it->second, names, m.origin[fw]));
    }
  };
  note("pml", {"ucx"});
  note("btl", {"openib", "uct"});
  note("mtl", {"ofi"});
  note("osc", {"ucx"});
  return m;
}

std::vector<model::NetInterface> read_net(const Reader& r) {
  std::vector<model::NetInterface> out;
  for (const auto& name : list_dir(r.at("class/net"))) {
    fs::path dir = r.at("class/net") / name;
    if (!fs::is_directory(dir)) continue;  // bonding_masters is a file
    model::NetInterface n;
    n.name = name;
    n.operstate = read_or(dir / "operstate", "unknown");
    n.mtu = opt_int(read_long(dir / "mtu"));
    if (auto s = read_long(dir / "speed"); s && *s > 0) n.speed_mbit = *s;
    n.type = read_or(dir / "type");
    auto rel = r.resolve(dir);
    if (rel) {
      std::vector<std::string> parts;
      for (const auto& c : *rel) parts.push_back(c.string());
      n.is_virtual = parts.size() > 1 && parts[0] == "devices" && parts[1] == "virtual";
      // devices/pci.../<bdf>/net/<name>
      if (parts.size() >= 3 && parts[parts.size() - 2] == "net" && is_bdf(parts[parts.size() - 3]))
        n.pci_bdf = parts[parts.size() - 3];
    }
    auto ib = list_dir(dir / "device" / "infiniband");
    if (!ib.empty()) n.rdma_device = ib.front();
    out.push_back(std::move(n));
  }
  return out;
}

std::string trim_copy(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s;
}

std::string run_nvidia_smi_topo() {
  // Only when nvidia-smi is on PATH: look it up first so a missing binary costs no shell.
  const char* path = std::getenv("PATH");
  bool found = false;
  std::string p = path ? path : "";
  std::size_t start = 0;
  while (start <= p.size()) {
    auto end = p.find(':', start);
    std::string dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!dir.empty() && ::access((dir + "/nvidia-smi").c_str(), X_OK) == 0) {
      found = true;
      break;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (!found) return {};
  FILE* f = ::popen("nvidia-smi topo -m 2>/dev/null", "r");
  if (!f) return {};
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  int rc = ::pclose(f);
  return rc == 0 ? out : std::string{};
}

}  // namespace

std::optional<double> pcie_gbit(double gts, int width) {
  long per_lane_mbit = 0;
  if (gts >= 63.9)
    per_lane_mbit = 64000;
  else if (gts >= 31.9)
    per_lane_mbit = 32000L * 128 / 130;
  else if (gts >= 15.9)
    per_lane_mbit = 16000L * 128 / 130;
  else if (gts >= 7.9)
    per_lane_mbit = 8000L * 128 / 130;
  else if (gts >= 4.9)
    per_lane_mbit = 5000L * 8 / 10;
  else if (gts >= 2.4)
    per_lane_mbit = 2500L * 8 / 10;
  else
    return std::nullopt;
  if (width <= 0) return std::nullopt;
  return static_cast<double>(per_lane_mbit * width) / 1000.0;
}

model::GpuNicDistance pci_distance(const model::PciLocation& a, const model::PciLocation& b) {
  model::GpuNicDistance d;
  if (a.root_complex != b.root_complex) {
    d.level = (a.numa_node == b.numa_node) ? "NODE" : "SYS";
    return d;
  }
  // Bridges only (the last element of each chain is the function itself).
  std::vector<std::string> pa(a.chain.begin(), a.chain.end() - 1), pb(b.chain.begin(), b.chain.end() - 1);
  std::size_t common = 0;
  while (common < pa.size() && common < pb.size() && pa[common] == pb[common]) ++common;
  if (common <= 1) {  // nothing shared below the root port: through the host bridge
    d.level = "PHB";
    return d;
  }
  // Chain positions below the root port alternate switch upstream port (odd) and downstream port (even).
  std::size_t lca = common - 1;
  int switches = 0;
  if (lca % 2 == 1) ++switches;  // LCA is an upstream port: its switch is crossed
  for (const auto* p : {&pa, &pb})
    for (std::size_t i = lca + 1; i < p->size(); ++i)
      if (i % 2 == 1) ++switches;
  d.switches = switches;
  d.level = switches <= 1 ? "PIX" : "PXB";
  return d;
}

std::string nccl_gdr_range(const std::string& v) {
  int maj = 0, min = 0, pat = 0;
  if (std::sscanf(v.c_str(), "%d.%d.%d", &maj, &min, &pat) < 2) return {};
  long key = maj * 10000L + min * 100L + pat;
  if (key <= 20907) return "<=2.9.7";
  if (key < 22200) return "2.9.8-2.21";
  if (key < 22304) return "2.22.0-2.23.3";
  return ">=2.23.4";
}

void validate(const InventoryOptions& opts) {
  std::error_code ec;
  if (opts.sysfs_root.empty() || !fs::is_directory(opts.sysfs_root, ec))
    throw UsageError(fmt::format(
        "--sysfs-root: {} is not a directory (give the sysfs tree to read, default /sys)", opts.sysfs_root));
  if (opts.etc_root.empty())
    throw UsageError("--etc-root: empty path (give the directory that holds openmpi/, default /etc)");
  if (!opts.nccl_version.empty() && nccl_gdr_range(opts.nccl_version).empty())
    throw UsageError(fmt::format("--nccl-version: '{}' is not a version like 2.18.5", opts.nccl_version));
}

std::map<std::string, std::string> filter_transport_env(const std::vector<std::string>& entries) {
  std::map<std::string, std::string> out;
  for (const auto& e : entries) {
    auto eq = e.find('=');
    if (eq == std::string::npos) continue;
    auto k = e.substr(0, eq);
    bool keep = k.rfind("NCCL_", 0) == 0 || k.rfind("UCX_", 0) == 0 || k.rfind("OMPI_MCA_", 0) == 0;
    if (keep && k.rfind("OMPI_MCA_", 0) == 0) {
      // Launcher-internal parameters that mpirun/singleton init set for every process (job wiring and, in
      // orte_precondition_transports, a per-job key): they steer no transport and are not recorded.
      for (const char* p :
           {"OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_pmix", "OMPI_MCA_prte_", "OMPI_MCA_plm_",
            "OMPI_MCA_ras_", "OMPI_MCA_rmaps_", "OMPI_MCA_initial_wdir", "OMPI_MCA_shmem_RUNTIME"})
        if (k.rfind(p, 0) == 0) keep = false;
      if (k.find("precondition_transports") != std::string::npos) keep = false;
    }
    if (keep) out[k] = core::redact_value(k, e.substr(eq + 1));  // no secret in any report
  }
  return out;
}

std::vector<std::string> process_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) out.emplace_back(*e);
  return out;
}

model::HostInventory collect_host_inventory(const InventoryOptions& opts, const VerbsBackend& verbs,
                                            const std::map<std::string, std::string>& env,
                                            const std::string& host) {
  validate(opts);
  Reader r(opts.sysfs_root);
  model::HostInventory h;
  h.host = host;
  h.sysfs_root = opts.sysfs_root;
  h.uverbs_present = path_exists(r.at("class/infiniband_verbs"));

  // RDMA devices.
  const fs::path ibclass = r.at("class/infiniband");
  if (!path_exists(ibclass)) {
    h.rdma_status = "none";
    h.rdma_reason = fmt::format("no {}", (fs::path(opts.sysfs_root) / "class/infiniband").string());
  } else {
    for (const auto& name : list_dir(ibclass)) {
      fs::path ddir = ibclass / name;
      model::RdmaDevice d;
      d.name = name;
      d.node_type = split_num_text(read_or(ddir / "node_type")).second;
      d.fw_ver = read_or(ddir / "fw_ver");
      d.hca_type = read_or(ddir / "hca_type");
      d.board_id = read_or(ddir / "board_id");
      d.node_guid = read_or(ddir / "node_guid");
      d.sys_image_guid = read_or(ddir / "sys_image_guid");
      if (auto rel = r.resolve(ddir / "device")) d.pci = r.pci_location(*rel);
      d.netdevs = list_dir(ddir / "device" / "net");
      std::vector<int> ports;
      for (const auto& p : list_dir(ddir / "ports")) ports.push_back(std::atoi(p.c_str()));
      std::sort(ports.begin(), ports.end());
      for (int pn : ports) d.ports.push_back(read_port(ddir / "ports" / std::to_string(pn), pn));
      h.rdma_devices.push_back(std::move(d));
    }
    if (h.rdma_devices.empty()) {
      h.rdma_status = "none";
      h.rdma_reason =
          fmt::format("no RDMA devices in {}", (fs::path(opts.sysfs_root) / "class/infiniband").string());
    } else {
      h.rdma_status = "present";
    }
  }

  // libibverbs view: fills the IB MTU that sysfs lacks.
  if (opts.use_verbs) {
    h.verbs = verbs.list();
  } else {
    h.verbs.status = "disabled";
  }

  // Net interfaces (RoCE MTU comes from the GID's netdev).
  h.net_interfaces = read_net(r);
  auto netdev_mtu = [&](const std::string& nd) -> std::optional<int> {
    for (const auto& n : h.net_interfaces)
      if (n.name == nd) return n.mtu;
    return opt_int(read_long(r.at("class/net") / nd / "mtu"));
  };
  for (auto& d : h.rdma_devices) {
    const model::VerbsDevice* vd = nullptr;
    if (h.verbs.status == "ok")
      for (const auto& v : h.verbs.devices)
        if (v.name == d.name) vd = &v;
    for (auto& p : d.ports) {
      const model::VerbsPort* vp = nullptr;
      if (vd)
        for (const auto& x : vd->ports)
          if (x.port == p.port) vp = &x;
      if (vp && vp->active_mtu_bytes > 0) {
        p.mtu = vp->active_mtu_bytes;
        p.mtu_source = "verbs active_mtu";
      } else if (p.link_layer == "Ethernet") {
        const std::string nd = model::port_netdev(d, p);
        if (nd.empty()) {
          p.mtu_source = "unknown: no netdev for this RoCE port";
        } else if (auto m = netdev_mtu(nd)) {
          p.mtu = iboe_mtu(*m);
          p.mtu_source = fmt::format("netdev {} mtu {}", nd, *m);
        } else {
          p.mtu_source = fmt::format("unknown: netdev {} has no readable mtu", nd);
        }
      } else {
        p.mtu_source = "unknown: the IB active MTU is only available through libibverbs";
      }
    }
  }

  // GPUs: NVIDIA, class 0x0302xx / 0x0300xx; NVSwitch and audio functions skipped.
  for (const auto& bdf : list_dir(r.at("bus/pci/devices"))) {
    fs::path dir = r.at("bus/pci/devices") / bdf;
    if (read_or(dir / "vendor") != "0x10de") continue;
    auto cls = read_or(dir / "class");
    if (cls.rfind("0x0302", 0) != 0 && cls.rfind("0x0300", 0) != 0) continue;
    auto rel = r.resolve(dir);
    if (!rel) continue;
    auto loc = r.pci_location(*rel);
    if (!loc) continue;
    model::Gpu g;
    g.pci = std::move(*loc);
    g.bar1_bytes = detail::read_bar1_bytes(dir);
    h.gpus.push_back(std::move(g));
  }
  std::sort(h.gpus.begin(), h.gpus.end(),
            [](const model::Gpu& a, const model::Gpu& b) { return a.pci.bdf < b.pci.bdf; });
  for (std::size_t i = 0; i < h.gpus.size(); ++i) h.gpus[i].index = static_cast<int>(i);
  for (const auto& g : h.gpus)
    for (const auto& d : h.rdma_devices) {
      if (!d.pci) continue;
      auto dist = pci_distance(g.pci, *d.pci);
      dist.gpu = g.index;
      dist.nic = d.name;
      h.distances.push_back(dist);
    }
  h.pci_bridges = detail::read_path_bridges(r.root(), h);
  h.iommu = detail::read_iommu(r.root());
  detail::classify_rdma_devices(r.root(), h);
  detail::read_interface_addresses(opts, h);
  const bool live_sysfs = fs::path(opts.sysfs_root).lexically_normal() == fs::path("/sys");
  detail::read_roce_qos(r.root(), live_sysfs, h);
  if (opts.run_nvidia_smi && live_sysfs) h.nvidia_smi_topo = trim_copy(run_nvidia_smi_topo());

  h.gdr = read_gdr(r, opts.nccl_version);
  h.env = env;
  h.mpi_config = read_mpi_config(opts.etc_root, env);
  return h;
}

}  // namespace fabcheck::probes
