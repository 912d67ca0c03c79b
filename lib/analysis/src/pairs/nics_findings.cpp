// The NIC findings of the nics probe (report/nics.hpp: nics_findings and its helpers).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "fabcheck/core/ascii.hpp"
#include "fabcheck/core/ifname_filter.hpp"
#include "fabcheck/model/json_value.hpp"
#include "fabcheck/report/nics.hpp"
#include "transport/nics_nccl_log.hpp"

namespace fabcheck::report {

namespace {

using model::NicsResult;
using nlohmann::json;

const model::NicInfo& nic_at(const NicsResult& r, int host, int k) {
  return r.nics[static_cast<std::size_t>(host)][static_cast<std::size_t>(k)];
}

std::string nic_where(const NicsResult& r, int host, int k) {
  return fmt::format("{} {}", r.hosts[static_cast<std::size_t>(host)], nic_at(r, host, k).name);
}

int nic_rail_of(const NicsResult& r, int host, int k) {
  return nic_at(r, host, k).rail;
}

// Host 0's interfaces that a data-path setting selects (names; empty when it names none of them).
std::vector<std::string> selected_ifaces(const NicsResult& r, const std::string& key,
                                         const std::string& value) {
  std::vector<std::string> out;
  if (r.nics.empty()) return out;
  for (const auto& n : r.nics[0]) {
    bool hit = false;
    if (key == "NCCL_SOCKET_IFNAME") {
      hit = core::ifname_matches(value, n.name);
    } else {
      for (auto item : core::split_list(value)) {
        if (key == "UCX_NET_DEVICES") item = item.substr(0, item.find(':'));
        hit = hit ||
              (item.find('/') != std::string::npos ? core::ipv4_in_subnet(n.addr, item) : item == n.name);
      }
    }
    if (hit) out.push_back(n.name);
  }
  return out;
}

std::string join_names(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

}  // namespace

std::vector<std::pair<int, int>> nics_dead(const NicsResult& r) {
  std::vector<std::pair<int, int>> out;
  for (std::size_t h = 0; h < r.nics.size(); ++h)
    for (std::size_t k = 0; k < r.nics[h].size(); ++k) {
      const auto& n = r.nics[h][k];
      if (!n.data) continue;
      const int hi = static_cast<int>(h), ki = static_cast<int>(k);
      bool own = false, own_ok = false, others_ok = false;
      for (const auto& l : r.links) {
        const bool same = nic_rail_of(r, l.from_host, l.from_nic) == n.rail &&
                          nic_rail_of(r, l.to_host, l.to_nic) == n.rail;
        if (!same) continue;
        const bool mine = (l.from_host == hi && l.from_nic == ki) || (l.to_host == hi && l.to_nic == ki);
        if (mine) {
          own = true;
          own_ok = own_ok || l.reachable;
        } else if (l.reachable) {
          others_ok = true;
        }
      }
      if (!n.carrier || (own && !own_ok && others_ok)) out.push_back({hi, ki});
    }
  return out;
}

std::vector<std::vector<RailReach>> rail_reachability(const NicsResult& r) {
  const std::size_t R = r.rails.size();
  std::vector<std::vector<RailReach>> m(R, std::vector<RailReach>(R));
  const auto dead = nics_dead(r);
  const std::set<std::pair<int, int>> d(dead.begin(), dead.end());
  for (const auto& l : r.links) {
    if (d.count({l.from_host, l.from_nic}) || d.count({l.to_host, l.to_nic})) continue;
    const int a = nic_rail_of(r, l.from_host, l.from_nic), b = nic_rail_of(r, l.to_host, l.to_nic);
    if (a < 0 || b < 0) continue;
    auto& c = m[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
    ++c.attempted;
    c.reachable += l.reachable ? 1 : 0;
  }
  return m;
}

namespace {

// NICS_NIC_DOWN for each dead NIC (first: they explain their unreachable pairs).
void add_dead_nics(const NicsResult& r, const std::vector<std::pair<int, int>>& dead,
                   std::vector<Finding>& out) {
  for (auto [h, k] : dead) {
    const auto& n = nic_at(r, h, k);
    int tried = 0;
    std::string err;
    for (const auto& l : r.links)
      if ((l.from_host == h && l.from_nic == k) || (l.to_host == h && l.to_nic == k))
        if (nic_rail_of(r, l.from_host, l.from_nic) == n.rail &&
            nic_rail_of(r, l.to_host, l.to_nic) == n.rail) {
          ++tried;
          if (err.empty() && !l.reachable) err = l.error;
        }
    Finding f;
    f.severity = Severity::kFail;
    f.code = "NICS_NIC_DOWN";
    f.message =
        fmt::format("NIC {} ({}, rail {}) is dead: {}; none of its {} same-rail NIC pairs connected{}",
                    nic_where(r, h, k), n.addr, r.rails[static_cast<std::size_t>(n.rail)].subnet,
                    n.carrier ? "link up" : "no carrier", tried, err.empty() ? "" : " (" + err + ")");
    f.evidence = {{"host", r.hosts[static_cast<std::size_t>(h)]},
                  {"iface", n.name},
                  {"addr", n.addr},
                  {"carrier", n.carrier},
                  {"same_rail_pairs", tried},
                  {"error", err}};
    f.remedy = fmt::format(
        "check {}'s cable, transceiver and switch port (ip link show {}; ethtool {}); drain the "
        "host until its NIC is back",
        n.name, n.name, n.name);
    out.push_back(std::move(f));
  }
}

// NICS_RAIL_ONLY when no cross-rail pair connects and every rail works; returns whether the fabric is
// rail-only.
bool add_rail_only(const NicsResult& r, std::vector<Finding>& out) {
  const auto reach = rail_reachability(r);
  const std::size_t R = r.rails.size();
  int same_att = 0, same_ok = 0, cross_att = 0, cross_ok = 0;
  bool every_rail_works = true;
  for (std::size_t a = 0; a < R; ++a)
    for (std::size_t b = 0; b < R; ++b) {
      (a == b ? same_att : cross_att) += reach[a][b].attempted;
      (a == b ? same_ok : cross_ok) += reach[a][b].reachable;
      if (a == b && reach[a][b].attempted > 0 && reach[a][b].reachable == 0) every_rail_works = false;
    }
  const bool rail_only = R >= 2 && cross_att > 0 && cross_ok == 0 && same_ok > 0 && every_rail_works;
  if (!rail_only) return false;
  const auto it = r.env.find("NCCL_CROSS_NIC");
  const std::string cross = it == r.env.end() ? "" : it->second;
  Finding f;
  f.code = "NICS_RAIL_ONLY";
  // NCCL_CROSS_NIC (NCCL environment variables docs): 0 = the same NIC index on every node, 1 = allow
  // different NICs, 2 (default) = prefer the same NIC but allow a different one.
  f.severity = cross == "0" ? Severity::kInfo : cross == "1" ? Severity::kFail : Severity::kWarn;
  f.message = fmt::format(
      "rail-only fabric: 0 of {} cross-rail NIC pairs connect, {} of {} same-rail pairs do ({} rails){}",
      cross_att, same_ok, same_att, R,
      cross.empty() ? "; NCCL_CROSS_NIC is not set (NCCL's default 2 allows a cross-rail connection)"
      : cross == "0"
          ? "; NCCL_CROSS_NIC=0 keeps NCCL on one rail per connection"
          : fmt::format("; NCCL_CROSS_NIC={} lets NCCL connect across rails, which this fabric cannot "
                        "carry",
                        cross));
  f.evidence = {{"rails", R},
                {"cross_rail_attempted", cross_att},
                {"cross_rail_reachable", cross_ok},
                {"same_rail_attempted", same_att},
                {"same_rail_reachable", same_ok},
                {"nccl_cross_nic", cross.empty() ? json(nullptr) : json(cross)}};
  f.remedy = cross == "0" ? "none needed: keep NCCL_CROSS_NIC=0 for jobs on this fabric"
                          : "export NCCL_CROSS_NIC=0 for every job on this fabric (or join the rails' switch "
                            "planes)";
  out.push_back(std::move(f));
  return true;
}

// NICS_UNREACHABLE: pairs of live NICs that did not connect and that the rail-only pattern does not explain.
void add_unreachable(const NicsResult& r, const std::set<std::pair<int, int>>& dead_set, bool rail_only,
                     std::vector<Finding>& out) {
  std::vector<std::string> unreach;
  int unreach_n = 0;
  for (const auto& l : r.links) {
    if (l.reachable || dead_set.count({l.from_host, l.from_nic}) || dead_set.count({l.to_host, l.to_nic}))
      continue;
    const bool cross = nic_rail_of(r, l.from_host, l.from_nic) != nic_rail_of(r, l.to_host, l.to_nic);
    if (cross && rail_only) continue;
    ++unreach_n;
    if (unreach.size() < 8)
      unreach.push_back(fmt::format("{} -> {} ({})", nic_where(r, l.from_host, l.from_nic),
                                    nic_where(r, l.to_host, l.to_nic), l.error));
  }
  if (unreach_n > 0) {
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "NICS_UNREACHABLE";
    f.message =
        fmt::format("{} NIC pair(s) between live NICs did not connect: {}{}", unreach_n,
                    join_names(unreach, "; "), unreach_n > static_cast<int>(unreach.size()) ? "; ..." : "");
    f.evidence = {{"pairs", unreach_n}, {"first", unreach}};
    f.remedy =
        "check routing between these subnets (ip route get <addr> oif <iface>) and the switch ACLs; on a "
        "rail-only fabric keep NCCL_CROSS_NIC=0";
    out.push_back(std::move(f));
  }
}

// NICS_SLOW_NIC / NICS_SLOW_HOST / NICS_SUSPECT_REFUTED: a suspect host of a rail's matrix is that host's NIC
// on the rail; all of a host's data NICs slow is the host.
void add_slow_nics(const NicsResult& r, std::vector<Finding>& out) {
  const std::size_t R = r.rails.size();
  std::map<int, std::vector<std::pair<std::size_t, std::size_t>>> by_host;  // host -> (rail, suspect)
  for (std::size_t k = 0; k < R; ++k)
    for (std::size_t si = 0; si < r.rails[k].analysis.suspects.size(); ++si) {
      const auto& s = r.rails[k].analysis.suspects[si];
      if (2 * s.out_flagged > s.out_links || 2 * s.in_flagged > s.in_links)
        by_host[s.host].push_back({k, si});
    }
  for (const auto& [h, list] : by_host) {
    int data = 0;
    for (const auto& n : r.nics[static_cast<std::size_t>(h)]) data += n.data ? 1 : 0;
    const bool whole_host = R >= 2 && static_cast<int>(list.size()) >= data;
    std::vector<std::string> names;
    std::optional<bool> confirmed;
    json per = json::array();
    for (auto [k, si] : list) {
      const auto& rail = r.rails[k];
      const auto& s = rail.analysis.suspects[si];
      const int ni = model::nic_on_rail(r, h, static_cast<int>(k));
      const std::string name = ni >= 0 ? nic_at(r, h, ni).name : "?";
      names.push_back(name);
      const bool retested = si < rail.confirmed.size() && rail.confirmed[si].has_value();
      const bool still = retested && rail.confirmed[si].value_or(false);
      if (retested) confirmed = confirmed.value_or(true) && still;
      std::vector<double> vals;
      for (std::size_t li : s.links)
        if (rail.analysis.outliers[li].kind == core::LinkKind::kBandwidth)
          vals.push_back(rail.analysis.outliers[li].value);
      std::sort(vals.begin(), vals.end());
      const double med = vals.empty() ? -1.0 : vals[(vals.size() - 1) / 2];
      const double rail_med = rail.analysis.bw.median.value_or(-1.0);
      per.push_back({{"iface", name},
                     {"rail", rail.subnet},
                     {"out_flagged", s.out_flagged},
                     {"out_links", s.out_links},
                     {"in_flagged", s.in_flagged},
                     {"in_links", s.in_links},
                     {"flagged_median_gbps", med >= 0 ? json(med) : json(nullptr)},
                     {"rail_median_gbps", rail_med >= 0 ? json(rail_med) : json(nullptr)},
                     {"confirmed", retested ? json(still) : json(nullptr)},
                     {"impact", med > 0 && rail_med >= 0 ? json(rail_med / med) : json(nullptr)}});
    }
    // Other NICs of the host that are fine: they say it is the NIC, not the host.
    std::vector<std::string> fine;
    for (const auto& n : r.nics[static_cast<std::size_t>(h)])
      if (n.data && std::find(names.begin(), names.end(), n.name) == names.end()) fine.push_back(n.name);
    const std::string host = r.hosts[static_cast<std::size_t>(h)];
    const auto& p0 = per[0];
    Finding f;
    f.severity = confirmed == false ? Severity::kInfo : confirmed == true ? Severity::kFail : Severity::kWarn;
    f.code = confirmed == false ? "NICS_SUSPECT_REFUTED" : whole_host ? "NICS_SLOW_HOST" : "NICS_SLOW_NIC";
    const std::string verdict = confirmed == true    ? ", confirmed against good NIC pairs of the rail"
                                : confirmed == false ? ", but the retest did not confirm it"
                                                     : " (not retested)";
    if (whole_host) {
      f.message =
          fmt::format("host {}: all {} data NICs ({}) are slow on their rails{}: the host, not one NIC", host,
                      names.size(), join_names(names), verdict);
      f.remedy = "check the host (PCIe link of its NICs, CPU/IRQ load, firmware); drain it";
    } else {
      f.message = fmt::format(
          "NIC {} {} (rail {}): {}/{} outgoing and {}/{} incoming NIC pairs are outliers, {} GB/s against "
          "the rail's "
          "median {} GB/s{}{}",
          host, join_names(names), p0["rail"].get<std::string>(), p0["out_flagged"].get<int>(),
          p0["out_links"].get<int>(), p0["in_flagged"].get<int>(), p0["in_links"].get<int>(),
          p0["flagged_median_gbps"].is_number()
              ? fmt::format("{:.3f}", p0["flagged_median_gbps"].get<double>())
              : "?",
          p0["rail_median_gbps"].is_number() ? fmt::format("{:.3f}", p0["rail_median_gbps"].get<double>())
                                             : "?",
          verdict,
          fine.empty() ? "" : fmt::format("; the host's other NICs ({}) are in line", join_names(fine)));
      f.remedy = fmt::format(
          "check {} on {}: its link rate (ethtool {}), cable, transceiver and switch port; until "
          "then keep jobs off it (NCCL_IB_HCA / NCCL_SOCKET_IFNAME without it)",
          join_names(names), host, names[0]);
    }
    f.evidence = {{"host", host},
                  {"ifaces", names},
                  {"nics", per},
                  {"other_nics_fine", fine},
                  {"confirmed", confirmed ? json(*confirmed) : json(nullptr)},
                  {"impact", p0["impact"]}};
    out.push_back(std::move(f));
  }
}

// NICS_COUNT_MISMATCH: hosts with different numbers of data NICs.
void add_count_mismatch(const NicsResult& r, std::vector<Finding>& out) {
  std::map<int, std::vector<std::string>> by_count;
  for (std::size_t h = 0; h < r.nics.size(); ++h) {
    int c = 0;
    for (const auto& n : r.nics[h]) c += n.data ? 1 : 0;
    by_count[c].push_back(r.hosts[h]);
  }
  if (by_count.size() > 1) {
    std::string parts;
    json ev = json::object();
    for (const auto& [c, hs] : by_count) {
      parts += fmt::format("{}{} data NIC(s) on {}", parts.empty() ? "" : "; ", c, join_names(hs));
      ev[std::to_string(c)] = hs;
    }
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "NICS_COUNT_MISMATCH";
    f.message = fmt::format("hosts differ in their data NICs ({}): {}", r.options.ifaces, parts);
    f.evidence = {{"by_count", ev}, {"ifaces", r.options.ifaces}};
    f.remedy = "bring up the missing interfaces (ip -br addr) or narrow --ifaces to the NICs every host has";
    out.push_back(std::move(f));
  }
}

// NICS_MGMT_IN_USE: a data-path setting that points at a management (non-data) interface of host 0; then the
// interfaces the --nccl-log log shows NCCL using (nics_nccl_log.cpp).
void add_mgmt_in_use(const NicsResult& r, std::vector<Finding>& out) {
  std::vector<std::string> data0;
  if (!r.nics.empty())
    for (const auto& n : r.nics[0])
      if (n.data) data0.push_back(n.name);
  for (const char* key : {"OMPI_MCA_btl_tcp_if_include", "NCCL_SOCKET_IFNAME", "UCX_NET_DEVICES"}) {
    const auto it = r.env.find(key);
    if (it == r.env.end() || data0.empty()) continue;
    const auto sel = selected_ifaces(r, key, it->second);
    if (sel.empty()) continue;
    const bool any_data = std::any_of(sel.begin(), sel.end(), [&](const std::string& s) {
      return std::find(data0.begin(), data0.end(), s) != data0.end();
    });
    if (any_data) continue;
    const std::string k(key);
    const std::string fix = k == "OMPI_MCA_btl_tcp_if_include"
                                ? fmt::format("--mca btl_tcp_if_include {}", join_names(data0, ","))
                            : k == "NCCL_SOCKET_IFNAME"
                                ? fmt::format("NCCL_SOCKET_IFNAME={}", join_names(data0, ","))
                                : fmt::format("UCX_NET_DEVICES={}", join_names(data0, ","));
    Finding f;
    f.severity = Severity::kWarn;
    f.code = "NICS_MGMT_IN_USE";
    f.message = fmt::format("{}={} puts data on {} of {}, not on a data NIC ({})", k, it->second,
                            join_names(sel), r.hosts.empty() ? "host 0" : r.hosts[0], join_names(data0));
    f.evidence = {{"setting", k}, {"value", it->second}, {"selects", sel}, {"data_nics", data0}};
    f.remedy = fmt::format(
        "use {} (the management network is for the launcher; oob_tcp_if_include may stay on it)", fix);
    out.push_back(std::move(f));
  }
  detail::add_nccl_log_mgmt(r, out);
}

}  // namespace

std::vector<Finding> nics_findings(const NicsResult& r) {
  std::vector<Finding> out;
  const auto dead = nics_dead(r);
  const std::set<std::pair<int, int>> dead_set(dead.begin(), dead.end());
  add_dead_nics(r, dead, out);
  const bool rail_only = add_rail_only(r, out);
  add_unreachable(r, dead_set, rail_only, out);
  add_slow_nics(r, out);
  add_count_mismatch(r, out);
  add_mgmt_in_use(r, out);
  if (std::any_of(r.links.begin(), r.links.end(), [](const model::NicLink& l) { return !l.bound_device; })) {
    Finding f;
    f.severity = Severity::kInfo;
    f.code = "NICS_NOT_BOUND";
    f.message =
        "SO_BINDTODEVICE was refused (no CAP_NET_RAW): sockets were bound to the NIC's address only, and the "
        "kernel may have routed a pair over another interface";
    f.remedy = "run as root or with CAP_NET_RAW for per-interface results";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fabcheck::report
