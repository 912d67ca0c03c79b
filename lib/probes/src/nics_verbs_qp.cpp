// The queue-pair attribute choice of the nics probe's verbs part (probes/nics_verbs_qp.hpp). No verbs
// headers.
#include "fabcheck/probes/nics_verbs_qp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace fabcheck::probes::rdma {

namespace {

int env_level(const std::map<std::string, std::string>& env, const char* key) {
  auto it = env.find(key);
  if (it == env.end() || it->second.empty()) return 0;
  char* end = nullptr;
  const long v = std::strtol(it->second.c_str(), &end, 10);
  if (end == it->second.c_str() || *end != '\0' || v < 0) return 0;
  return static_cast<int>(v);
}

unsigned be16_at(const Gid& g, std::size_t at) {
  return static_cast<unsigned>(g[at]) << 8 | g[at + 1];
}

}  // namespace

QpClass qp_class_from_env(const std::map<std::string, std::string>& env) {
  return {env_level(env, "NCCL_IB_SL"), env_level(env, "NCCL_IB_TC")};
}

bool valid_ib_mtu(int bytes) {
  return bytes == 256 || bytes == 512 || bytes == 1024 || bytes == 2048 || bytes == 4096;
}

double ack_timeout_us(int timeout) {
  return 4.096 * std::ldexp(1.0, timeout);
}

std::optional<RtrAttr> rtr_attr(const LocalPort& local, const QpInfo& remote, const QpClass& cls,
                                std::string& why) {
  if (!remote.error.empty()) {
    why = "peer: " + remote.error;
    return std::nullopt;
  }
  if (local.ethernet != remote.ethernet) {
    why = fmt::format("link layers differ: local {}, remote {}", local.ethernet ? "Ethernet" : "InfiniBand",
                      remote.ethernet ? "Ethernet" : "InfiniBand");
    return std::nullopt;
  }
  if (!valid_ib_mtu(local.mtu_bytes) || !valid_ib_mtu(remote.mtu_bytes)) {
    why = fmt::format("no path MTU: active MTUs {} and {} bytes", local.mtu_bytes, remote.mtu_bytes);
    return std::nullopt;
  }
  RtrAttr a;
  a.path_mtu_bytes = std::min(local.mtu_bytes, remote.mtu_bytes);
  a.dest_qpn = remote.qpn;
  a.rq_psn = remote.psn;
  a.sl = cls.sl;
  a.port_num = local.port_num;
  bool global = local.ethernet;
  if (!local.ethernet) {
    a.dlid = remote.lid;
    const bool same_subnet = be16_at(local.gid, 6) == be16_at(remote.gid, 6);
    if (!same_subnet) {
      if (const unsigned flid = be16_at(remote.gid, 4); flid != 0) a.dlid = static_cast<std::uint16_t>(flid);
    }
    global = !same_subnet || local.grh_required;
  }
  if (global) {
    a.is_global = true;
    a.dgid = remote.gid;
    a.sgid_index = local.gid_index;
    a.hop_limit = 255;
    a.traffic_class = local.ethernet ? cls.traffic_class : 0;
  }
  return a;
}

RtsAttr rts_attr(std::uint32_t local_psn) {
  RtsAttr a;
  a.sq_psn = local_psn;
  return a;
}

}  // namespace fabcheck::probes::rdma
