// Pure helpers of the pairs result (model/pairs.hpp).
#include "fabcheck/model/pairs.hpp"

namespace fabcheck::model {

std::vector<std::string> PairsResult::passed_hosts() const {
  std::vector<bool> bad(hosts.size(), false);
  for (const auto& r : rails)
    for (const auto& s : r.suspects)
      if (s.confirmed.value_or(true) && s.by_bandwidth()) bad[static_cast<std::size_t>(s.host.host)] = true;
  std::vector<std::string> out;
  for (std::size_t h = 0; h < hosts.size(); ++h)
    if (!bad[h]) out.push_back(hosts[h]);
  return out;
}

}  // namespace fabcheck::model
