// Pure helpers of the inventory model (model/inventory.hpp).
#include "fabcheck/model/inventory.hpp"

namespace fabcheck::model {

int distance_rank(const std::string& level) {
  if (level == "PIX") return 1;
  if (level == "PXB") return 2;
  if (level == "PHB") return 3;
  if (level == "NODE") return 4;
  if (level == "SYS") return 5;
  return 6;
}

std::string port_netdev(const RdmaDevice& d, const RdmaPort& p) {
  for (const auto& g : p.gids)
    if (!g.netdev.empty()) return g.netdev;
  return d.netdevs.empty() ? std::string() : d.netdevs.front();
}

const RdmaDevice* find_rdma_device(const HostInventory& h, const std::string& name) {
  for (const auto& d : h.rdma_devices)
    if (d.name == name) return &d;
  return nullptr;
}

std::vector<std::string> acs_bit_names(int acs_ctrl) {
  // PCI_ACS_SV 0x01 .. PCI_ACS_DT 0x40 (include/uapi/linux/pci_regs.h), named as lspci prints ACSCtl.
  static const char* const kNames[] = {"SrcValid",    "TransBlk",   "ReqRedir",   "CmpltRedir",
                                       "UpstreamFwd", "EgressCtrl", "DirectTrans"};
  std::vector<std::string> out;
  for (int bit = 0; bit < 7; ++bit)
    if (acs_ctrl & (1 << bit)) out.emplace_back(kNames[bit]);
  return out;
}

}  // namespace fabcheck::model
