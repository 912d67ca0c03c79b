#include "fabcheck/probes/latency.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/comm/phase.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/fault.hpp"
#include "fabcheck/core/pair_schedule.hpp"
#include "fabcheck/core/size.hpp"

namespace fabcheck::probes {

namespace {

constexpr int kLatencyTagPing = 5101;
constexpr std::uint64_t kMaxSize = std::uint64_t{1} << 30;
constexpr std::uint64_t kCollMin = 8, kCollMax = 64 * 1024;

/// Busy-waits `us` microseconds (the test fault "delay"; a sleep would be far too coarse).
void spin_us(double us) {
  const double until = comm::now_us() + us;
  while (comm::now_us() < until) {
  }
}

/// The delay fault of FABCHECK_TEST_FAULT when it applies to this rank.
std::optional<core::Fault> delay_fault_for(int world_rank) {
  auto f = core::fault_from_env();
  if (!f || f->kind != core::Fault::Kind::kDelay || f->rank != world_rank) return std::nullopt;
  return f;
}

bool delay_now(const std::optional<core::Fault>& f, std::uint64_t timed_index) {
  return f && timed_index % f->every == 0;
}

/// How many timed iterations to run: up to `limit`, and in duration mode also until the deadline.
struct IterPlan {
  std::uint64_t limit = 0;  ///< at most this many timed iterations
  double duration_us = 0;   ///< > 0: also stop once this much time has passed since the first timed iteration
  bool cap_is_max_samples = false;  ///< limit is the memory cap of duration mode (not a requested count)
};

IterPlan plan_for(const LatencyOptions& o, std::uint64_t size) {
  IterPlan p;
  p.duration_us = o.duration_s * 1e6;
  if (o.iters > 0) {
    p.limit = o.iters;
  } else if (o.duration_s > 0) {
    p.limit = o.max_samples;
    p.cap_is_max_samples = true;
  } else {
    p.limit = default_iters(size);
  }
  return p;
}

bool keep_going(const IterPlan& plan, std::uint64_t k, double t_start) {
  if (k >= plan.limit) return false;
  return plan.duration_us <= 0 || k == 0 || comm::now_us() - t_start < plan.duration_us;
}

/// The part of `plan` that pass `pass` of `passes` runs: its share of the iterations (the first limit %
/// passes passes one more) and of the duration.
IterPlan pass_plan(const IterPlan& plan, int pass, int passes) {
  IterPlan p = plan;
  const auto n = static_cast<std::uint64_t>(passes), i = static_cast<std::uint64_t>(pass);
  p.limit = plan.limit / n + (i < plan.limit % n ? 1 : 0);
  p.duration_us = plan.duration_us / static_cast<double>(passes);
  return p;
}

/// Initiator side of the ping-pong: byte 0 of every ping says whether the peer must answer (1) or stop (0).
/// `k0`: timed iterations of this pair in earlier passes (the delay fault counts across passes).
std::vector<double> ping_initiator(const comm::Communicator& comm, int peer, std::uint64_t size,
                                   std::uint64_t warmup, const IterPlan& plan,
                                   const std::optional<core::Fault>& fault, std::uint64_t k0) {
  std::vector<unsigned char> sbuf(size, 0xA5), rbuf(size, 0);
  std::vector<double> samples;
  samples.reserve(std::min<std::uint64_t>(plan.limit, 1u << 16));
  double t_start = 0;
  for (std::uint64_t i = 0;; ++i) {
    bool go = true;
    if (i >= warmup) {
      const std::uint64_t k = i - warmup;
      if (k == 0) t_start = comm::now_us();
      go = keep_going(plan, k, t_start);
    }
    sbuf[0] = go ? 1 : 0;
    if (!go) {
      comm.send(sbuf.data(), size, peer, kLatencyTagPing);
      break;
    }
    const double t0 = comm::now_us();
    if (i >= warmup && delay_now(fault, k0 + i - warmup)) spin_us(static_cast<double>(fault->us));
    comm.send(sbuf.data(), size, peer, kLatencyTagPing);
    comm.recv(rbuf.data(), size, peer, kLatencyTagPing);
    const double t1 = comm::now_us();
    if (i >= warmup) samples.push_back((t1 - t0) / 2.0);
  }
  return samples;
}

/// Answers until told to stop; returns the timed iterations answered (for `k0` of the next pass).
std::uint64_t ping_responder(const comm::Communicator& comm, int peer, std::uint64_t size,
                             std::uint64_t warmup, const std::optional<core::Fault>& fault,
                             std::uint64_t k0) {
  std::vector<unsigned char> sbuf(size, 0x5A), rbuf(size, 0);
  std::uint64_t i = 0;
  for (;; ++i) {
    comm.recv(rbuf.data(), size, peer, kLatencyTagPing);
    if (rbuf[0] == 0) break;
    if (i >= warmup && delay_now(fault, k0 + i - warmup)) spin_us(static_cast<double>(fault->us));
    comm.send(sbuf.data(), size, peer, kLatencyTagPing);
  }
  return i > warmup ? i - warmup : 0;
}

std::string pair_label(int a, int b, const std::vector<std::string>& hosts_of_ranks) {
  const auto ha = static_cast<std::size_t>(a), hb = static_cast<std::size_t>(b);
  if (ha < hosts_of_ranks.size() && hb < hosts_of_ranks.size() && hosts_of_ranks[ha] != hosts_of_ranks[hb]) {
    return fmt::format("{}-{}", hosts_of_ranks[ha], hosts_of_ranks[hb]);
  }
  return fmt::format("rank {}-rank {}", a, b);
}

std::string host_of(int r, const std::vector<std::string>& hosts_of_ranks) {
  const auto i = static_cast<std::size_t>(r);
  return i < hosts_of_ranks.size() ? hosts_of_ranks[i] : std::string();
}

}  // namespace

std::vector<std::uint64_t> sweep_sizes() {
  return model::latency_sweep_sizes();
}

std::vector<std::uint64_t> collective_sizes(const std::vector<std::uint64_t>& sizes) {
  std::set<std::uint64_t> out;
  for (auto s : sizes) {
    if (s >= kCollMin && s <= kCollMax) out.insert(s / 8 * 8);
  }
  return {out.begin(), out.end()};
}

std::uint64_t default_iters(std::uint64_t size_bytes) {
  return size_bytes <= 8192 ? 10000 : 1000;
}

void validate(const LatencyOptions& o) {
  if (o.sizes.empty()) throw UsageError("--sizes: empty list (give sizes such as 8,4K,64K)");
  for (auto s : o.sizes) {
    if (s == 0 || s > kMaxSize) {
      throw UsageError(fmt::format("--sizes: {} B is out of range (each size must be 1 B … 1G)", s));
    }
  }
  if (o.iters > 100000000) throw UsageError("--iters: at most 100000000 per size and pair");
  if (!(o.duration_s >= 0) || !std::isfinite(o.duration_s) || o.duration_s > 86400) {
    throw UsageError("--duration: must be a positive number of seconds, at most 86400");
  }
  if (o.warmup > 100000000) throw UsageError("--warmup: at most 100000000");
  if (o.max_samples == 0) throw UsageError("max_samples: must be at least 1");
  if (o.pin_cpus.size() > 2)
    throw UsageError(
        "--pin-cpus: give one CPU (both ends) or two (initiator,responder), e.g. --pin-cpus 0,1");
  for (int c : o.pin_cpus)
    if (c < 0 || c >= CPU_SETSIZE)
      throw UsageError(fmt::format("--pin-cpus: {} is not a CPU number (0 … {})", c, CPU_SETSIZE - 1));
  if (o.passes < 1 || o.passes > 1000000)
    throw UsageError(fmt::format("--passes {}: give 1 (each pair in one go) to 1000000", o.passes));
  if (!o.p2p && !o.collective) throw UsageError("--kind: nothing to measure (use p2p, collective or both)");
}

void analyze_section(model::LatencySection& s, const std::vector<std::string>& hosts_of_ranks) {
  std::vector<std::vector<double>> groups;
  std::vector<model::LatencySource> sources;
  if (s.kind == "p2p") {
    s.histogram = core::Histogram{};
    s.samples_us.clear();
    for (auto& p : s.per_pair) {
      p.summary = core::summarize(p.samples_us);
      p.histogram = core::Histogram{};
      for (double x : p.samples_us) p.histogram.add_us(x);
      s.histogram.merge(p.histogram);
      s.samples_us.insert(s.samples_us.end(), p.samples_us.begin(), p.samples_us.end());
      groups.push_back(p.samples_us);
      model::LatencySource src;
      src.label = pair_label(p.a_rank, p.b_rank, hosts_of_ranks);
      src.ranks = {p.a_rank, p.b_rank};
      src.hosts = {p.a_host, p.b_host};
      sources.push_back(std::move(src));
    }
  } else {
    s.histogram = core::Histogram{};
    for (double x : s.samples_us) s.histogram.add_us(x);
    int nranks = static_cast<int>(hosts_of_ranks.size());
    for (int r : s.straggler_rank) nranks = std::max(nranks, r + 1);
    groups.assign(static_cast<std::size_t>(nranks), {});
    for (std::size_t k = 0; k < s.samples_us.size() && k < s.straggler_rank.size(); ++k) {
      groups[static_cast<std::size_t>(s.straggler_rank[k])].push_back(s.samples_us[k]);
    }
    for (int r = 0; r < nranks; ++r) {
      model::LatencySource src;
      const std::string h = host_of(r, hosts_of_ranks);
      src.label = h.empty() ? fmt::format("rank {}", r) : fmt::format("rank {} ({})", r, h);
      src.ranks = {r};
      src.hosts = {h};
      sources.push_back(std::move(src));
    }
  }
  s.summary = core::summarize(s.samples_us);
  auto to_sources = [&](const std::vector<core::TailShare>& shares) {
    std::vector<model::LatencySource> out;
    for (const auto& sh : shares) {
      model::LatencySource src = sources[sh.source];
      src.count = sh.count;
      src.samples = sh.samples;
      src.share = sh.share;
      out.push_back(std::move(src));
    }
    return out;
  };
  const auto ranking = core::straggler_ranking(groups);
  s.straggler_threshold_us = ranking.threshold;
  s.straggler_above = ranking.above;
  s.stragglers = to_sources(ranking.ranking);
  const auto spikes = core::find_spikes(groups);
  s.spike_threshold_us = spikes.threshold;
  s.spike_count = spikes.count;
  s.spike_sources = to_sources(spikes.by_source);
  std::vector<double> sorted = s.samples_us;
  std::sort(sorted.begin(), sorted.end());
  const auto ns = core::tail_cost_points(s.tail_n);
  s.tail_cost = core::tail_cost(sorted, ns);
}

namespace {

/// Every rank checks that the CPUs of --pin-cpus are in its affinity mask; all ranks throw the same error
/// naming the highest rank that lacks one (collective, so that no rank is left waiting).
void check_pin_cpus(const comm::Communicator& comm, const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  bool ok = sched_getaffinity(0, sizeof mask, &mask) == 0;
  for (int c : cpus) ok = ok && CPU_ISSET(c, &mask);
  const std::int64_t bad = comm.allreduce(std::int64_t{ok ? -1 : comm.rank()}, comm::ScalarOp::kMax);
  if (bad < 0) return;
  const auto& hosts = comm.hosts_of_ranks();
  throw UsageError(fmt::format(
      "--pin-cpus: a CPU of {} is not available to rank {} on host {} (give CPUs every rank may run on; see "
      "`taskset -p` or `nproc`)",
      fmt::join(cpus, ","), bad, hosts[static_cast<std::size_t>(bad)]));
}

/// Pins the calling thread to cpus[role] (cpus[0] when only one is given) for its lifetime, then restores
/// the previous affinity. Does nothing when cpus is empty.
class CpuPin {
 public:
  CpuPin(const std::vector<int>& cpus, std::size_t role) {
    if (cpus.empty()) return;
    CPU_ZERO(&saved_);
    if (sched_getaffinity(0, sizeof saved_, &saved_) != 0) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpus[std::min(role, cpus.size() - 1)], &one);
    active_ = sched_setaffinity(0, sizeof one, &one) == 0;
  }
  ~CpuPin() {
    if (active_) sched_setaffinity(0, sizeof saved_, &saved_);
  }
  CpuPin(const CpuPin&) = delete;
  CpuPin& operator=(const CpuPin&) = delete;

 private:
  cpu_set_t saved_{};
  bool active_ = false;
};

/// The result's description of the run: its members (host leaders across hosts, else the local ranks), the
/// pair schedule over them and the iteration rule.
model::LatencyResult latency_result_header(const comm::Communicator& comm, const LatencyOptions& opts) {
  model::LatencyResult res;
  res.nranks = comm.size();
  res.hosts = comm.hosts();
  res.pattern = name(opts.pattern);
  res.pin_cpus = opts.pin_cpus;
  if (res.hosts.size() >= 2) {
    res.fabric_crossed = true;
    res.members = "host leaders";
    for (const auto& ranks : comm.ranks_by_host()) res.member_ranks.push_back(ranks.front());
  } else {
    res.members = "local ranks";
    for (int r = 0; r < comm.size(); ++r) res.member_ranks.push_back(r);
  }
  const int nm = static_cast<int>(res.member_ranks.size());
  const auto rounds =
      opts.pattern == model::LatencyPattern::kRing ? core::ring_rounds(nm) : core::circle_schedule(nm);
  for (const auto& round : rounds) {
    std::vector<std::pair<int, int>> rr;
    for (auto [a, b] : round) {
      rr.emplace_back(res.member_ranks[static_cast<std::size_t>(a)],
                      res.member_ranks[static_cast<std::size_t>(b)]);
    }
    res.schedule.push_back(std::move(rr));
  }
  if (opts.duration_s > 0) {
    res.iteration_rule =
        fmt::format("duration {} s per size and pair (cap {} samples)", opts.duration_s, opts.max_samples);
  } else if (opts.iters > 0) {
    res.iteration_rule = fmt::format("iters {}", opts.iters);
  } else {
    res.iteration_rule = "default iters (10000 for sizes <= 8K, 1000 above)";
  }
  return res;
}

/// LatencyOptions::time_limit_s: each section's equal share of what is left of the limit (agreed by every
/// rank), at least 0.1 s; 0 without a limit. The clock starts at construction.
class LatencyTimeShare {
 public:
  explicit LatencyTimeShare(const LatencyOptions& opts)
      : limit_us_(opts.time_limit_s * 1e6),
        t_begin_(comm::now_us()),
        sections_left_((opts.p2p ? opts.sizes.size() : 0) +
                       (opts.collective ? collective_sizes(opts.sizes).size() : 0)) {}

  /// The next section's share in µs (collective when there is a limit).
  double next_us(const comm::Communicator& comm) {
    if (limit_us_ <= 0) return 0;
    const double elapsed = comm.allreduce(comm::now_us() - t_begin_, comm::ScalarOp::kMax);
    const double left = static_cast<double>(std::max<std::size_t>(sections_left_, 1));
    if (sections_left_ > 0) --sections_left_;
    return std::max(1e5, (limit_us_ - elapsed) / left);
  }

 private:
  double limit_us_;
  double t_begin_;
  std::size_t sections_left_;
};

/// Caps `plan` by `share_us` (split over `in_turn` rounds run one after another); true when the cap applies.
bool cap_latency_plan(IterPlan& plan, double share_us, std::size_t in_turn) {
  if (share_us <= 0) return false;
  const double per = share_us / static_cast<double>(std::max<std::size_t>(in_turn, 1));
  plan.duration_us = plan.duration_us > 0 ? std::min(plan.duration_us, per) : per;
  return true;
}

/// What every section of one run shares.
struct LatencyRun {
  const comm::Communicator& comm;
  const LatencyOptions& opts;
  model::LatencyResult& res;
  const std::vector<std::string>& hosts_of_ranks;
  const comm::ClockAlignment& clock;
  const std::optional<core::Fault>& fault;
  LatencyTimeShare& share;
  int me = 0;
  int nm = 0;  ///< members of the pair schedule
};

/// Notes on `sec` that the step's time limit stopped it short, and marks the result time-limited.
void note_latency_limit(const LatencyRun& run, model::LatencySection& sec, std::uint64_t fewest,
                        std::uint64_t asked) {
  sec.notes.push_back(fmt::format("stopped at the step's time limit ({:.1f} s): {} of {} samples{}",
                                  run.opts.time_limit_s, fewest, asked,
                                  sec.kind == "p2p" ? " (fewest of a pair)" : ""));
  run.res.time_limited = true;
}

/// The ping-pongs of one p2p size: `passes` passes over the schedule, rounds of disjoint pairs at the same
/// time. mine[r]: this rank's samples as the initiator of round r.
void measure_p2p_passes(const LatencyRun& run, std::uint64_t size, const IterPlan& plan, int passes,
                        std::vector<std::vector<double>>& mine) {
  const auto& comm = run.comm;
  const auto& schedule = run.res.schedule;
  const int me = run.me;
  const std::uint64_t warmup = run.opts.warmup;
  std::vector<std::uint64_t> answered(schedule.size(), 0);
  for (int pass = 0; pass < passes; ++pass) {
    const IterPlan pp = pass_plan(plan, pass, passes);
    // Later passes: one untimed exchange (the connection sat idle while other pairs were measured).
    const std::uint64_t wu = pass == 0 ? warmup : std::min<std::uint64_t>(warmup, 1);
    for (std::size_t r = 0; r < schedule.size(); ++r) {
      comm::enter_phase(fmt::format("latency p2p {} B round {} pass {}/{}", size, r, pass + 1, passes));
      for (auto [a, b] : schedule[r]) {
        if (me == a || me == b) {
          // Odd passes swap the two CPUs (LatencyOptions::pin_cpus).
          const CpuPin pin(run.opts.pin_cpus, (me == a ? 0u : 1u) ^ (pass % 2 == 1 ? 1u : 0u));
          if (me == a) {
            auto got = ping_initiator(comm, b, size, wu, pp, run.fault, mine[r].size());
            mine[r].insert(mine[r].end(), got.begin(), got.end());
          }
          if (me == b) answered[r] += ping_responder(comm, a, size, wu, run.fault, answered[r]);
        }
        if (run.opts.serial_pairs) comm.lazy_barrier();  // one pair at a time
      }
      comm.lazy_barrier();  // ranks without a pair this round sleep instead of spinning on the measured
                            // cores
    }
  }
}

/// Point-to-point section of one size.
void run_p2p_section(const LatencyRun& run, std::uint64_t size) {
  const auto& opts = run.opts;
  const auto& comm = run.comm;
  const auto& res = run.res;
  IterPlan plan = plan_for(opts, size);
  const bool capped_by_limit = cap_latency_plan(plan, run.share.next_us(comm), res.schedule.size());
  const std::uint64_t warmup = opts.warmup;
  model::LatencySection sec;
  sec.kind = "p2p";
  sec.pin_cpus = opts.pin_cpus;
  sec.pattern = res.pattern;
  sec.size_bytes = size;
  sec.warmup = warmup;
  sec.tail_n = static_cast<std::uint64_t>(run.nm);
  // Each pair's iterations in `passes` passes over the whole schedule: a drift in time (the machine, the
  // fabric's load) then reaches every pair alike instead of whichever pair was measured at that moment.
  const int passes = static_cast<int>(std::min<std::uint64_t>(
      static_cast<std::uint64_t>(std::max(1, opts.passes)), std::max<std::uint64_t>(plan.limit, 1)));
  sec.passes = passes;
  std::vector<std::vector<double>> mine(res.schedule.size());
  measure_p2p_passes(run, size, plan, passes, mine);
  for (std::size_t r = 0; r < res.schedule.size(); ++r) {
    auto all = comm.gather(mine[r], 0);
    if (run.me == 0) {
      for (auto [a, b] : res.schedule[r]) {
        model::LatencyPair p;
        p.a_rank = a;
        p.b_rank = b;
        p.a_host = run.hosts_of_ranks[static_cast<std::size_t>(a)];
        p.b_host = run.hosts_of_ranks[static_cast<std::size_t>(b)];
        p.round = static_cast<int>(r);
        p.samples_us = std::move(all[static_cast<std::size_t>(a)]);
        p.capped = plan.cap_is_max_samples && p.samples_us.size() >= plan.limit;
        if (p.capped) {
          sec.notes.push_back(fmt::format("pair {} stopped at the cap of {} samples",
                                          pair_label(a, b, run.hosts_of_ranks), plan.limit));
        }
        sec.per_pair.push_back(std::move(p));
      }
    }
  }
  if (run.me == 0) {
    std::uint64_t fewest = plan.limit;
    for (const auto& p : sec.per_pair) fewest = std::min<std::uint64_t>(fewest, p.samples_us.size());
    if (capped_by_limit && fewest < plan.limit && !plan.cap_is_max_samples)
      note_latency_limit(run, sec, fewest, plan.limit);
    analyze_section(sec, run.hosts_of_ranks);
    run.res.sections.push_back(std::move(sec));
  }
}

/// The allreduce iterations of one size on every rank: warmup, a barrier, then the timed iterations with
/// their entry and exit on clocks aligned to rank 0.
void measure_allreduce(const LatencyRun& run, std::uint64_t size, const IterPlan& plan,
                       std::vector<double>& entry, std::vector<double>& exit) {
  const auto& comm = run.comm;
  const auto& fault = run.fault;
  std::vector<double> buf(size / 8, 1.0);
  for (std::uint64_t i = 0; i < run.opts.warmup; ++i) {
    std::fill(buf.begin(), buf.end(), 1.0);
    comm.allreduce(std::span<double>(buf), comm::ScalarOp::kSum);
  }
  comm.barrier();
  auto one = [&](std::uint64_t k) {
    std::fill(buf.begin(), buf.end(), 1.0);
    if (delay_now(fault, k)) spin_us(static_cast<double>(fault->us));
    entry.push_back(comm::now_us() + run.clock.to_ref_us);
    comm.allreduce(std::span<double>(buf), comm::ScalarOp::kSum);
    exit.push_back(comm::now_us() + run.clock.to_ref_us);
  };
  if (plan.duration_us > 0) {
    // Batches between agreement points (an untimed allreduce of the elapsed time); the batch grows with
    // the measured rate so that the run stops near the deadline with few agreement points.
    const double t_start = comm::now_us();
    std::uint64_t done = 0, batch = 16;
    while (true) {
      const std::uint64_t todo = std::min(batch, plan.limit - done);
      for (std::uint64_t k = 0; k < todo; ++k) one(done + k);
      done += todo;
      const double elapsed = comm.allreduce(comm::now_us() - t_start, comm::ScalarOp::kMax);
      if (done >= plan.limit || elapsed >= plan.duration_us) break;
      const double per_iter = elapsed / static_cast<double>(done);
      const double remaining = (plan.duration_us - elapsed) / std::max(per_iter, 1e-3);
      batch = std::max<std::uint64_t>(
          16, std::min<std::uint64_t>(2 * batch, static_cast<std::uint64_t>(remaining) + 1));
    }
  } else {
    entry.reserve(plan.limit);
    exit.reserve(plan.limit);
    for (std::uint64_t k = 0; k < plan.limit; ++k) one(k);
  }
}

/// Rank 0: the collective section of one size from every rank's entries and exits (span = max exit - min
/// entry per iteration; the straggler is the rank that entered last).
void add_collective_section(const LatencyRun& run, std::uint64_t size, const IterPlan& plan,
                            bool capped_by_limit, const std::vector<std::vector<double>>& entries,
                            const std::vector<std::vector<double>>& exits) {
  const int nranks = run.comm.size();
  model::LatencySection sec;
  sec.kind = "collective";
  sec.pattern = "allreduce";
  sec.size_bytes = size;
  sec.warmup = run.opts.warmup;
  sec.tail_n = static_cast<std::uint64_t>(nranks);
  const std::size_t iters = entries[0].size();
  if (capped_by_limit && iters < plan.limit && !plan.cap_is_max_samples)
    note_latency_limit(run, sec, iters, plan.limit);
  sec.samples_us.reserve(iters);
  sec.straggler_rank.reserve(iters);
  for (std::size_t k = 0; k < iters; ++k) {
    double min_entry = entries[0][k], max_entry = entries[0][k], max_exit = exits[0][k];
    int last = 0;
    for (int r = 1; r < nranks; ++r) {
      const auto ri = static_cast<std::size_t>(r);
      if (entries[ri][k] > max_entry) {
        max_entry = entries[ri][k];
        last = r;
      }
      min_entry = std::min(min_entry, entries[ri][k]);
      max_exit = std::max(max_exit, exits[ri][k]);
    }
    sec.samples_us.push_back(max_exit - min_entry);
    sec.straggler_rank.push_back(last);
  }
  analyze_section(sec, run.hosts_of_ranks);
  run.res.sections.push_back(std::move(sec));
}

/// Collective section of one size: per-iteration allreduce pass on every rank.
void run_collective_section(const LatencyRun& run, std::uint64_t size) {
  const auto& comm = run.comm;
  comm::enter_phase(fmt::format("latency allreduce {} B", size));
  IterPlan plan = plan_for(run.opts, size);
  const bool capped_by_limit = cap_latency_plan(plan, run.share.next_us(comm), 1);
  std::vector<double> entry, exit;
  measure_allreduce(run, size, plan, entry, exit);
  auto entries = comm.gather(entry, 0);
  auto exits = comm.gather(exit, 0);
  if (run.me == 0) add_collective_section(run, size, plan, capped_by_limit, entries, exits);
}

}  // namespace

model::LatencyResult run_latency(const comm::Communicator& comm, const LatencyOptions& opts) {
  if (comm.size() < 2) {
    throw UsageError(
        "latency: needs at least 2 ranks, got 1 (launch with mpirun -np 2 or more, one rank per host across "
        "hosts)");
  }
  validate(opts);
  const int me = comm.rank();
  const auto& hosts_of_ranks = comm.hosts_of_ranks();
  check_pin_cpus(comm, opts.pin_cpus);

  model::LatencyResult res = latency_result_header(comm, opts);

  comm::enter_phase("latency clock alignment");
  const auto clock = comm::align_clocks(comm);
  res.clock_error_us = clock.max_error_us;
  res.clock_offset_us_max = clock.max_abs_offset_us;
  const auto fault = delay_fault_for(me);
  LatencyTimeShare share(opts);
  const LatencyRun run{
      comm, opts, res, hosts_of_ranks, clock, fault, share, me, static_cast<int>(res.member_ranks.size())};

  // Point-to-point: one section per size; rounds of disjoint pairs run at the same time.
  if (opts.p2p) {
    for (std::uint64_t size : opts.sizes) run_p2p_section(run, size);
  }
  // Collective: per-iteration allreduce pass on every rank, entry/exit on clocks aligned to rank 0.
  if (opts.collective) {
    for (std::uint64_t size : collective_sizes(opts.sizes)) run_collective_section(run, size);
  }
  comm::enter_phase("latency done");
  return res;
}

}  // namespace fabcheck::probes
