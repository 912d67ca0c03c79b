#pragma once
/// @file The watchdog of `fabcheck run` (so that no run ever hangs). Every rank runs a thread that reports
/// its arrivals at operations (comm::enter_phase / current_phase) to rank 0 over a TCP side channel
/// (comm::SideChannel; no MPI call from the thread, so MPI stays at MPI_THREAD_SINGLE); rank 0's
/// thread detects an operation that made no progress for `timeout_s` seconds, calls the on_timeout callback
/// (which writes the report with `status: incomplete`), tells every rank to leave and leaves with exit code 3
/// (mpirun ends the job on a non-zero exit). When the side channel cannot be set up every rank watches only
/// itself (same timeout, no arrival table).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fabcheck/comm/communicator.hpp"

namespace fabcheck::suite {

/// What rank 0 knows when an operation timed out.
struct WatchdogTimeout {
  std::string operation;           ///< the operation of the most advanced ranks, e.g. "sweep allreduce 64 B"
  double timeout_s = 0;            ///< the limit that was exceeded
  double stalled_s = 0;            ///< seconds since the last arrival of any rank
  std::vector<int> missing_ranks;  ///< ranks that did not arrive at `operation`
  std::vector<std::string>
      missing_hosts;                 ///< hosts of the missing and of the silent ranks (distinct, rank order)
  std::vector<int> silent_ranks;     ///< ranks whose watchdog thread stopped reporting (a frozen process, a
                                     ///< host that cannot be reached): no heartbeat for kSilentS
  std::vector<double> silent_for_s;  ///< seconds since each silent rank was last heard
  /// Ranks whose process ended mid-run: their connection to rank 0 closed without a goodbye (a crash, a
  /// kill). The job cannot complete: the watchdog ends it at once instead of waiting `timeout_s` (a launcher
  /// such as srun without --kill-on-bad-exit leaves the other ranks running).
  std::vector<int> exited_ranks;
  std::vector<std::string> last_phase_of_rank;  ///< each rank's last reported operation ("" = none yet)
  bool arrival_table = true;  ///< false when the table could not be kept (the side channel was down)
  /// One line for humans: "operation 'X' exceeded 5 s: rank 2 (host h) did not arrive".
  std::string message() const;
};

/// Every rank's watchdog thread reports to rank 0 at least this often (seconds), also without progress.
inline constexpr double kHeartbeatS = 1.0;
/// A rank not heard for this long (seconds) is silent: frozen (SIGSTOP, a hung host) or unreachable.
inline constexpr double kSilentS = 3.0;

/// Watchdog over a communicator (normally the world). Construction and stop() are collective.
class Watchdog {
 public:
  /// Starts the thread on every rank.
  /// @param comm the ranks to watch (the side channel is set up over it, collectively)
  /// @param timeout_s seconds an operation may go without any rank's progress
  /// @param on_timeout called on rank 0 (from the watchdog thread) before the job ends with exit 3; must be
  /// thread-safe
  /// @param tick called on rank 0 about every 0.5 s (progress display); may be empty
  Watchdog(const comm::Communicator& comm, double timeout_s,
           std::function<void(const WatchdogTimeout&)> on_timeout, std::function<void()> tick = {});
  /// Stops (collective; calls stop() if not yet stopped).
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  /// Stops the threads and closes the side channel. Collective; every rank must call it.
  void stop();

  struct Impl;  ///< MPI state (private)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace fabcheck::suite
