// JSON of the host facts (inventory_json_facts.hpp).
#include "inventory_json_facts.hpp"

namespace fabcheck::model::detail {

using nlohmann::json;

json pcie_config_json(const PcieConfig& c) {
  return {{"config_bytes", c.config_bytes},
          {"express_port_type", opt(c.express_port_type)},
          {"devctl", opt(c.devctl)},
          {"relaxed_ordering", opt(c.relaxed_ordering)},
          {"max_payload_bytes", opt(c.max_payload_bytes)},
          {"max_read_request_bytes", opt(c.max_read_request_bytes)},
          {"max_payload_supported_bytes", opt(c.max_payload_supported_bytes)},
          {"extended_read", c.extended_read},
          {"acs_cap", opt(c.acs_cap)},
          {"acs_ctrl", opt(c.acs_ctrl)},
          {"acs_ctrl_bits", c.acs_ctrl ? json(acs_bit_names(*c.acs_ctrl)) : json(nullptr)}};
}

PcieConfig pcie_config_from(const json& j) {
  PcieConfig c;
  if (!j.is_object()) return c;
  c.config_bytes = j.value("config_bytes", 0);
  c.express_port_type = get_opt<int>(j, "express_port_type");
  c.devctl = get_opt<int>(j, "devctl");
  c.relaxed_ordering = get_opt<bool>(j, "relaxed_ordering");
  c.max_payload_bytes = get_opt<int>(j, "max_payload_bytes");
  c.max_read_request_bytes = get_opt<int>(j, "max_read_request_bytes");
  c.max_payload_supported_bytes = get_opt<int>(j, "max_payload_supported_bytes");
  c.extended_read = j.value("extended_read", false);
  c.acs_cap = get_opt<int>(j, "acs_cap");
  c.acs_ctrl = get_opt<int>(j, "acs_ctrl");
  return c;
}

void add_host_facts(const HostInventory& h, json& j) {
  json bridges = json::array();
  for (const auto& b : h.pci_bridges)
    bridges.push_back(
        {{"bdf", b.bdf}, {"vendor", b.vendor}, {"device", b.device}, {"config", pcie_config_json(b.config)}});
  j["pci_bridges"] = bridges;
  j["iommu"] = {{"units", h.iommu.units}, {"group_count", h.iommu.group_count}};
  j["ipv4_source"] = h.ipv4_source;
}

void read_host_facts(const json& j, HostInventory& h) {
  if (j.contains("pci_bridges"))
    for (const auto& b : j.at("pci_bridges")) {
      PciBridge pb;
      pb.bdf = b.value("bdf", "");
      pb.vendor = b.value("vendor", "");
      pb.device = b.value("device", "");
      pb.config = pcie_config_from(b.value("config", json::object()));
      h.pci_bridges.push_back(std::move(pb));
    }
  if (j.contains("iommu")) {
    h.iommu.units = j.at("iommu").value("units", std::vector<std::string>{});
    h.iommu.group_count = j.at("iommu").value("group_count", 0);
  }
  h.ipv4_source = j.value("ipv4_source", "");
}

}  // namespace fabcheck::model::detail
