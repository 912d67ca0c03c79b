// The watchdog thread of `fabcheck run` (see watchdog.hpp). Its MPI part (the side channel to rank 0) is
// lib/comm's SideChannel: no <mpi.h> here.
#include "fabcheck/suite/watchdog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <thread>

#include "fabcheck/comm/phase.hpp"
#include "fabcheck/comm/side_channel.hpp"

namespace fabcheck::suite {
namespace {

constexpr std::uint64_t kBye = std::numeric_limits<std::uint64_t>::max();
constexpr auto kPoll = std::chrono::milliseconds(20);
/// How long a rank whose connection to rank 0 closed waits before it leaves with exit 3 (seconds).
constexpr double kRootGoneGraceS = 2.0;

struct Msg {
  std::uint64_t seq = 0;
  char name[120] = {0};
};

double now_s() {
  return comm::now_us() / 1e6;
}

}  // namespace

std::string WatchdogTimeout::message() const {
  std::string who;
  if (!exited_ranks.empty()) {
    std::string ranks;
    for (std::size_t i = 0; i < exited_ranks.size(); ++i)
      ranks += fmt::format("{}{}", i ? ", " : "", exited_ranks[i]);
    std::string hosts;
    for (const auto& h : missing_hosts) hosts += (hosts.empty() ? "" : ", ") + h;
    return fmt::format(
        "watchdog: operation '{}' cannot complete: rank{} {} on host{} {} ended mid-run (its process exited "
        "or "
        "crashed: its connection to rank 0 closed without a goodbye)",
        operation.empty() ? "(before the first operation)" : operation, exited_ranks.size() > 1 ? "s" : "",
        ranks, missing_hosts.size() > 1 ? "s" : "", hosts);
  }
  if (arrival_table && !silent_ranks.empty()) {
    // The ranks that went quiet are the ones to look at, whatever the others wait for.
    std::string ranks;
    for (std::size_t i = 0; i < silent_ranks.size() && i < 8; ++i)
      ranks += fmt::format("{}{}", i ? ", " : "", silent_ranks[i]);
    if (silent_ranks.size() > 8) ranks += fmt::format(" and {} more", silent_ranks.size() - 8);
    std::string hosts;
    for (const auto& h : missing_hosts) hosts += (hosts.empty() ? "" : ", ") + h;
    double quiet = silent_for_s.empty() ? 0.0 : *std::max_element(silent_for_s.begin(), silent_for_s.end());
    who = fmt::format("rank{} {} on host{} {} stopped reporting {:.1f} s ago (frozen or unreachable)",
                      silent_ranks.size() > 1 ? "s" : "", ranks, missing_hosts.size() > 1 ? "s" : "", hosts,
                      quiet);
  } else if (!arrival_table) {
    who = "ranks that did not arrive are unknown (the side channel to rank 0 was down)";
  } else if (missing_ranks.empty()) {
    who = "every rank arrived; the operation itself did not complete";
  } else {
    std::string ranks;
    for (std::size_t i = 0; i < missing_ranks.size(); ++i) {
      const auto r = static_cast<std::size_t>(missing_ranks[i]);
      ranks += fmt::format("{}{}", i ? ", " : "", missing_ranks[i]);
      if (r < last_phase_of_rank.size() && !last_phase_of_rank[r].empty() && missing_ranks.size() <= 4) {
        ranks += fmt::format(" (last at '{}')", last_phase_of_rank[r]);
      }
    }
    std::string hosts;
    for (const auto& h : missing_hosts) hosts += (hosts.empty() ? "" : ", ") + h;
    who = fmt::format("rank{} {} on host{} {} did not arrive", missing_ranks.size() > 1 ? "s" : "", ranks,
                      missing_hosts.size() > 1 ? "s" : "", hosts);
  }
  return fmt::format("watchdog: operation '{}' made no progress for {:.1f} s (--timeout {} s): {}",
                     operation.empty() ? "(before the first operation)" : operation, stalled_s, timeout_s,
                     who);
}

struct Watchdog::Impl {
  comm::Communicator comm;
  std::unique_ptr<comm::SideChannel> chan;  // arrival reports to rank 0 (TCP; no MPI from the thread)
  double timeout_s = 0;
  bool table = true;
  std::function<void(const WatchdogTimeout&)> on_timeout;
  std::function<void()> tick;
  std::atomic<bool> stop_flag{false};
  std::atomic<bool> abandon{false};  // rank 0 unwinds an exception: shut the channel at once, wait for no one
  std::thread th;
  bool stopped = false;

  // Rank 0 writes the report, tells every rank to leave over the side channel and leaves with exit 3; mpirun
  // ends the job on a rank's non-zero exit (Open MPI: "Per user-direction, the job has been aborted"),
  // killing the ranks that cannot hear rank 0 (frozen, unreachable). No MPI call: MPI runs at
  // MPI_THREAD_SINGLE.
  [[noreturn]] void fire(WatchdogTimeout t) {
    if (comm.rank() == 0) {
      try {
        if (on_timeout) on_timeout(t);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "fabcheck: watchdog: could not write the report: %s\n", e.what());
      }
      if (chan && chan->ok()) chan->tell_all_to_leave();
    }
    std::fprintf(stderr, "fabcheck: error: %s\n", t.message().c_str());
    leave(3);
  }

  [[noreturn]] static void leave(int code) {
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(code);
  }

  /// The rank that speaks when rank 0 cannot: the lowest rank on another host than rank 0 (a frozen or
  /// cut-off host takes its local ranks with it), else rank 1.
  int deputy_rank() const {
    const auto& hosts = comm.hosts_of_ranks();
    for (std::size_t r = 1; r < hosts.size(); ++r)
      if (hosts[r] != hosts[0]) return static_cast<int>(r);
    return 1;
  }

  void run_reporter() {  // ranks != 0
    std::uint64_t sent = 0;
    double last_send = 0;
    double heard_root = now_s();  // rank 0's keepalives: a frozen rank 0 must not hang the job either
    double root_gone = 0;         // when rank 0's connection closed (0: open)
    while (!stop_flag.load()) {
      const auto p = comm::current_phase();
      const double t = now_s();
      // An arrival, or a heartbeat every kHeartbeatS: rank 0 tells a quiet rank (frozen, unreachable) from
      // one waiting in a collective.
      if (p.seq != sent || t - last_send >= kHeartbeatS) {
        Msg m;
        m.seq = p.seq;
        std::strncpy(m.name, p.name.c_str(), sizeof(m.name) - 1);
        if (!chan->send_to_root(&m) && root_gone == 0) root_gone = t;  // rank 0 is gone: so is the job
        sent = p.seq;
        last_send = t;
      }
      const int said = chan->poll_root();
      if (said == 1) leave(3);  // rank 0 ended the job (its line says why)
      // Rank 0 is gone. When it failed on an error every rank meets (a usage error found while measuring)
      // this rank's own main thread is about to leave with the same exit code: it gets kRootGoneGraceS to do
      // so, so that mpirun reports that code (2), not this thread's 3. A rank blocked in a collective leaves
      // after it.
      if (said == 2 && root_gone == 0) root_gone = t;
      if (root_gone > 0 && t - root_gone > kRootGoneGraceS) leave(3);
      if (said == 3) heard_root = t;
      if (t - heard_root > timeout_s + kSilentS) {
        // Rank 0 (its process, its host or its watchdog thread) went quiet: nobody else will end the job.
        // Every rank leaves; one of them, the deputy, says why (N-1 copies of the line told nothing more).
        // The others leave a second later: the first rank to exit makes mpirun kill the rest, the deputy
        // with its line unwritten.
        if (comm.rank() == deputy_rank())
          std::fprintf(stderr,
                       "fabcheck: error: watchdog: rank 0 on host %s stopped reporting %.1f s ago (frozen or "
                       "unreachable); every rank leaves\n",
                       comm.hosts_of_ranks()[0].c_str(), t - heard_root);
        else
          std::this_thread::sleep_for(std::chrono::seconds(1));
        leave(3);
      }
      std::this_thread::sleep_for(kPoll);
    }
    Msg bye;
    bye.seq = kBye;
    chan->send_to_root(&bye);
  }

  void run_self_only() {  // no MPI_THREAD_MULTIPLE: every rank watches its own phase
    std::uint64_t seq = 0;
    double since = now_s();
    double last_tick = since;
    while (!stop_flag.load()) {
      const auto p = comm::current_phase();
      const double t = now_s();
      if (p.seq != seq) {
        seq = p.seq;
        since = t;
      }
      if (t - since > timeout_s) {
        WatchdogTimeout w;
        w.operation = p.name;
        w.timeout_s = timeout_s;
        w.stalled_s = t - since;
        w.arrival_table = false;
        fire(w);
      }
      if (tick && comm.rank() == 0 && t - last_tick >= 0.5) {
        tick();
        last_tick = t;
      }
      std::this_thread::sleep_for(kPoll);
    }
  }

  void run_root() {
    const int n = comm.size();
    std::vector<std::uint64_t> seq(static_cast<std::size_t>(n), 0);
    std::vector<std::string> name(static_cast<std::size_t>(n));
    std::vector<double> heard(static_cast<std::size_t>(n), now_s());  // last message of each rank
    double last_progress = now_s();
    std::vector<char> done(static_cast<std::size_t>(n), 0);  // said goodbye, or its connection closed
    std::vector<int> exited;  // connections closed without a goodbye while the run went on
    int byes = 0;
    const auto finished = [&](std::size_t src) {
      if (src < done.size() && !done[src]) {
        done[src] = 1;
        ++byes;
      }
    };
    const auto on_record = [&](int source, const void* rec) {
      Msg buf;
      std::memcpy(&buf, rec, sizeof buf);
      const auto src = static_cast<std::size_t>(source);
      if (src < heard.size() && !done[src]) heard[src] = now_s();
      if (buf.seq == kBye) {
        finished(src);
      } else if (src < seq.size() && buf.seq > seq[src]) {
        seq[src] = buf.seq;
        buf.name[sizeof(buf.name) - 1] = 0;
        name[src] = buf.name;
        last_progress = now_s();
      }
    };
    // A rank's host among the hosts a timeout names (distinct, in rank order).
    const auto name_host = [&](WatchdogTimeout& w, int r) {
      const auto& h = comm.hosts_of_ranks()[static_cast<std::size_t>(r)];
      if (std::find(w.missing_hosts.begin(), w.missing_hosts.end(), h) == w.missing_hosts.end())
        w.missing_hosts.push_back(h);
    };
    const auto on_closed = [&](int source) {
      const auto src = static_cast<std::size_t>(source);
      // a goodbye marks it done first (TCP keeps the order): closed while not done is a process that ended
      if (src < done.size() && !done[src] && !stop_flag.load()) exited.push_back(source);
      finished(src);
    };
    double last_tick = last_progress;
    double last_keepalive = 0;
    double stop_seen = 0;
    while (true) {
      chan->drain(on_record, on_closed);  // the arrivals
      const auto own = comm::current_phase();
      if (own.seq > seq[0]) {
        seq[0] = own.seq;
        name[0] = own.name;
        last_progress = now_s();
      }
      const double t = now_s();
      if (t - last_keepalive >= kHeartbeatS) {  // every rank watches rank 0 through these
        chan->keepalive_all();
        last_keepalive = t;
      }
      if (abandon.load()) break;
      if (!exited.empty() && !stop_flag.load()) {
        WatchdogTimeout w;
        w.timeout_s = timeout_s;
        w.stalled_s = t - last_progress;
        w.operation = name[static_cast<std::size_t>(std::max_element(seq.begin(), seq.end()) - seq.begin())];
        w.exited_ranks = exited;
        w.missing_ranks = exited;
        for (int r : exited) name_host(w, r);
        w.last_phase_of_rank = name;
        fire(w);
      }
      if (stop_flag.load()) {
        if (stop_seen == 0) stop_seen = t;
        if (byes >= n - 1) break;
        if (t - stop_seen > 30) break;  // a rank never said goodbye: do not hang in shutdown either
      } else if (t - last_progress > timeout_s) {
        WatchdogTimeout w;
        w.timeout_s = timeout_s;
        w.stalled_s = t - last_progress;
        const std::uint64_t top = *std::max_element(seq.begin(), seq.end());
        // The ranks furthest behind are the ones that did not arrive; ranks between them and the front are
        // waiting on them inside a collective (their own last phase is kept in last_phase_of_rank).
        const std::uint64_t bottom = *std::min_element(seq.begin(), seq.end());
        for (int r = 0; r < n; ++r) {
          const auto ur = static_cast<std::size_t>(r);
          if (seq[ur] == top && w.operation.empty()) w.operation = name[ur];
          if (seq[ur] < top && seq[ur] == bottom) {
            w.missing_ranks.push_back(r);
            name_host(w, r);
          }
        }
        // Ranks not heard for kSilentS (no heartbeat): frozen or unreachable — named with their hosts.
        for (int r = 1; r < n; ++r) {
          const auto ur = static_cast<std::size_t>(r);
          if (done[ur] || t - heard[ur] <= kSilentS) continue;  // said goodbye or closed: not silent
          w.silent_ranks.push_back(r);
          w.silent_for_s.push_back(t - heard[ur]);
          name_host(w, r);
        }
        w.last_phase_of_rank = name;
        fire(w);
      }
      if (tick && t - last_tick >= 0.5) {
        tick();
        last_tick = t;
      }
      std::this_thread::sleep_for(kPoll);
    }
  }
};

Watchdog::Watchdog(const comm::Communicator& c, double timeout_s,
                   std::function<void(const WatchdogTimeout&)> on_timeout, std::function<void()> tick)
    : impl_(std::make_unique<Impl>()) {
  impl_->comm = c;
  impl_->timeout_s = timeout_s;
  impl_->on_timeout = std::move(on_timeout);
  impl_->tick = std::move(tick);
  impl_->chan = std::make_unique<comm::SideChannel>(c, sizeof(Msg));
  impl_->table = impl_->chan->ok();
  if (!impl_->table && c.rank() == 0) {
    std::fprintf(stderr,
                 "fabcheck: warning: the watchdog's side channel is down (%s); each rank watches itself\n",
                 impl_->chan->failure().c_str());
  }
  Impl* p = impl_.get();
  if (!impl_->table) {
    p->th = std::thread([p] { p->run_self_only(); });
  } else if (c.rank() == 0) {
    p->th = std::thread([p] { p->run_root(); });
  } else {
    p->th = std::thread([p] { p->run_reporter(); });
  }
}

void Watchdog::stop() {
  if (!impl_ || impl_->stopped) return;
  impl_->stopped = true;
  impl_->stop_flag.store(true);
  if (impl_->th.joinable()) impl_->th.join();
  impl_->chan.reset();
}

Watchdog::~Watchdog() {
  // Unwinding an exception (rank 0 failed alone): the other ranks sit in a collective and will never say
  // goodbye; closing the channel at once makes them leave, and main reports the error without a 30 s wait.
  if (impl_ && std::uncaught_exceptions() > 0) impl_->abandon.store(true);
  try {
    stop();
  } catch (...) {
  }
}

}  // namespace fabcheck::suite
