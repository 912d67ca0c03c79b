#pragma once
/// @file The watchdog's side channel to rank 0: plain TCP connections from every rank to rank 0,
/// set up collectively by the main thread, then used by a helper thread with no MPI call at all — so MPI runs
/// at MPI_THREAD_SINGLE (as nccl-tests, IMB, OSU) and small-message figures are not inflated by
/// MPI_THREAD_MULTIPLE's locking (measured: 1.33-1.57x on 8 B). Fixed-size records; rank 0 can
/// also tell every rank to leave (an abort that needs no MPI_Abort from a second thread). Rank 0's addresses
/// are chosen as MPI's TCP data path would (side_channel_addr.hpp), so a rank whose data link is cut falls
/// silent.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fabcheck/comm/communicator.hpp"

namespace fabcheck::comm {

class SideChannel {
 public:
  /// Collective over `c` (main thread): rank 0 listens on an ephemeral TCP port of its candidate addresses,
  /// sends them with a random token by MPI_Bcast, every other rank connects (its own host: 127.0.0.1), says
  /// hello {token, rank} and waits for rank 0's ack. When any rank fails within `connect_timeout_s`, ok() is
  /// false on every rank (decided by one MPI_Allreduce) and nothing stays open.
  /// @param record_bytes the size of every record sent to rank 0
  SideChannel(const Communicator& c, std::size_t record_bytes, double connect_timeout_s = 5.0);
  /// Closes every connection (no MPI call).
  ~SideChannel();
  SideChannel(const SideChannel&) = delete;
  SideChannel& operator=(const SideChannel&) = delete;

  /// Whether every rank is connected.
  bool ok() const;
  /// Why not (on rank 0: how many ranks did not connect, the first one and its host; elsewhere this rank's
  /// reason).
  const std::string& failure() const;

  /// Rank != 0: queues one record and sends what the socket takes now (never blocks). False when the
  /// connection is gone.
  bool send_to_root(const void* record);
  /// Rank != 0: what rank 0 said: 0 nothing, 1 leave (rank 0 ended the job), 2 the connection closed,
  /// 3 a keepalive only (rank 0 is alive).
  int poll_root();

  /// Rank 0: reads what arrived (never blocks) and calls `on_record(rank, record)` per complete record and
  /// `on_closed(rank)` once per connection that closed.
  void drain(const std::function<void(int, const void*)>& on_record,
             const std::function<void(int)>& on_closed);
  /// Rank 0: tells every connected rank to leave (best effort, never blocks).
  void tell_all_to_leave();
  /// Rank 0: one keepalive byte to every connected rank (best effort, never blocks).
  void keepalive_all();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fabcheck::comm
