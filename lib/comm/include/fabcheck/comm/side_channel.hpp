#pragma once
/// @file A side channel to rank 0 on a duplicated communicator (issue 16: the watchdog's MPI part lives in
/// lib/comm, so lib/suite includes no <mpi.h>). Fixed-size messages, sent from a helper thread while the main
/// thread runs collectives: usable only when MPI granted MPI_THREAD_MULTIPLE (thread_multiple()).
#include <cstddef>
#include <memory>

#include "fabcheck/comm/communicator.hpp"

namespace fabcheck::comm {

/// Whether MPI granted MPI_THREAD_MULTIPLE (MPI_Query_thread).
bool thread_multiple();

class SideChannel {
 public:
  /// Duplicates `c` (collective over it); errors on the duplicate return instead of aborting.
  explicit SideChannel(const Communicator& c);
  /// Cancels a pending receive and frees the duplicate.
  ~SideChannel();
  SideChannel(const SideChannel&) = delete;
  SideChannel& operator=(const SideChannel&) = delete;

  /// Sends `bytes` bytes to rank 0 (blocking until MPI has taken the buffer).
  void send_to_root(const void* data, std::size_t bytes) const;
  /// Rank 0: posts one receive of `bytes` bytes from any rank into `buf` (which must outlive it).
  void post_receive(void* buf, std::size_t bytes);
  /// Whether a posted receive has not completed yet.
  bool pending() const;
  /// Tests the posted receive: true (and its sender in `source`) when it completed; then nothing is pending.
  bool test(int& source);
  /// Cancels the posted receive, if any.
  void cancel();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fabcheck::comm
