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

}  // namespace fabcheck::model
