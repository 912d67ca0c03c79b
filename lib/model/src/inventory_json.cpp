// JSON form of a host inventory: the DESIGN §6 `inventory.hosts[]` object. Also the wire format host leaders
// send to rank 0, so it round-trips.
// The inventory section's wire format (host leaders -> rank 0) and the report's `inventory` JSON: one writer
// and one reader of HostInventory (the model defines the schema, not the measurement code).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fabcheck/core/error.hpp"
#include "fabcheck/core/redact.hpp"
#include "fabcheck/model/inventory.hpp"
#include "inventory_json_facts.hpp"

namespace fabcheck::model {

using nlohmann::json;

namespace {

using detail::get_opt;
using detail::opt;

std::string get_str(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return {};
  return j.at(key).get<std::string>();
}

std::vector<int> get_ints(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return {};
  return j.at(key).get<std::vector<int>>();
}

json ints_or_null(const std::vector<int>& v) {
  return v.empty() ? json(nullptr) : json(v);
}

/// A RoCE port's lossless configuration; unknowns are null, each with its `*_source`.
json roce_qos_json(const RoceQos& q) {
  return {{"netdev", q.netdev},
          {"trust", q.trust.empty() ? json(nullptr) : json(q.trust)},
          {"trust_source", q.trust_source},
          {"dscp2prio", ints_or_null(q.dscp2prio)},
          {"dscp2prio_source", q.dscp2prio_source},
          {"pfc_enabled_mask", opt(q.pfc_enabled_mask)},
          {"pfc_source", q.pfc_source},
          {"prio2buffer", ints_or_null(q.prio2buffer)},
          {"ecn_np_mask", opt(q.ecn_np_mask)},
          {"ecn_rp_mask", opt(q.ecn_rp_mask)},
          {"ecn_source", q.ecn_source}};
}

RoceQos roce_qos_from(const json& j) {
  RoceQos q;
  q.netdev = get_str(j, "netdev");
  q.trust = get_str(j, "trust");
  q.trust_source = get_str(j, "trust_source");
  q.dscp2prio = get_ints(j, "dscp2prio");
  q.dscp2prio_source = get_str(j, "dscp2prio_source");
  q.pfc_enabled_mask = get_opt<int>(j, "pfc_enabled_mask");
  q.pfc_source = get_str(j, "pfc_source");
  q.prio2buffer = get_ints(j, "prio2buffer");
  q.ecn_np_mask = get_opt<int>(j, "ecn_np_mask");
  q.ecn_rp_mask = get_opt<int>(j, "ecn_rp_mask");
  q.ecn_source = get_str(j, "ecn_source");
  return q;
}

json rank_bindings_json(const std::vector<RankBinding>& v) {
  json out = json::array();
  for (const auto& b : v)
    out.push_back(
        {{"rank", b.rank}, {"local_rank", b.local_rank}, {"cpus", b.cpus}, {"host_cpus", b.host_cpus}});
  return out;
}

json link_json(const PcieLink& l) {
  return {{"current_gts", opt(l.current_gts)},
          {"current_width", opt(l.current_width)},
          {"max_gts", opt(l.max_gts)},
          {"max_width", opt(l.max_width)},
          {"parent_max_gts", opt(l.parent_max_gts)},
          {"parent_max_width", opt(l.parent_max_width)},
          {"cap_gts", opt(l.cap_gts)},
          {"cap_width", opt(l.cap_width)},
          {"speed_below_cap", l.speed_below_cap},
          {"width_below_cap", l.width_below_cap},
          {"current_gbit", opt(l.current_gbit)},
          {"cap_gbit", opt(l.cap_gbit)}};
}

PcieLink link_from(const json& j) {
  PcieLink l;
  l.current_gts = get_opt<double>(j, "current_gts");
  l.current_width = get_opt<int>(j, "current_width");
  l.max_gts = get_opt<double>(j, "max_gts");
  l.max_width = get_opt<int>(j, "max_width");
  l.parent_max_gts = get_opt<double>(j, "parent_max_gts");
  l.parent_max_width = get_opt<int>(j, "parent_max_width");
  l.cap_gts = get_opt<double>(j, "cap_gts");
  l.cap_width = get_opt<int>(j, "cap_width");
  l.speed_below_cap = j.value("speed_below_cap", false);
  l.width_below_cap = j.value("width_below_cap", false);
  l.current_gbit = get_opt<double>(j, "current_gbit");
  l.cap_gbit = get_opt<double>(j, "cap_gbit");
  return l;
}

json pci_json(const PciLocation& p) {
  json j = link_json(p.link);
  j["bdf"] = p.bdf;
  j["root_complex"] = p.root_complex;
  j["path"] = p.chain;
  j["vendor"] = p.vendor;
  j["device"] = p.device;
  j["class"] = p.pci_class;
  j["config"] = detail::pcie_config_json(p.config);
  j["iommu_group"] = opt(p.iommu_group);
  j["iommu_group_type"] = p.iommu_group_type.empty() ? json(nullptr) : json(p.iommu_group_type);
  j["driver"] = p.driver.empty() ? json(nullptr) : json(p.driver);
  return j;
}

PciLocation pci_from(const json& j, const json& parent) {
  PciLocation p;
  p.link = link_from(j);
  p.bdf = get_str(j, "bdf");
  p.root_complex = get_str(j, "root_complex");
  p.chain = j.value("path", std::vector<std::string>{});
  p.vendor = get_str(j, "vendor");
  p.device = get_str(j, "device");
  p.pci_class = get_str(j, "class");
  p.config = detail::pcie_config_from(j.value("config", json::object()));
  p.iommu_group = get_opt<int>(j, "iommu_group");
  p.iommu_group_type = get_str(j, "iommu_group_type");
  p.driver = get_str(j, "driver");
  p.numa_node = get_opt<int>(parent, "numa_node");
  p.local_cpulist = get_str(parent, "local_cpulist");
  return p;
}

json port_json(const RdmaPort& p) {
  json gids = json::array();
  for (const auto& g : p.gids)
    gids.push_back({{"index", g.index},
                    {"gid", g.gid},
                    {"type", g.type},
                    {"netdev", g.netdev.empty() ? json(nullptr) : json(g.netdev)},
                    {"link_local", g.link_local},
                    {"ipv4", g.ipv4.empty() ? json(nullptr) : json(g.ipv4)}});
  json j = {{"port", p.port},
            {"state", p.state},
            {"state_num", p.state_num},
            {"phys_state", p.phys_state},
            {"link_layer", p.link_layer},
            {"rate_gbit", opt(p.rate_gbit)},
            {"rate_raw", p.rate_raw},
            {"rate_note",
             p.rate_gbit ? json(nullptr)
                         : json(p.active() ? "rate unreadable"
                                           : fmt::format("port not ACTIVE: rate '{}' ignored", p.rate_raw))},
            {"mtu", opt(p.mtu)},
            {"mtu_source", p.mtu_source},
            {"lid", p.lid},
            {"gid_tbl_len", p.gid_tbl_len},
            {"rocev2_gid_index", opt(p.rocev2_gid_index)},
            {"gids", gids}};
  j["roce_qos"] = p.roce_qos ? roce_qos_json(*p.roce_qos) : json(nullptr);
  return j;
}

RdmaPort port_from(const json& j) {
  RdmaPort p;
  p.port = j.at("port").get<int>();
  p.state = get_str(j, "state");
  p.state_num = j.value("state_num", 0);
  p.phys_state = get_str(j, "phys_state");
  p.link_layer = get_str(j, "link_layer");
  p.rate_gbit = get_opt<double>(j, "rate_gbit");
  p.rate_raw = get_str(j, "rate_raw");
  p.mtu = get_opt<int>(j, "mtu");
  p.mtu_source = get_str(j, "mtu_source");
  p.lid = get_str(j, "lid");
  p.gid_tbl_len = j.value("gid_tbl_len", 0);
  p.rocev2_gid_index = get_opt<int>(j, "rocev2_gid_index");
  if (j.contains("roce_qos") && !j.at("roce_qos").is_null()) p.roce_qos = roce_qos_from(j.at("roce_qos"));
  for (const auto& g : j.at("gids")) {
    GidEntry e;
    e.index = g.at("index").get<int>();
    e.gid = get_str(g, "gid");
    e.type = get_str(g, "type");
    e.netdev = get_str(g, "netdev");
    e.link_local = g.value("link_local", false);
    e.ipv4 = get_str(g, "ipv4");
    p.gids.push_back(e);
  }
  return p;
}

}  // namespace

std::string to_json_text(const HostInventory& h) {
  json devs = json::array();
  for (const auto& d : h.rdma_devices) {
    json ports = json::array();
    for (const auto& p : d.ports) ports.push_back(port_json(p));
    devs.push_back({{"name", d.name},
                    {"driver", d.driver},
                    {"protocol", d.protocol.empty() ? json(nullptr) : json(d.protocol)},
                    {"node_type", d.node_type},
                    {"fw_ver", d.fw_ver},
                    {"hca_type", d.hca_type},
                    {"board_id", d.board_id},
                    {"node_guid", d.node_guid},
                    {"sys_image_guid", d.sys_image_guid},
                    {"numa_node", d.pci ? opt(d.pci->numa_node) : json(nullptr)},
                    {"local_cpulist", d.pci ? json(d.pci->local_cpulist) : json(nullptr)},
                    {"pcie", d.pci ? pci_json(*d.pci) : json(nullptr)},
                    {"netdevs", d.netdevs},
                    {"ports", ports}});
  }
  json gpus = json::array();
  for (const auto& g : h.gpus)
    gpus.push_back({{"index", g.index},
                    {"bdf", g.pci.bdf},
                    {"numa_node", opt(g.pci.numa_node)},
                    {"local_cpulist", g.pci.local_cpulist},
                    {"bar1_bytes", opt(g.bar1_bytes)},
                    {"pcie", pci_json(g.pci)}});
  json dist = json::array();
  for (const auto& d : h.distances)
    dist.push_back({{"gpu", d.gpu}, {"nic", d.nic}, {"level", d.level}, {"switches", d.switches}});
  json nets = json::array();
  for (const auto& n : h.net_interfaces)
    nets.push_back({{"name", n.name},
                    {"operstate", n.operstate},
                    {"mtu", opt(n.mtu)},
                    {"speed_mbit", opt(n.speed_mbit)},
                    {"virtual", n.is_virtual},
                    {"pci_bdf", n.pci_bdf.empty() ? json(nullptr) : json(n.pci_bdf)},
                    {"rdma_device", n.rdma_device.empty() ? json(nullptr) : json(n.rdma_device)},
                    {"type", n.type},
                    {"admin_up", opt(n.admin_up)},
                    {"ipv4", n.ipv4},
                    {"ipv4_routes", n.ipv4_routes}});
  json files = json::array();
  for (const auto& f : h.mpi_config.files) {
    json params = json::array();
    for (const auto& [k, v] : f.params) params.push_back({k, v});
    files.push_back({{"path", f.path}, {"params", params}});
  }
  json vdevs = json::array();
  for (const auto& d : h.verbs.devices) {
    json ports = json::array();
    for (const auto& p : d.ports)
      ports.push_back({{"port", p.port},
                       {"state", p.state},
                       {"active_mtu", p.active_mtu_bytes},
                       {"link_layer", p.link_layer},
                       {"rate_gbit", p.rate_gbit},
                       {"gid_tbl_len", p.gid_tbl_len}});
    vdevs.push_back(
        {{"name", d.name}, {"error", d.error.empty() ? json(nullptr) : json(d.error)}, {"ports", ports}});
  }
  json j = {
      {"host", h.host},
      {"sysfs_root", h.sysfs_root},
      {"rdma",
       {{"status", h.rdma_status}, {"reason", h.rdma_reason.empty() ? json(nullptr) : json(h.rdma_reason)}}},
      {"uverbs_present", h.uverbs_present},
      {"rdma_devices", devs},
      {"gpus", gpus},
      {"gpu_nic_distance", dist},
      {"nvidia_smi_topo", h.nvidia_smi_topo.empty() ? json(nullptr) : json(h.nvidia_smi_topo)},
      {"gdr",
       {{"nvidia_peermem_loaded", h.gdr.nvidia_peermem_loaded},
        {"nv_peer_mem_loaded", h.gdr.nv_peer_mem_loaded},
        {"module_version", h.gdr.module_version.empty() ? json(nullptr) : json(h.gdr.module_version)},
        {"paths_present", h.gdr.paths_present},
        {"seen_by_nccl", h.gdr.seen_by_nccl},
        {"nccl_version", h.gdr.nccl_version.empty() ? json(nullptr) : json(h.gdr.nccl_version)},
        {"seen_by_this_nccl", opt(h.gdr.seen_by_this_nccl)}}},
      {"net_interfaces", nets},
      {"env", h.env},
      {"env_redacted", core::redacted_names(h.env)},
      {"rank_bindings", rank_bindings_json(h.rank_bindings)},
      {"mpi_config",
       {{"files", files},
        {"effective", h.mpi_config.effective},
        {"origin", h.mpi_config.origin},
        {"rdma_excluded", h.mpi_config.rdma_excluded}}},
      {"verbs",
       {{"status", h.verbs.status},
        {"errno", h.verbs.err == 0 ? json(nullptr) : json(h.verbs.err)},
        {"error", h.verbs.error_text.empty() ? json(nullptr) : json(h.verbs.error_text)},
        {"devices", vdevs}}}};
  detail::add_host_facts(h, j);
  return j.dump();
}

HostInventory host_inventory_from_json_text(const std::string& text) {
  try {
    json j = json::parse(text);
    HostInventory h;
    h.host = get_str(j, "host");
    h.sysfs_root = get_str(j, "sysfs_root");
    h.rdma_status = get_str(j.at("rdma"), "status");
    h.rdma_reason = get_str(j.at("rdma"), "reason");
    h.uverbs_present = j.value("uverbs_present", false);
    for (const auto& d : j.at("rdma_devices")) {
      RdmaDevice r;
      r.name = get_str(d, "name");
      r.driver = get_str(d, "driver");
      r.protocol = get_str(d, "protocol");
      r.node_type = get_str(d, "node_type");
      r.fw_ver = get_str(d, "fw_ver");
      r.hca_type = get_str(d, "hca_type");
      r.board_id = get_str(d, "board_id");
      r.node_guid = get_str(d, "node_guid");
      r.sys_image_guid = get_str(d, "sys_image_guid");
      if (!d.at("pcie").is_null()) r.pci = pci_from(d.at("pcie"), d);
      r.netdevs = d.value("netdevs", std::vector<std::string>{});
      for (const auto& p : d.at("ports")) r.ports.push_back(port_from(p));
      h.rdma_devices.push_back(std::move(r));
    }
    for (const auto& g : j.at("gpus")) {
      Gpu gpu;
      gpu.index = g.at("index").get<int>();
      gpu.pci = pci_from(g.at("pcie"), g);
      gpu.bar1_bytes = get_opt<std::uint64_t>(g, "bar1_bytes");
      h.gpus.push_back(std::move(gpu));
    }
    for (const auto& d : j.at("gpu_nic_distance"))
      h.distances.push_back(
          {d.at("gpu").get<int>(), get_str(d, "nic"), get_str(d, "level"), d.value("switches", 0)});
    h.nvidia_smi_topo = get_str(j, "nvidia_smi_topo");
    const auto& g = j.at("gdr");
    h.gdr.nvidia_peermem_loaded = g.value("nvidia_peermem_loaded", false);
    h.gdr.nv_peer_mem_loaded = g.value("nv_peer_mem_loaded", false);
    h.gdr.module_version = get_str(g, "module_version");
    h.gdr.paths_present = g.value("paths_present", std::vector<std::string>{});
    h.gdr.seen_by_nccl = g.value("seen_by_nccl", std::map<std::string, bool>{});
    h.gdr.nccl_version = get_str(g, "nccl_version");
    h.gdr.seen_by_this_nccl = get_opt<bool>(g, "seen_by_this_nccl");
    for (const auto& n : j.at("net_interfaces")) {
      NetInterface ni;
      ni.name = get_str(n, "name");
      ni.operstate = get_str(n, "operstate");
      ni.mtu = get_opt<int>(n, "mtu");
      ni.speed_mbit = get_opt<long>(n, "speed_mbit");
      ni.is_virtual = n.value("virtual", false);
      ni.pci_bdf = get_str(n, "pci_bdf");
      ni.rdma_device = get_str(n, "rdma_device");
      ni.type = get_str(n, "type");
      ni.admin_up = get_opt<bool>(n, "admin_up");
      ni.ipv4 = n.value("ipv4", std::vector<std::string>{});
      ni.ipv4_routes = n.value("ipv4_routes", std::vector<std::string>{});
      h.net_interfaces.push_back(std::move(ni));
    }
    h.env = j.value("env", std::map<std::string, std::string>{});
    for (const auto& b : j.value("rank_bindings", json::array()))
      h.rank_bindings.push_back({b.value("rank", 0), b.value("local_rank", 0), b.value("cpus", std::string()),
                                 b.value("host_cpus", 0)});
    const auto& m = j.at("mpi_config");
    for (const auto& f : m.at("files")) {
      MpiConfigFile mf;
      mf.path = get_str(f, "path");
      for (const auto& kv : f.at("params"))
        mf.params.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::string>());
      h.mpi_config.files.push_back(std::move(mf));
    }
    h.mpi_config.effective = m.value("effective", std::map<std::string, std::string>{});
    h.mpi_config.origin = m.value("origin", std::map<std::string, std::string>{});
    h.mpi_config.rdma_excluded = m.value("rdma_excluded", std::vector<std::string>{});
    const auto& v = j.at("verbs");
    h.verbs.status = get_str(v, "status");
    h.verbs.err = get_opt<int>(v, "errno").value_or(0);
    h.verbs.error_text = get_str(v, "error");
    for (const auto& d : v.at("devices")) {
      VerbsDevice vd;
      vd.name = get_str(d, "name");
      vd.error = get_str(d, "error");
      for (const auto& p : d.at("ports"))
        vd.ports.push_back({p.at("port").get<int>(), p.value("state", 0), p.value("active_mtu", 0),
                            p.value("link_layer", 0), p.value("rate_gbit", 0.0), p.value("gid_tbl_len", 0)});
      h.verbs.devices.push_back(std::move(vd));
    }
    detail::read_host_facts(j, h);
    return h;
  } catch (const nlohmann::json::exception& e) {
    throw RuntimeFailure(fmt::format("inventory: malformed host inventory from a host leader: {}", e.what()));
  }
}

}  // namespace fabcheck::model
