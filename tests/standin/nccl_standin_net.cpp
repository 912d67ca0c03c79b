#include "nccl_standin_net.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <sstream>
#include <thread>

namespace standin::net {
namespace {

bool matches(const std::string& name, const std::string& spec) {
  std::string s = spec;
  const bool exclude = !s.empty() && s[0] == '^';
  if (exclude) s.erase(0, 1);
  const bool exact = !s.empty() && s[0] == '=';
  if (exact) s.erase(0, 1);
  bool hit = false;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) {
    if (exact ? name == item : name.rfind(item, 0) == 0) hit = true;
  }
  return exclude ? !hit : hit;
}

}  // namespace

Iface pick_interface() {
  const char* spec = std::getenv("NCCL_SOCKET_IFNAME");
  ifaddrs* list = nullptr;
  Iface lo{"lo", "127.0.0.1"};
  if (::getifaddrs(&list) != 0) return lo;
  Iface found;
  for (ifaddrs* a = list; a != nullptr && found.name.empty(); a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET || (a->ifa_flags & IFF_UP) == 0) continue;
    const std::string name = a->ifa_name;
    if (spec != nullptr && *spec != '\0') {
      if (!matches(name, spec)) continue;
    } else if ((a->ifa_flags & IFF_LOOPBACK) != 0 || name.rfind("docker", 0) == 0) {
      continue;
    }
    char ip[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, ip, sizeof ip);
    found = Iface{name, ip};
  }
  ::freeifaddrs(list);
  return found.name.empty() ? lo : found;
}

int listen_on(const std::string& ip, int& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  ::inet_pton(AF_INET, ip.c_str(), &sa.sin_addr);
  socklen_t len = sizeof sa;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd, 256) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
    ::close(fd);
    return -1;
  }
  port = ntohs(sa.sin_port);
  return fd;
}

int connect_to(const std::string& ip, int port, int timeout_s) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (true) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, ip.c_str(), &sa.sin_addr);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0) {
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return fd;
    }
    ::close(fd);
    if (std::chrono::steady_clock::now() > until) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

int accept_one(int listen_fd) {
  while (true) {
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) {
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return fd;
    }
    if (errno != EINTR) return -1;
  }
}

bool send_all(int fd, const void* p, std::size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t k = ::send(fd, c, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    c += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

bool recv_all(int fd, void* p, std::size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t k = ::recv(fd, c, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    c += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

Outcome exchange(const std::vector<int>& fds, int self, std::vector<Xfer> sends, std::vector<Xfer> recvs,
                 const std::atomic<bool>& aborted, int& failed_peer) {
  // Sends to self land in the receives from self, in order.
  std::deque<Xfer> self_send, self_recv;
  std::vector<std::deque<Xfer>> out(fds.size()), in(fds.size());
  for (const Xfer& x : sends) {
    if (x.bytes > 0) (x.peer == self ? self_send : out[static_cast<std::size_t>(x.peer)]).push_back(x);
  }
  for (const Xfer& x : recvs) {
    if (x.bytes > 0) (x.peer == self ? self_recv : in[static_cast<std::size_t>(x.peer)]).push_back(x);
  }
  while (!self_send.empty() && !self_recv.empty()) {
    Xfer& s = self_send.front();
    Xfer& r = self_recv.front();
    const std::size_t n = std::min(s.bytes, r.bytes);
    std::memcpy(r.ptr, s.ptr, n);
    s.ptr += n, s.bytes -= n, r.ptr += n, r.bytes -= n;
    if (s.bytes == 0) self_send.pop_front();
    if (r.bytes == 0) self_recv.pop_front();
  }
  while (true) {
    if (aborted.load()) return Outcome::kAborted;
    std::vector<pollfd> pfds;
    std::vector<int> peers;
    for (std::size_t p = 0; p < fds.size(); ++p) {
      short ev = 0;
      if (!out[p].empty()) ev |= POLLOUT;
      if (!in[p].empty()) ev |= POLLIN;
      if (ev == 0) continue;
      pfds.push_back(pollfd{fds[p], ev, 0});
      peers.push_back(static_cast<int>(p));
    }
    if (pfds.empty()) return Outcome::kDone;
    const int n = ::poll(pfds.data(), pfds.size(), 100);
    if (n < 0 && errno != EINTR) return Outcome::kSocketError;
    for (std::size_t i = 0; n > 0 && i < pfds.size(); ++i) {
      const auto p = static_cast<std::size_t>(peers[i]);
      if ((pfds[i].revents & POLLIN) != 0 || (pfds[i].revents & (POLLHUP | POLLERR)) != 0) {
        if (!in[p].empty()) {
          Xfer& r = in[p].front();
          const ssize_t k = ::recv(fds[p], r.ptr, r.bytes, MSG_DONTWAIT);
          if (k == 0) {
            failed_peer = peers[i];
            return Outcome::kPeerClosed;
          }
          if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            failed_peer = peers[i];
            return Outcome::kSocketError;
          }
          if (k > 0) {
            r.ptr += k, r.bytes -= static_cast<std::size_t>(k);
            if (r.bytes == 0) in[p].pop_front();
          }
        }
      }
      if ((pfds[i].revents & POLLOUT) != 0 && !out[p].empty()) {
        Xfer& s = out[p].front();
        const ssize_t k = ::send(fds[p], s.ptr, s.bytes, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
          failed_peer = peers[i];
          return errno == EPIPE || errno == ECONNRESET ? Outcome::kPeerClosed : Outcome::kSocketError;
        }
        if (k > 0) {
          s.ptr += k, s.bytes -= static_cast<std::size_t>(k);
          if (s.bytes == 0) out[p].pop_front();
        }
      }
    }
  }
}

}  // namespace standin::net
