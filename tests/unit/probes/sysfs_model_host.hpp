#pragma once
// The inventory of one host model of tests/data/sysfs, as the inventory tests read them
// (probes/test_inventory_pcie_gdr.cpp, probes/test_inventory_roce_qos.cpp).
#include <map>
#include <string>
#include <vector>

#include "fabcheck/probes/inventory.hpp"
#include "fabcheck/report/inventory.hpp"

namespace fabcheck::testing_fixtures {

/// libibverbs failing with ENOSYS: the host models are read from their sysfs files alone.
class NoVerbsBackend : public probes::VerbsBackend {
 public:
  model::VerbsListing list() const override { return {"unavailable", 38, "Function not implemented", {}}; }
};

/// The inventory of tests/data/sysfs/<model> as `host` with the job environment `env`: no /etc, no
/// nvidia-smi; the model's proc/ as /proc when `proc`.
inline model::HostInventory sysfs_model_host(const std::string& model, const std::string& host,
                                             const std::map<std::string, std::string>& env = {},
                                             bool proc = false) {
  const std::string root = std::string(FABCHECK_TEST_DATA) + "/sysfs/" + model;
  probes::InventoryOptions o;
  o.sysfs_root = root;
  o.etc_root = root + "/no-etc";
  o.run_nvidia_smi = false;
  if (proc) o.proc_root = root + "/proc";
  return probes::collect_host_inventory(o, NoVerbsBackend{}, env, host);
}

/// The inventory findings over `hosts`.
inline std::vector<report::Finding> inventory_findings_of(const std::vector<model::HostInventory>& hosts) {
  model::InventoryResult r;
  r.hosts = hosts;
  return report::inventory_findings(r);
}

}  // namespace fabcheck::testing_fixtures
