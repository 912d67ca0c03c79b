#pragma once
// Private to lib/probes: TCP sockets bound to one interface, for the nics probe. A NicServer
// listens on every data NIC of this host in its own thread (no MPI calls there) and answers three requests:
// a probe (connect, close), a stream (count the bytes to EOF, send the count back) and a ping-pong of 8 B.
// The client side connects from a given interface (SO_BINDTODEVICE + bind to its address), so that the
// kernel cannot route around the NIC under test, as an RDMA queue pair bound to a device cannot.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace fabcheck::probes::detail {

/// One end of a measurement: interface name and IPv4 address.
struct NicEnd {
  std::string name, addr;
  int port = 0;  // server side: the listening port
};

class NicServer {
 public:
  /// Listens on every `nics` address (port chosen by the kernel; NicEnd::port filled). A NIC whose listener
  /// cannot be made keeps port 0 (its connections then fail). Starts the thread.
  explicit NicServer(std::vector<NicEnd>& nics);
  ~NicServer();  // stops and joins
  NicServer(const NicServer&) = delete;
  NicServer& operator=(const NicServer&) = delete;

 private:
  void loop();
  std::vector<int> listen_fds_;
  int stop_pipe_[2] = {-1, -1};
  std::thread thread_;
};

/// Outcome of a connection attempt.
struct ConnectResult {
  int fd = -1;               // connected socket (caller closes), -1 on failure
  int error = 0;             // errno, or -1 for a timeout
  double connect_us = 0;     // time to connect
  bool bound_device = true;  // SO_BINDTODEVICE took (false: not permitted; bound to the address only)
};

/// Starts non-blocking connects for every (from, to) pair at once and waits at most timeout_ms for all.
std::vector<ConnectResult> connect_all(const std::vector<std::pair<NicEnd, NicEnd>>& pairs, int timeout_ms);

/// One connection from `from` to `to` (connect_all of one pair).
ConnectResult connect_one(const NicEnd& from, const NicEnd& to, int timeout_ms);

/// Streams from a connected socket for budget_ms or max_bytes, whichever first, then waits for the server's
/// byte count; returns GB/s (1e9 B/s) over the time to that count, or nullopt on an error.
std::optional<double> stream_gbps(int fd, double budget_ms, std::uint64_t max_bytes);

/// 8 B round trips; returns the half round trips in µs (empty on an error).
std::vector<double> ping_pong_us(int fd, int warmup, int iters);

/// Text of ConnectResult::error ("timed out after 1000 ms", strerror otherwise).
std::string connect_error_text(int error, int timeout_ms);

}  // namespace fabcheck::probes::detail
