#pragma once
// JSON of the host facts (config space, IOMMU, bridges), used by inventory_json.cpp.
#include <nlohmann/json.hpp>

#include "fabcheck/model/inventory.hpp"

namespace fabcheck::model::detail {

/// An optional as JSON: the value or null.
template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

/// j[key] as T, nullopt when the key is missing or null.
template <class T>
std::optional<T> get_opt(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<T>();
}

/// `{config_bytes, express_port_type, devctl, relaxed_ordering, max_payload_bytes, ..., acs_ctrl_bits}`.
nlohmann::json pcie_config_json(const PcieConfig& c);
/// Reads what pcie_config_json wrote (acs_ctrl_bits is derived and not read); a missing key is "not read".
PcieConfig pcie_config_from(const nlohmann::json& j);
/// Adds `pci_bridges`, `iommu` and `ipv4_source` of h to the host object j.
void add_host_facts(const HostInventory& h, nlohmann::json& j);
/// Reads what add_host_facts wrote (absent keys: reports written before fabcheck recorded these facts).
void read_host_facts(const nlohmann::json& j, HostInventory& h);

}  // namespace fabcheck::model::detail
