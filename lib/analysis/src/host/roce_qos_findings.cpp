// RoCE lossless configuration findings (DESIGN §5): the priority the job's RDMA traffic lands on,
// against the port's PFC and ECN enables (model::RoceQos, read by the inventory probe).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "fabcheck/report/inventory.hpp"
#include "pcie_findings.hpp"

namespace fabcheck::report {

using nlohmann::json;

namespace {

constexpr int kRoceQosPriorities = 8;
constexpr int kUcxAutoTrafficClass = 106;  // uct/ib/base/ib_iface.c: "auto" selects 106 on RoCEv2

/// An env value as NCCL reads it (strtoll base 0, the whole string), within [0, max].
std::optional<int> qos_env_int(const std::string& v, int max) {
  if (v.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  long x = std::strtol(v.c_str(), &end, 0);
  if (errno != 0 || end == v.c_str() || *end != '\0' || x < 0 || x > max) return std::nullopt;
  return static_cast<int>(x);
}

/// One env setting of a library: its value (or `dflt` when unset, or `automatic` for "auto") and how.
std::optional<int> qos_env_value(const std::map<std::string, std::string>& env, const std::string& key,
                                 int dflt, int max, std::optional<int> automatic, std::string& origin) {
  auto it = env.find(key);
  if (it == env.end()) {
    origin += fmt::format("{}{} unset (default {})", origin.empty() ? "" : ", ", key, dflt);
    return dflt;
  }
  if (automatic && it->second == "auto") {
    origin += fmt::format("{}env {}=auto ({})", origin.empty() ? "" : ", ", key, *automatic);
    return automatic;
  }
  auto v = qos_env_int(it->second, max);
  if (v) origin += fmt::format("{}env {}={}", origin.empty() ? "" : ", ", key, it->second);
  return v;
}

std::vector<int> qos_priorities(int mask) {
  std::vector<int> out;
  for (int p = 0; p < kRoceQosPriorities; ++p)
    if (mask & (1 << p)) out.push_back(p);
  return out;
}

std::string qos_pfc_list(int prio) {
  std::vector<int> bits(kRoceQosPriorities, 0);
  bits[static_cast<std::size_t>(prio)] = 1;
  return fmt::format("{}", fmt::join(bits, ","));
}

std::string qos_ecn_commands(const std::string& nd, int prio) {
  return fmt::format(
      "echo 1 > /sys/class/net/{0}/ecn/roce_np/enable/{1}; echo 1 > "
      "/sys/class/net/{0}/ecn/roce_rp/enable/{1}",
      nd, prio);
}

/// The remedy of ROCE_TC_NOT_LOSSLESS: a traffic class the port sends to the lowest PFC priority, or the map
/// (or SL) change that sends the job's DSCP there.
std::string qos_tc_remedy(const model::RoceQos& q, const RoceJobTraffic& t, int lossless) {
  const std::string tc_var = t.library == "NCCL" ? "NCCL_IB_TC" : "UCX_IB_TRAFFIC_CLASS";
  const std::string sl_var = t.library == "NCCL" ? "NCCL_IB_SL" : "UCX_IB_SL";
  if (q.trust == "pcp")
    return fmt::format(
        "set {}={} (the port trusts PCP and PFC is on priority {}), or enable PFC on priority {} "
        "instead (mlnx_qos -i {} --pfc {}) on every host and switch port",
        sl_var, lossless, lossless, t.service_level, q.netdev, qos_pfc_list(t.service_level));
  const int dscp = t.traffic_class >> 2;
  for (int d = 0; d < static_cast<int>(q.dscp2prio.size()); ++d)
    if (q.dscp2prio[static_cast<std::size_t>(d)] == lossless)
      return fmt::format(
          "set {}={} (DSCP {}, which {} maps to the PFC priority {}), or map DSCP {} there: "
          "mlnx_qos -i {} --dscp2prio set,{},{} — the same on every host and switch",
          tc_var, (d << 2) | (t.traffic_class & 3), d, q.netdev, lossless, dscp, q.netdev, dscp, lossless);
  return fmt::format(
      "map DSCP {} to the PFC priority {}: mlnx_qos -i {} --dscp2prio set,{},{} — the same on "
      "every host and switch",
      dscp, lossless, q.netdev, dscp, lossless);
}

/// The three rules for one port and one library's traffic (DESIGN §5 "RoCE lossless configuration").
void qos_judge(const model::HostInventory& h, const model::RdmaDevice& d, const model::RdmaPort& p,
               const RoceJobTraffic& t, int prio, const std::string& how, std::vector<Finding>& out) {
  const auto& q = *p.roce_qos;
  const bool ecn_known = q.ecn_np_mask && q.ecn_rp_mask;
  const bool np_on = ecn_known && (*q.ecn_np_mask & (1 << prio));
  const bool rp_on = ecn_known && (*q.ecn_rp_mask & (1 << prio));
  const bool pfc_on = q.pfc_enabled_mask && (*q.pfc_enabled_mask & (1 << prio));
  json ev = {
      {"host", h.host},
      {"device", d.name},
      {"port", p.port},
      {"interface", q.netdev},
      {"library", t.library},
      {"traffic_class", t.traffic_class},
      {"service_level", t.service_level},
      {"tc_origin", t.origin},
      {"trust", q.trust},
      {"priority", prio},
      {"priority_from", how},
      {"pfc_priorities", q.pfc_enabled_mask ? json(qos_priorities(*q.pfc_enabled_mask)) : json(nullptr)},
      {"pfc_source", q.pfc_source},
      {"ecn_np", ecn_known ? json(np_on) : json(nullptr)},
      {"ecn_rp", ecn_known ? json(rp_on) : json(nullptr)},
      {"ecn_source", q.ecn_source}};
  const std::string where = fmt::format("{}: {} port {} ({}): {} traffic ({}) lands on priority {} ({})",
                                        h.host, d.name, p.port, q.netdev, t.library, t.origin, prio, how);
  if (q.pfc_enabled_mask && *q.pfc_enabled_mask != 0 && !pfc_on) {
    const auto pfc = qos_priorities(*q.pfc_enabled_mask);
    out.push_back(detail::host_fact_finding(
        Severity::kWarn, "ROCE_TC_NOT_LOSSLESS",
        fmt::format("{}, but PFC is enabled on priority {} only: the job misses the lossless class and is "
                    "dropped instead of paused under congestion{}",
                    where, fmt::join(pfc, ", "), np_on && rp_on ? "" : " (no ECN on its priority either)"),
        std::move(ev), qos_tc_remedy(q, t, pfc.front())));
  } else if (q.pfc_enabled_mask && !pfc_on && ecn_known && !(np_on && rp_on)) {
    out.push_back(detail::host_fact_finding(
        Severity::kWarn, "ROCE_LOSSY",
        fmt::format(
            "{}, which has neither PFC nor ECN (roce_np {}, roce_rp {}): lossy RoCE — a dropped packet "
            "costs a go-back-N retransmission after the ACK timeout, busBw collapses under load",
            where, np_on ? "on" : "off", rp_on ? "on" : "off"),
        std::move(ev),
        fmt::format(
            "enable PFC on priority {0} (mlnx_qos -i {1} --pfc {2}, and on the switch ports for priority "
            "{0}) and/or ECN/DCQCN on it ({3}, with ECN marking on the switches), on every host",
            prio, q.netdev, qos_pfc_list(prio), qos_ecn_commands(q.netdev, prio))));
  } else if (pfc_on && ecn_known && !(np_on && rp_on)) {
    out.push_back(detail::host_fact_finding(
        Severity::kWarn, "ROCE_PFC_WITHOUT_ECN",
        fmt::format(
            "{}, which has PFC but no ECN/DCQCN (roce_np {}, roce_rp {}): under incast the switch "
            "pauses instead of the senders slowing down — pause storms and head-of-line blocking spread "
            "to other flows",
            where, np_on ? "on" : "off", rp_on ? "on" : "off"),
        std::move(ev),
        fmt::format("enable ECN on priority {} for both roles ({}) on every host, with ECN marking on the "
                    "switches' queue for that priority",
                    prio, qos_ecn_commands(q.netdev, prio))));
  }
}

}  // namespace

std::vector<RoceJobTraffic> roce_job_traffic(const std::map<std::string, std::string>& env) {
  std::vector<RoceJobTraffic> out;
  RoceJobTraffic n{"NCCL", 0, 0, ""};
  auto tc = qos_env_value(env, "NCCL_IB_TC", 0, 255, std::nullopt, n.origin);
  auto sl = qos_env_value(env, "NCCL_IB_SL", 0, 7, std::nullopt, n.origin);
  if (tc && sl) {
    n.traffic_class = *tc;
    n.service_level = *sl;
    out.push_back(n);
  }
  if (env.count("UCX_IB_TRAFFIC_CLASS") || env.count("UCX_IB_SL")) {
    RoceJobTraffic u{"UCX", 0, 0, ""};
    auto utc =
        qos_env_value(env, "UCX_IB_TRAFFIC_CLASS", kUcxAutoTrafficClass, 255, kUcxAutoTrafficClass, u.origin);
    auto usl = qos_env_value(env, "UCX_IB_SL", 0, 7, 0, u.origin);
    if (utc && usl) {
      u.traffic_class = *utc;
      u.service_level = *usl;
      out.push_back(u);
    }
  }
  return out;
}

std::optional<int> roce_priority(const model::RoceQos& q, const RoceJobTraffic& t, std::string& how) {
  if (q.trust == "pcp") {
    how = fmt::format("trust pcp: SL {}", t.service_level);
    return t.service_level;
  }
  if (q.trust != "dscp") {
    how = "trust mode unknown: " + q.trust_source;
    return std::nullopt;
  }
  const int dscp = t.traffic_class >> 2;
  if (static_cast<int>(q.dscp2prio.size()) <= dscp || q.dscp2prio[static_cast<std::size_t>(dscp)] < 0 ||
      q.dscp2prio[static_cast<std::size_t>(dscp)] >= kRoceQosPriorities) {
    how = fmt::format("trust dscp: DSCP {} not in the map ({})", dscp, q.dscp2prio_source);
    return std::nullopt;
  }
  const int prio = q.dscp2prio[static_cast<std::size_t>(dscp)];
  how = fmt::format("trust dscp: DSCP {} -> priority {} ({})", dscp, prio, q.dscp2prio_source);
  return prio;
}

namespace detail {

void roce_qos_findings(const model::HostInventory& h, std::vector<Finding>& out) {
  const auto traffic = roce_job_traffic(h.env);
  for (const auto& d : h.rdma_devices)
    for (const auto& p : d.ports) {
      if (!p.roce_qos || !p.active()) continue;
      std::vector<int> judged;
      for (const auto& t : traffic) {
        std::string how;
        auto prio = roce_priority(*p.roce_qos, t, how);
        if (!prio || std::find(judged.begin(), judged.end(), *prio) != judged.end()) continue;
        judged.push_back(*prio);
        qos_judge(h, d, p, t, *prio, how, out);
      }
    }
}

}  // namespace detail

}  // namespace fabcheck::report
