// The verbs part's port as JSON (model/nics_verbs.hpp): one writer for the report and the leaders' exchange.
#include "fabcheck/model/nics_verbs.hpp"

namespace fabcheck::model {

// Its keys are the member names; reading takes every key (nlohmann's at(): a missing one throws).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(VerbsNicPort, device, port, link_layer, netdev, gid_index,
                                   gid_index_source, gid, lid, active_mtu_bytes)

nlohmann::json verbs_port_json(const VerbsNicPort& p) {
  return p;
}

VerbsNicPort verbs_port_from_json(const nlohmann::json& j) {
  return j.get<VerbsNicPort>();
}

}  // namespace fabcheck::model
