// The verbs part's port as JSON (model/nics_verbs.hpp): one writer for the report and the leaders' exchange.
#include "fabcheck/model/nics_verbs.hpp"

namespace fabcheck::model {

nlohmann::json verbs_port_json(const VerbsNicPort& p) {
  return {{"device", p.device},
          {"port", p.port},
          {"link_layer", p.link_layer},
          {"netdev", p.netdev},
          {"gid_index", p.gid_index},
          {"gid_index_source", p.gid_index_source},
          {"gid", p.gid},
          {"lid", p.lid},
          {"active_mtu_bytes", p.active_mtu_bytes}};
}

VerbsNicPort verbs_port_from_json(const nlohmann::json& j) {
  VerbsNicPort p;
  p.device = j.at("device").get<std::string>();
  p.port = j.at("port").get<int>();
  p.link_layer = j.at("link_layer").get<std::string>();
  p.netdev = j.at("netdev").get<std::string>();
  p.gid_index = j.at("gid_index").get<int>();
  p.gid_index_source = j.at("gid_index_source").get<std::string>();
  p.gid = j.at("gid").get<std::string>();
  p.lid = j.at("lid").get<int>();
  p.active_mtu_bytes = j.at("active_mtu_bytes").get<int>();
  return p;
}

}  // namespace fabcheck::model
