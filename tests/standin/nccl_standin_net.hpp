// TCP transport of the NCCL stand-in: the interface NCCL's Socket transport would pick, a bootstrap through
// the address in the unique id (as NCCL's bootstrap root), one connection per rank pair, and a progress loop
// that moves every send and receive of an operation at once (no ordering deadlock) and stops on abort.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

namespace standin::net {

struct Iface {
  std::string name;  // eth0
  std::string ip;    // dotted IPv4
};
/// NCCL_SOCKET_IFNAME (prefixes, `^` excludes, `=` exact), else the first up, non-loopback IPv4 interface
/// (NCCL's default order skips lo and docker*), else lo.
Iface pick_interface();

/// A listening socket on ip, ephemeral port; -1 on failure.
int listen_on(const std::string& ip, int& port);
/// A connected socket, retried for up to `timeout_s`; -1 on failure.
int connect_to(const std::string& ip, int port, int timeout_s);
int accept_one(int listen_fd);
bool send_all(int fd, const void* p, std::size_t n);
bool recv_all(int fd, void* p, std::size_t n);

struct Xfer {
  int peer;
  char* ptr;
  std::size_t bytes;
};
enum class Outcome { kDone, kAborted, kPeerClosed, kSocketError };
/// Moves every send and receive (in order per peer) until all are done, the abort flag is set, or a peer's
/// connection fails (`failed_peer`). fds[peer] is the connection to that peer (fds[self] unused: sends to
/// self are copied into receives from self in order).
Outcome exchange(const std::vector<int>& fds, int self, std::vector<Xfer> sends, std::vector<Xfer> recvs,
                 const std::atomic<bool>& aborted, int& failed_peer);

}  // namespace standin::net
