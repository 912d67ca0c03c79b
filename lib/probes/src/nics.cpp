// `fabcheck nics` (probes/nics.hpp): the measurement loop over host pairs and NIC pairs, and the retest.
#include "fabcheck/probes/nics.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include <unistd.h>

#include "fabcheck/comm/phase.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/link_outliers.hpp"
#include "fabcheck/core/pair_schedule.hpp"
#include "fabcheck/core/stats.hpp"
#include "fabcheck/probes/inventory.hpp"
#include "fabcheck/probes/pairs.hpp"
#include "nic_socket.hpp"
#include "nics_verbs.hpp"

namespace fabcheck::probes {

namespace {

using comm::Communicator;
using detail::NicEnd;
using model::NicInfo;
using model::NicLink;
using nlohmann::json;

// The interface settings of NCCL, Open MPI and UCX that decide which NIC carries data.
constexpr const char* kEnvKeys[] = {"NCCL_SOCKET_IFNAME",
                                    "NCCL_CROSS_NIC",
                                    "NCCL_IB_HCA",
                                    "OMPI_MCA_btl_tcp_if_include",
                                    "OMPI_MCA_btl_tcp_if_exclude",
                                    "OMPI_MCA_oob_tcp_if_include",
                                    "UCX_NET_DEVICES"};

constexpr int kRecFields =
    11;  // from_host from_nic to_host to_nic reachable error connect_us bw p50 p99 bound

json nic_json(const NicInfo& n, int port) {
  return {{"name", n.name},
          {"addr", n.addr},
          {"prefix_len", n.prefix_len},
          {"carrier", n.carrier},
          {"data", n.data},
          {"port", port},
          {"speed_mbps", n.speed_mbps ? json(*n.speed_mbps) : json()}};
}

NicInfo nic_from(const json& j) {
  NicInfo n;
  n.name = j.at("name").get<std::string>();
  n.addr = j.at("addr").get<std::string>();
  n.prefix_len = j.at("prefix_len").get<int>();
  n.carrier = j.at("carrier").get<bool>();
  n.data = j.at("data").get<bool>();
  if (j.at("speed_mbps").is_number()) n.speed_mbps = j.at("speed_mbps").get<double>();
  return n;
}

struct HostNics {
  std::vector<NicInfo> nics;
  std::vector<int> ports;  // per nic; 0 for non-data NICs
};

// Data NIC ends of a host (index into its nics list alongside).
std::vector<std::pair<int, NicEnd>> data_ends(const HostNics& h) {
  std::vector<std::pair<int, NicEnd>> out;
  for (std::size_t k = 0; k < h.nics.size(); ++k)
    if (h.nics[k].data)
      out.push_back({static_cast<int>(k), NicEnd{h.nics[k].name, h.nics[k].addr, h.ports[k]}});
  return out;
}

// The client host's half of one host pair: every data NIC of `me` to every data NIC of `peer`.
void measure_from(int me, int peer, const std::vector<HostNics>& all, const NicsOptions& o,
                  std::vector<double>& recs) {
  const auto mine = data_ends(all[static_cast<std::size_t>(me)]);
  const auto theirs = data_ends(all[static_cast<std::size_t>(peer)]);
  // Reachability: every NIC pair at once, one timeout for all.
  std::vector<std::pair<NicEnd, NicEnd>> pairs;
  for (const auto& m : mine)
    for (const auto& t : theirs) pairs.push_back({m.second, t.second});
  auto conn = detail::connect_all(pairs, o.connect_timeout_ms);
  for (auto& c : conn)
    if (c.fd >= 0) ::close(c.fd);
  std::size_t next = 0;
  for (const auto& [fi, from] : mine) {
    for (std::size_t t = 0; t < theirs.size(); ++t) {
      const auto& c = conn[next++];
      double bw = -1, p50 = -1, p99 = -1, connect_us = -1;
      bool reachable = c.error == 0;
      int error = c.error;
      if (reachable) {
        connect_us = c.connect_us;
        const auto s = detail::connect_one(from, theirs[t].second, o.connect_timeout_ms);
        if (s.fd >= 0) {
          if (auto v = detail::stream_gbps(s.fd, o.budget_ms, o.size_bytes)) bw = *v;
          ::close(s.fd);
        }
        const auto l = detail::connect_one(from, theirs[t].second, o.connect_timeout_ms);
        if (l.fd >= 0) {
          const auto half = detail::ping_pong_us(l.fd, o.lat_warmup, o.lat_iters);
          ::close(l.fd);
          if (!half.empty()) {
            const auto sum = core::summarize(half);
            p50 = sum.p50;
            p99 = sum.p99;
          }
        }
      }
      recs.insert(recs.end(),
                  {static_cast<double>(me), static_cast<double>(fi), static_cast<double>(peer),
                   static_cast<double>(theirs[t].first), reachable ? 1.0 : 0.0, static_cast<double>(error),
                   connect_us, bw, p50, p99, c.bound_device ? 1.0 : 0.0});
    }
  }
}

// Exchanges every host leader's interfaces (and listening ports) so that every rank holds all of them.
std::vector<HostNics> exchange_nics(const Communicator& comm, const std::vector<NicInfo>& mine,
                                    const std::vector<NicEnd>& ends, bool leader) {
  std::string text;
  if (leader) {
    json a = json::array();
    std::size_t e = 0;
    for (const auto& n : mine) {
      int port = 0;
      if (n.data && e < ends.size()) port = ends[e++].port;
      a.push_back(nic_json(n, port));
    }
    text = a.dump();
  }
  auto got = comm.gather(text, 0);
  std::string all;
  if (comm.rank() == 0) {
    json hosts = json::array();
    for (std::size_t h = 0; h < comm.hosts().size(); ++h) hosts.push_back(json::array());
    for (std::size_t r = 0; r < got.size(); ++r)
      if (!got[r].empty())
        hosts[static_cast<std::size_t>(comm.host_index(static_cast<int>(r)))] = json::parse(got[r]);
    all = hosts.dump();
  }
  comm.bcast(all, 0);
  std::vector<HostNics> out;
  for (const auto& h : json::parse(all)) {
    HostNics hn;
    for (const auto& n : h) {
      hn.nics.push_back(nic_from(n));
      hn.ports.push_back(n.at("port").get<int>());
    }
    out.push_back(std::move(hn));
  }
  return out;
}

// A retest item: role 0 link, 1 reference.
struct NicItem {
  int role = 0, rail = 0, from = 0, to = 0, suspect = -1;
};

std::vector<NicItem> plan_retests(const model::NicsResult& r) {
  std::vector<NicItem> out;
  for (std::size_t k = 0; k < r.rails.size(); ++k) {
    const auto& rail = r.rails[k];
    const auto& a = rail.analysis;
    std::vector<NicItem> checks;
    std::set<int> suspects;
    for (std::size_t si = 0; si < a.suspects.size(); ++si) {
      const auto& s = a.suspects[si];
      if (!(2 * s.out_flagged > s.out_links || 2 * s.in_flagged > s.in_links)) continue;
      suspects.insert(s.host);
      int taken = 0;
      for (std::size_t li : s.links) {
        const auto& o = a.outliers[li];
        if (o.kind != core::LinkKind::kBandwidth || taken >= 2) continue;
        checks.push_back({0, static_cast<int>(k), o.from, o.to, static_cast<int>(si)});
        ++taken;
      }
    }
    if (checks.empty()) continue;
    std::vector<NicItem> refs;
    const std::size_t n = rail.bw_gbps.size();
    for (std::size_t i = 0; i < n && refs.size() < 2; ++i)
      for (std::size_t j = 0; j < n && refs.size() < 2; ++j) {
        if (i == j || !rail.bw_gbps[i][j] || suspects.count(static_cast<int>(i)) ||
            suspects.count(static_cast<int>(j)))
          continue;
        refs.push_back({1, static_cast<int>(k), static_cast<int>(i), static_cast<int>(j), -1});
      }
    // Every check twice, interleaved with the references, so that a change of load moves both.
    const std::size_t once = checks.size();
    for (std::size_t i = 0; i < once; ++i) checks.push_back(checks[i]);
    std::size_t next = 0;
    for (const auto& c : checks) {
      if (!refs.empty()) out.push_back(refs[next++ % refs.size()]);
      out.push_back(c);
    }
  }
  return out;
}

void judge_retests(model::NicsResult& r, const std::vector<NicItem>& items,
                   const std::vector<std::optional<double>>& value) {
  for (std::size_t k = 0; k < r.rails.size(); ++k) {
    auto& rail = r.rails[k];
    rail.confirmed.assign(rail.analysis.suspects.size(), std::nullopt);
    std::vector<double> refs;
    for (std::size_t i = 0; i < items.size(); ++i)
      if (items[i].rail == static_cast<int>(k) && items[i].role == 1 && value[i]) refs.push_back(*value[i]);
    if (!refs.empty()) rail.retest_reference_gbps = *std::min_element(refs.begin(), refs.end());
    const auto& bw = rail.analysis.bw;
    const double ref = rail.retest_reference_gbps.value_or(bw.median.value_or(0));
    const double spread = core::retest_spread(core::relative_spread(bw), refs);
    std::vector<int> bad(rail.analysis.suspects.size(), 0), total(rail.analysis.suspects.size(), 0);
    for (std::size_t i = 0; i < items.size(); ++i) {
      const auto& it = items[i];
      if (it.rail != static_cast<int>(k)) continue;
      model::NicRetest t;
      t.role = it.role == 0 ? "link" : "reference";
      t.rail = it.rail;
      t.from_host = it.from;
      t.to_host = it.to;
      t.first_gbps =
          rail.bw_gbps[static_cast<std::size_t>(it.from)][static_cast<std::size_t>(it.to)].value_or(0);
      t.value = value[i];
      if (it.role == 0) {
        const bool still = !value[i] || core::still_outlier(*value[i], ref, spread, core::Worse::kLower);
        t.still_bad = still;
        ++total[static_cast<std::size_t>(it.suspect)];
        bad[static_cast<std::size_t>(it.suspect)] += still ? 1 : 0;
      }
      r.retests.push_back(std::move(t));
    }
    for (std::size_t si = 0; si < total.size(); ++si)
      if (total[si] > 0) rail.confirmed[si] = 2 * bad[si] > total[si];
  }
}

}  // namespace

void validate(const NicsOptions& o) {
  if (o.size_bytes == 0) throw UsageError("--size: must be at least 1 byte (e.g. --size 256M)");
  if (!(o.budget_ms > 0)) throw UsageError("--budget-ms: must be a positive number of milliseconds");
  if (o.lat_iters < 1) throw UsageError(fmt::format("--lat-iters {}: must be at least 1", o.lat_iters));
  if (o.lat_warmup < 0) throw UsageError(fmt::format("--lat-warmup {}: must be 0 or more", o.lat_warmup));
  if (o.connect_timeout_ms < 1)
    throw UsageError(fmt::format("--connect-timeout-ms {}: must be at least 1", o.connect_timeout_ms));
  for (char c : o.ifaces)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == ',' || c == '^' || c == '=' || c == '.' ||
          c == '-' || c == '_' || c == ':' || c == '@'))
      throw UsageError(fmt::format(
          "--ifaces '{}': use interface name prefixes separated by commas, ^ to exclude, = for exact names "
          "(NCCL_SOCKET_IFNAME syntax, e.g. --ifaces eth or --ifaces ^lo,mgmt)",
          o.ifaces));
  if (o.verbs == "on")
    if (auto why = detail::verbs_build_skip_reason())
      throw UsageError(
          fmt::format("--verbs on: {} (configure with -DFABCHECK_WITH_IBVERBS=ON and libibverbs-dev, "
                      "or use --verbs auto)",
                      *why));
}

std::optional<std::string> nics_skip_reason(const comm::Communicator& comm) {
  return two_host_skip_reason(comm, "nics");
}

model::NicsResult run_nics(const comm::Communicator& comm, const NicsOptions& opts) {
  validate(opts);
  if (auto why = nics_skip_reason(comm)) throw UsageError(*why);
  const double start_us = comm::now_us();
  model::NicsResult res;
  res.options = opts;
  res.hosts = comm.hosts();
  const std::size_t n = res.hosts.size();
  res.schedule = core::circle_schedule(static_cast<int>(n));
  const bool leader = comm.local_rank() == 0;
  const int my_host = comm.host_index(comm.rank());

  comm::enter_phase("nics exchange");
  std::vector<NicInfo> mine;
  std::vector<NicEnd> ends;
  if (leader) {
    mine = local_nics(opts.ifaces);
    for (const auto& m : mine)
      if (m.data) ends.push_back({m.name, m.addr, 0});
  }
  std::optional<detail::NicServer> server;
  if (leader) server.emplace(ends);  // fills the ports
  const auto all = exchange_nics(comm, mine, ends, leader);

  std::vector<double> recs;
  for (std::size_t ri = 0; ri < res.schedule.size(); ++ri) {
    for (int dir = 0; dir < 2; ++dir) {
      comm::enter_phase(
          fmt::format("nics round {}/{} {}", ri + 1, res.schedule.size(), dir == 0 ? "up" : "down"));
      if (leader)
        for (auto [a, b] : res.schedule[ri]) {
          const int client = dir == 0 ? a : b, peer = dir == 0 ? b : a;
          if (my_host == client) measure_from(client, peer, all, opts, recs);
        }
      comm.lazy_barrier();
    }
  }
  auto got = comm.gather(recs, 0);

  if (comm.rank() == 0) {
    for (const auto& h : all) res.nics.push_back(h.nics);
    for (const auto& v : got)
      for (std::size_t i = 0; i + kRecFields <= v.size(); i += kRecFields) {
        NicLink l;
        l.from_host = static_cast<int>(v[i]);
        l.from_nic = static_cast<int>(v[i + 1]);
        l.to_host = static_cast<int>(v[i + 2]);
        l.to_nic = static_cast<int>(v[i + 3]);
        l.reachable = v[i + 4] > 0.5;
        if (!l.reachable)
          l.error = detail::connect_error_text(static_cast<int>(v[i + 5]), opts.connect_timeout_ms);
        if (v[i + 6] >= 0) l.connect_us = v[i + 6];
        if (v[i + 7] >= 0) l.bw_gbps = v[i + 7];
        if (v[i + 8] >= 0) l.lat_p50_us = v[i + 8];
        if (v[i + 9] >= 0) l.lat_p99_us = v[i + 9];
        l.bound_device = v[i + 10] > 0.5;
        res.links.push_back(std::move(l));
      }
    std::sort(res.links.begin(), res.links.end(), [](const NicLink& x, const NicLink& y) {
      return std::tie(x.from_host, x.from_nic, x.to_host, x.to_nic) <
             std::tie(y.from_host, y.from_nic, y.to_host, y.to_nic);
    });
    model::assign_rails(res);
    for (auto& rail : res.rails) {
      rail.analysis = core::analyze_links(rail.bw_gbps, rail.lat_p50_us, std::nullopt, res.hosts);
      rail.confirmed.assign(rail.analysis.suspects.size(), std::nullopt);
    }
    for (const char* k : kEnvKeys)
      if (const char* v = std::getenv(k)) res.env[k] = v;
  }

  if (opts.retest) {
    std::vector<NicItem> items;
    if (comm.rank() == 0) items = plan_retests(res);
    std::int64_t count = static_cast<std::int64_t>(items.size());
    comm.bcast(&count, sizeof count, 0);
    items.resize(static_cast<std::size_t>(count));
    if (count > 0) comm.bcast(items.data(), items.size() * sizeof(NicItem), 0);
    // Every rank needs the rails' NIC of each host: recompute from the exchanged lists.
    model::NicsResult local;
    local.hosts = res.hosts;
    for (const auto& h : all) local.nics.push_back(h.nics);
    model::assign_rails(local);
    std::vector<double> mine_v;
    for (std::size_t k = 0; k < items.size(); ++k) {
      const auto& it = items[k];
      comm::enter_phase(fmt::format("nics retest {}/{}", k + 1, items.size()));
      if (leader && my_host == it.from) {
        const int fi = model::nic_on_rail(local, it.from, it.rail),
                  ti = model::nic_on_rail(local, it.to, it.rail);
        if (fi >= 0 && ti >= 0) {
          const auto& fh = all[static_cast<std::size_t>(it.from)];
          const auto& th = all[static_cast<std::size_t>(it.to)];
          const NicEnd from{fh.nics[static_cast<std::size_t>(fi)].name,
                            fh.nics[static_cast<std::size_t>(fi)].addr, 0};
          const NicEnd to{th.nics[static_cast<std::size_t>(ti)].name,
                          th.nics[static_cast<std::size_t>(ti)].addr, th.ports[static_cast<std::size_t>(ti)]};
          const auto s = detail::connect_one(from, to, opts.connect_timeout_ms);
          if (s.fd >= 0) {
            if (auto v = detail::stream_gbps(s.fd, opts.budget_ms, opts.size_bytes))
              mine_v.insert(mine_v.end(), {static_cast<double>(k), *v});
            ::close(s.fd);
          }
        }
      }
      comm.lazy_barrier();
    }
    auto vals = comm.gather(mine_v, 0);
    if (comm.rank() == 0) {
      std::vector<std::optional<double>> value(items.size());
      for (const auto& v : vals)
        for (std::size_t i = 0; i + 1 < v.size(); i += 2) value[static_cast<std::size_t>(v[i])] = v[i + 1];
      judge_retests(res, items, value);
    }
  }
  comm.lazy_barrier();  // no server stops while a peer still measures against it
  if (opts.verbs == "off") {
    res.verbs.skipped = "--verbs off";
  } else {
    auto v = detail::run_nics_verbs(comm, opts, res.schedule, filter_transport_env(process_environment()));
    if (comm.rank() == 0) res.verbs = std::move(v);
  }
  res.duration_s = (comm::now_us() - start_us) / 1e6;
  return res;
}

}  // namespace fabcheck::probes
