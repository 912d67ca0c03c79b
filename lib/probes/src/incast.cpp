#include "fabcheck/probes/incast.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include "fabcheck/comm/phase.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/incast_math.hpp"
#include "fabcheck/core/stats.hpp"

namespace fabcheck::probes {
namespace {

constexpr int kIncastTagData = 7101;
constexpr int kIncastTagPing = 7102;
constexpr int kIncastTagPong = 7103;

/// 1, 2, 4, … ≤ max, plus max itself.
std::vector<int> default_fan_in(int max_senders) {
  std::vector<int> out;
  for (int k = 1; k <= max_senders; k *= 2) out.push_back(k);
  if (max_senders >= 1 && out.back() != max_senders) out.push_back(max_senders);
  return out;
}

int endpoint_index(const std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

/// The roles for one receiver: the senders' pool (endpoint order) and the victim (−1 when none).
struct Roles {
  int receiver = 0;
  int victim = -1;
  std::vector<int> pool;
};

Roles roles_for(int receiver, std::size_t n_endpoints, bool want_victim) {
  Roles r;
  r.receiver = receiver;
  std::vector<int> others;
  for (int i = 0; i < static_cast<int>(n_endpoints); ++i) {
    if (i != receiver) others.push_back(i);
  }
  if (want_victim && others.size() >= 2) {
    r.victim = others.back();
    others.pop_back();
  }
  r.pool = others;
  return r;
}

bool victim_possible(const IncastOptions& o, std::size_t n_endpoints) {
  return o.victim && n_endpoints >= 3;
}

}  // namespace

void validate(const IncastOptions& o) {
  if (o.sizes_bytes.empty()) throw UsageError("--sizes: empty list (give sizes such as 256K,4M)");
  for (auto s : o.sizes_bytes) {
    if (s == 0) throw UsageError("--sizes: 0 is not a burst size (give sizes > 0, e.g. 256K,4M)");
    if (s > (std::uint64_t{1} << 30)) throw UsageError("--sizes: at most 1G per sender per burst");
  }
  for (int k : o.fan_in) {
    if (k < 1) throw UsageError(fmt::format("--fan-in: {} is not a fan-in (give integers >= 1)", k));
  }
  if (o.rounds < 1) throw UsageError("--rounds: must be >= 1");
  if (o.duration_s < 0) throw UsageError("--duration: must be >= 0 seconds");
  if (o.victim_iters < 1) throw UsageError("--victim-iters: must be >= 1");
  if (!(o.victim_interval_us >= 0 && o.victim_interval_us <= 1e6))
    throw UsageError("--victim-interval-us: give 0 (back to back) to 1000000 microseconds");
  if (!o.victim && !o.congestors) throw UsageError("--victim-only and --congestor-only exclude each other");
}

void validate(const IncastOptions& o, const std::vector<std::string>& endpoints) {
  validate(o);
  if (endpoints.size() < 2) {
    throw UsageError(
        "incast: needs at least 2 ranks (one receiver and one sender); launch with mpirun -np >= 2");
  }
  if (!o.receiver.empty() && o.receiver != "all" && endpoint_index(endpoints, o.receiver) < 0) {
    throw UsageError(fmt::format("--receiver: host \"{}\" is not in this run (hosts: {})", o.receiver,
                                 fmt::join(endpoints, ",")));
  }
  const bool with_victim = victim_possible(o, endpoints.size());
  const int available = static_cast<int>(endpoints.size()) - 1 - (with_victim ? 1 : 0);
  for (int k : o.fan_in) {
    if (k > available) {
      throw UsageError(fmt::format(
          "--fan-in: {} senders asked but only {} are available ({} endpoints, one receiver{})", k, available,
          endpoints.size(), with_victim ? ", one victim; --congestor-only drops the victim" : ""));
    }
  }
}

model::IncastEndpoints incast_endpoints(const comm::Communicator& comm) {
  model::IncastEndpoints ep;
  const auto& by_host = comm.ranks_by_host();
  if (by_host.size() >= 2) {
    for (std::size_t h = 0; h < by_host.size(); ++h) {
      ep.names.push_back(comm.hosts()[h]);
      ep.ranks.push_back(by_host[h].front());
    }
  } else {
    ep.fabric_crossed = false;
    for (int r = 0; r < comm.size(); ++r) {
      ep.names.push_back(fmt::format("{}/rank{}", comm.hosts_of_ranks()[static_cast<std::size_t>(r)], r));
      ep.ranks.push_back(r);
    }
  }
  return ep;
}

namespace {

/// What the probe needs while running.
struct Ctx {
  const comm::Communicator& comm;
  double to_ref_us = 0;
  int me = 0;
  double now_ref() const { return comm::now_us() + to_ref_us; }
};

/// Sleeps until shortly before t_ref, then spins (a sleeping rank does not steal a core from the others).
void spin_until(const Ctx& c, double t_ref) {
  const double ahead_us = t_ref - c.now_ref() - 300.0;
  if (ahead_us > 0)
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<std::int64_t>(ahead_us)));
  while (c.now_ref() < t_ref) {
  }
}

/// Waits for `req` by spinning on MPI_Test. The victim and the receiver wait this way in both phases (alone
/// and during the bursts), so that the two phases differ only in the traffic: a blocking MPI receive yields
/// the core while idle (mpi_yield_when_idle), and on a loaded machine the time to get it back would swamp the
/// isolated latency that the congested one is divided by.
void spin_wait(comm::Request& req) {
  while (!comm::Communicator::test(req)) {
  }
}

/// Victim side of a ping-pong: (start on the aligned clock, half round trip) pairs, interleaved. A ping
/// starts at least `interval_us` after the previous one did (sleeping meanwhile, which leaves the core to the
/// senders). Stops after `iters` exchanges, or (iters = 0) when the receiver answers with the stop flag.
std::vector<double> victim_loop(const Ctx& c, int receiver_rank, int iters, double interval_us) {
  std::vector<double> out;
  std::int64_t ping = 0, pong = 0;
  double next = 0;
  for (int i = 0; iters == 0 || i < iters; ++i) {
    const double wait_us = next - comm::now_us();
    if (i > 0 && wait_us > 0)
      std::this_thread::sleep_for(std::chrono::microseconds(static_cast<std::int64_t>(wait_us)));
    const double t0 = comm::now_us();
    next = t0 + interval_us;
    auto rreq = c.comm.irecv(&pong, sizeof pong, receiver_rank, kIncastTagPong);
    c.comm.send(&ping, sizeof ping, receiver_rank, kIncastTagPing);
    spin_wait(rreq);
    const double t1 = comm::now_us();
    out.push_back(t0 + c.to_ref_us);
    out.push_back((t1 - t0) / 2.0);
    if (pong != 0) break;
  }
  return out;
}

/// Receiver side of the isolated victim: answers `iters` pings, polling as it does during a burst.
void serve_victim(const Ctx& c, int victim_rank, int iters) {
  std::int64_t ping = 0;
  const std::int64_t cont = 0;
  for (int i = 0; i < iters; ++i) {
    auto req = c.comm.irecv(&ping, sizeof ping, victim_rank, kIncastTagPing);
    spin_wait(req);
    c.comm.send(&cont, sizeof cont, victim_rank, kIncastTagPong);
  }
}

/// Receiver side of one burst: t_i (µs since the common start, aligned clock) per sender, in sender order.
/// Serves the victim's pings meanwhile and answers the first ping after the burst with the stop flag.
std::vector<double> receive_burst(const Ctx& c, const std::vector<int>& sender_ranks, int victim_rank,
                                  std::vector<std::vector<char>>& bufs, double t_start) {
  std::vector<comm::Request> reqs;
  for (std::size_t i = 0; i < sender_ranks.size(); ++i) {
    reqs.push_back(c.comm.irecv(bufs[i].data(), bufs[i].size(), sender_ranks[i], kIncastTagData));
  }
  std::int64_t ping = 0;
  const std::int64_t cont = 0, stop = 1;
  comm::Request ping_req;
  if (victim_rank >= 0) ping_req = c.comm.irecv(&ping, sizeof ping, victim_rank, kIncastTagPing);
  std::vector<double> done_at(sender_ranks.size(), -1.0);
  std::size_t done = 0;
  while (done < sender_ranks.size()) {
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      if (done_at[i] < 0 && comm::Communicator::test(reqs[i])) {
        done_at[i] = c.now_ref() - t_start;
        ++done;
      }
    }
    if (victim_rank >= 0 && comm::Communicator::test(ping_req)) {
      c.comm.send(&cont, sizeof cont, victim_rank, kIncastTagPong);
      ping_req = c.comm.irecv(&ping, sizeof ping, victim_rank, kIncastTagPing);
    }
  }
  if (victim_rank >= 0) {
    spin_wait(ping_req);
    c.comm.send(&stop, sizeof stop, victim_rank, kIncastTagPong);
  }
  return done_at;
}

void split_samples(const std::vector<double>& inter, std::vector<double>& times, std::vector<double>& lat) {
  for (std::size_t i = 0; i + 1 < inter.size(); i += 2) {
    times.push_back(inter[i]);
    lat.push_back(inter[i + 1]);
  }
}

model::IncastVictim victim_stats(const std::string& host, const std::vector<double>& iso_lat,
                                 const std::vector<double>& v_times, const std::vector<double>& v_lat,
                                 const std::vector<core::Window>& windows) {
  model::IncastVictim v;
  v.host = host;
  const auto iso = core::summarize(iso_lat);
  v.isolated_samples = iso.samples;
  v.isolated_p50_us = iso.p50;
  v.isolated_p99_us = iso.p99;
  v.isolated_mean_us = iso.mean;
  if (v_times.empty()) return v;
  v.overlap = core::overlap_share(v_times, windows);
  std::vector<double> inside;
  for (std::size_t i = 0; i < v_times.size(); ++i) {
    if (core::overlap_share(std::span<const double>(&v_times[i], 1), windows) > 0) inside.push_back(v_lat[i]);
  }
  const auto con = core::summarize(inside.empty() ? v_lat : inside);
  v.congested_samples = con.samples;
  v.congested_p50_us = con.p50;
  v.congested_p99_us = con.p99;
  v.congested_mean_us = con.mean;
  v.impact_mean = core::congestion_impact(con.mean, iso.mean);
  v.impact_p50 = core::congestion_impact(con.p50, iso.p50);
  v.impact_p99 = core::congestion_impact(con.p99, iso.p99);
  return v;
}

/// The endpoints that take the receiver's role in turn: all of them, the one --receiver names, or the first.
std::vector<int> incast_receivers(const IncastOptions& opts, const model::IncastEndpoints& ep) {
  std::vector<int> receivers;
  if (opts.receiver == "all") {
    for (int i = 0; i < static_cast<int>(ep.names.size()); ++i) receivers.push_back(i);
  } else {
    receivers.push_back(opts.receiver.empty() ? 0 : endpoint_index(ep.names, opts.receiver));
  }
  return receivers;
}

/// One receiver's turn: the roles, the ranks that play them, and the fan-ins measured.
struct IncastReceiver {
  std::string name;
  Roles roles;
  int rank = 0;
  int victim_rank = -1;
  std::string victim_name;
  std::vector<int> fan_ins;  ///< sorted, distinct; empty with --victim-only
};

IncastReceiver incast_receiver(const IncastOptions& opts, const model::IncastEndpoints& ep, int recv_idx,
                               bool with_victim) {
  IncastReceiver rv;
  rv.name = ep.names[static_cast<std::size_t>(recv_idx)];
  rv.roles = roles_for(recv_idx, ep.names.size(), with_victim);
  rv.rank = ep.ranks[static_cast<std::size_t>(recv_idx)];
  rv.victim_rank = rv.roles.victim >= 0 ? ep.ranks[static_cast<std::size_t>(rv.roles.victim)] : -1;
  rv.victim_name = rv.roles.victim >= 0 ? ep.names[static_cast<std::size_t>(rv.roles.victim)] : "";
  rv.fan_ins = opts.fan_in.empty() ? default_fan_in(static_cast<int>(rv.roles.pool.size())) : opts.fan_in;
  std::sort(rv.fan_ins.begin(), rv.fan_ins.end());
  rv.fan_ins.erase(std::unique(rv.fan_ins.begin(), rv.fan_ins.end()), rv.fan_ins.end());
  if (!opts.congestors) rv.fan_ins.clear();
  return rv;
}

/// The victim alone (collective; nothing without a victim). Returns its half round trips on rank 0.
std::vector<double> measure_isolated_victim(const Ctx& c, const IncastOptions& opts,
                                            const IncastReceiver& rv) {
  std::vector<double> iso_lat;
  if (rv.victim_rank < 0) return iso_lat;
  const auto& comm = c.comm;
  comm::enter_phase(fmt::format("incast victim isolated receiver={}", rv.name));
  comm.lazy_barrier();
  std::vector<double> mine;
  if (c.me == rv.victim_rank) {
    mine = victim_loop(c, rv.rank, opts.victim_iters, opts.victim_interval_us);
  } else if (c.me == rv.rank) {
    serve_victim(c, rv.victim_rank, opts.victim_iters);
  }
  comm.lazy_barrier();
  auto all = comm.gather(mine, 0);
  if (c.me == 0) {
    std::vector<double> t;
    split_samples(all[static_cast<std::size_t>(rv.victim_rank)], t, iso_lat);
  }
  return iso_lat;
}

/// What rank 0 collects over the rounds of one (fan-in, size) point.
struct IncastSeries {
  std::vector<double> goodputs, jains, completions, bursts, v_times, v_lat;
  std::vector<core::Window> windows;
  double skew_max = 0;
  int rounds = 0;
};

/// The bursts of one (fan-in, size) point, round after round until --rounds or --duration is reached
/// (collective: rank 0 decides when to stop). The series is filled on rank 0 (`rounds` on every rank).
IncastSeries run_incast_rounds(const Ctx& c, const IncastOptions& opts, double max_error_us,
                               const IncastReceiver& rv, const std::vector<int>& sender_ranks,
                               std::uint64_t size, int k) {
  const auto& comm = c.comm;
  const bool i_send = std::find(sender_ranks.begin(), sender_ranks.end(), c.me) != sender_ranks.end();
  std::vector<std::vector<char>> bufs;
  if (c.me == rv.rank) bufs.assign(sender_ranks.size(), std::vector<char>(size));
  std::vector<char> sbuf;
  if (i_send) sbuf.assign(size, static_cast<char>(c.me & 0x7f));

  comm::enter_phase(fmt::format("incast receiver={} fan_in={} size={}", rv.name, k, size));
  IncastSeries s;
  const double started = comm::now_us();
  for (;;) {
    comm.lazy_barrier();
    double t_start = 0;
    if (c.me == 0) t_start = c.now_ref() + opts.lead_us + 4.0 * max_error_us;
    comm.bcast(&t_start, sizeof t_start, 0);
    std::vector<double> mine;
    if (c.me == rv.rank) {
      mine = receive_burst(c, sender_ranks, rv.victim_rank, bufs, t_start);
    } else if (i_send) {
      spin_until(c, t_start);
      mine.push_back(c.now_ref() - t_start);
      // Non-blocking send with a sleeping wait: the kernel drains the socket while this rank sleeps,
      // and the cores stay with the receiver and the victim, whose timing is the measurement.
      auto req = comm.isend(sbuf.data(), sbuf.size(), rv.rank, kIncastTagData);
      comm::Communicator::wait_lazy(req, 50.0);
    } else if (c.me == rv.victim_rank) {
      spin_until(c, t_start);
      mine = victim_loop(c, rv.rank, 0, opts.victim_interval_us);
    }
    comm.lazy_barrier();
    auto all = comm.gather(mine, 0);
    int more = 0;
    ++s.rounds;
    if (c.me == 0) {
      const auto& t = all[static_cast<std::size_t>(rv.rank)];
      s.goodputs.push_back(core::incast_goodput_gbps(size, t));
      s.jains.push_back(core::jain_fairness(t).value_or(0.0));
      s.completions.insert(s.completions.end(), t.begin(), t.end());
      const double tmax = *std::max_element(t.begin(), t.end());
      s.bursts.push_back(tmax);
      s.windows.push_back({t_start, t_start + tmax});
      for (int r : sender_ranks) {
        const auto& sr = all[static_cast<std::size_t>(r)];
        if (!sr.empty()) s.skew_max = std::max(s.skew_max, std::fabs(sr[0]));
      }
      if (rv.victim_rank >= 0)
        split_samples(all[static_cast<std::size_t>(rv.victim_rank)], s.v_times, s.v_lat);
      const double elapsed_s = (comm::now_us() - started) * 1e-6;
      more = opts.duration_s > 0 ? (elapsed_s < opts.duration_s) : (s.rounds < opts.rounds);
    }
    comm.bcast(&more, sizeof more, 0);
    if (!more) break;
  }
  return s;
}

/// Rank 0: the point of fan-in `k` from its series. `goodput1`: the fan-in 1 goodput of this size (set when
/// k is 1), the base of the efficiency and offered load.
model::IncastPoint incast_point(const model::IncastEndpoints& ep, const IncastReceiver& rv,
                                const std::vector<int>& sender_idx, int k, std::uint64_t size,
                                const IncastSeries& s, const std::vector<double>& iso_lat, double& goodput1) {
  model::IncastPoint p;
  p.receiver = rv.name;
  p.fan_in = k;
  p.size_bytes = size;
  p.rounds = s.rounds;
  for (int i : sender_idx) p.senders.push_back(ep.names[static_cast<std::size_t>(i)]);
  p.goodput_gbps = *core::median(s.goodputs);
  double jsum = 0;
  for (double j : s.jains) jsum += j;
  p.fairness = jsum / static_cast<double>(s.jains.size());
  const auto cs = core::summarize(s.completions);
  p.completion_p50_us = cs.p50;
  p.completion_p99_us = cs.p99;
  p.burst_p50_us = *core::median(s.bursts);
  p.release_skew_us = s.skew_max;
  p.skew_small = s.skew_max < 0.1 * p.burst_p50_us;
  if (k == 1) goodput1 = p.goodput_gbps;
  if (goodput1 > 0) {
    p.incast_efficiency = core::incast_efficiency(p.goodput_gbps, goodput1);
    p.offered_load_gbps = goodput1 * k;
    p.congested = k > 1 && p.goodput_gbps < 0.8 * *p.offered_load_gbps;
  }
  if (rv.victim_rank >= 0) p.victim = victim_stats(rv.victim_name, iso_lat, s.v_times, s.v_lat, s.windows);
  return p;
}

/// Whether any fan-in above 1 ran, and whether any of them congested.
struct IncastTally {
  bool any_multi = false;
  bool any_congested = false;
};

/// Every fan-in of one burst size against one receiver; rank 0 adds the points to `res`.
void measure_incast_size(const Ctx& c, const IncastOptions& opts, double max_error_us,
                         const IncastReceiver& rv, std::uint64_t size, const std::vector<double>& iso_lat,
                         model::IncastResult& res, IncastTally& tally) {
  const auto& ep = res.endpoints;
  double goodput1 = 0;
  for (int k : rv.fan_ins) {
    const std::vector<int> sender_idx(rv.roles.pool.begin(), rv.roles.pool.begin() + k);
    std::vector<int> sender_ranks;
    for (int i : sender_idx) sender_ranks.push_back(ep.ranks[static_cast<std::size_t>(i)]);
    const IncastSeries s = run_incast_rounds(c, opts, max_error_us, rv, sender_ranks, size, k);
    if (c.me != 0) continue;
    model::IncastPoint p = incast_point(ep, rv, sender_idx, k, size, s, iso_lat, goodput1);
    if (k > 1) {
      tally.any_multi = true;
      tally.any_congested = tally.any_congested || p.congested;
    }
    res.points.push_back(std::move(p));
  }
}

}  // namespace

model::IncastResult run_incast(const comm::Communicator& comm, const IncastOptions& opts) {
  model::IncastResult res;
  res.endpoints = incast_endpoints(comm);
  const auto& ep = res.endpoints;
  validate(opts, ep.names);
  if (!ep.fabric_crossed)
    res.notes.push_back("one host: endpoints are local ranks, the fabric is not exercised");
  comm::enter_phase("incast clock alignment");
  const auto align = comm::align_clocks(comm);
  res.clock_error_us = align.max_error_us;
  const Ctx c{comm, align.to_ref_us, comm.rank()};

  const std::vector<int> receivers = incast_receivers(opts, ep);
  const bool with_victim = victim_possible(opts, ep.names.size());
  if (!opts.victim) {
    res.victim_skip_reason = "--congestor-only";
  } else if (!with_victim) {
    res.victim_skip_reason = fmt::format(
        "the victim needs 3 endpoints (receiver, sender, victim); this run has {}", ep.names.size());
  }

  IncastTally tally;
  for (int recv_idx : receivers) {
    const IncastReceiver rv = incast_receiver(opts, ep, recv_idx, with_victim);
    const std::vector<double> iso_lat = measure_isolated_victim(c, opts, rv);
    if (!opts.congestors) {
      if (c.me == 0 && rv.victim_rank >= 0) {
        model::IncastPoint p;
        p.receiver = rv.name;
        p.victim = victim_stats(rv.victim_name, iso_lat, {}, {}, {});
        res.points.push_back(p);
      }
      continue;
    }
    for (std::uint64_t size : opts.sizes_bytes)
      measure_incast_size(c, opts, align.max_error_us, rv, size, iso_lat, res, tally);
  }
  res.never_loaded = tally.any_multi && !tally.any_congested;
  if (opts.congestors && !tally.any_multi)
    res.notes.push_back("only fan-in 1 ran: no incast happened (add hosts)");
  return res;
}

}  // namespace fabcheck::probes
