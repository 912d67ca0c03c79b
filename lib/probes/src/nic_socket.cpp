// TCP sockets bound to one interface, for the nics probe (nic_socket.hpp).
#include "nic_socket.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace fabcheck::probes::detail {

namespace {

constexpr std::uint32_t kMagic = 0x464e4943;  // "FNIC"
constexpr std::uint32_t kModeStream = 1, kModePingPong = 2;
constexpr int kIdleTimeout_s = 10;  // a peer that stops talking for this long is dropped

struct Header {
  std::uint32_t magic = kMagic, mode = 0;
  std::uint64_t arg = 0;
};

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool read_full(int fd, void* p, std::size_t n) {
  auto* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t k = ::recv(fd, c, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    c += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

bool write_full(int fd, const void* p, std::size_t n) {
  const auto* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t k = ::send(fd, c, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    c += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

void set_timeouts(int fd) {
  timeval tv{kIdleTimeout_s, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

sockaddr_in addr_of(const std::string& ip, int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  inet_pton(AF_INET, ip.c_str(), &a.sin_addr);
  return a;
}

// One accepted connection, served to its end.
void serve(int fd) {
  set_timeouts(fd);
  Header h;
  if (!read_full(fd, &h, sizeof h) || h.magic != kMagic) return;  // a reachability probe closes at once
  if (h.mode == kModeStream) {
    std::vector<char> buf(1 << 20);
    std::uint64_t total = 0;
    while (true) {
      const ssize_t k = ::recv(fd, buf.data(), buf.size(), 0);
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) return;
      if (k == 0) break;
      total += static_cast<std::uint64_t>(k);
    }
    write_full(fd, &total, sizeof total);
  } else if (h.mode == kModePingPong) {
    set_nodelay(fd);
    char b[8];
    for (std::uint64_t i = 0; i < h.arg; ++i)
      if (!read_full(fd, b, sizeof b) || !write_full(fd, b, sizeof b)) return;
  }
}

}  // namespace

NicServer::NicServer(std::vector<NicEnd>& nics) {
  if (::pipe(stop_pipe_) != 0) stop_pipe_[0] = stop_pipe_[1] = -1;
  for (auto& n : nics) {
    n.port = 0;
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a = addr_of(n.addr, 0);
    socklen_t len = sizeof a;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 128) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      ::close(fd);
      continue;
    }
    n.port = ntohs(a.sin_port);
    listen_fds_.push_back(fd);
  }
  thread_ = std::thread([this] { loop(); });
}

NicServer::~NicServer() {
  if (stop_pipe_[1] >= 0) {
    const char c = 0;
    [[maybe_unused]] const ssize_t k = ::write(stop_pipe_[1], &c, 1);
  }
  if (thread_.joinable()) thread_.join();
  for (int fd : listen_fds_) ::close(fd);
  for (int fd : stop_pipe_)
    if (fd >= 0) ::close(fd);
}

void NicServer::loop() {
  std::vector<pollfd> fds;
  fds.push_back({stop_pipe_[0], POLLIN, 0});
  for (int fd : listen_fds_) fds.push_back({fd, POLLIN, 0});
  while (true) {
    const int k = ::poll(fds.data(), fds.size(), -1);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 || stop_pipe_[0] < 0 || (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) return;
    for (std::size_t i = 1; i < fds.size(); ++i) {
      if (!(fds[i].revents & POLLIN)) continue;
      const int c = ::accept4(fds[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      serve(c);
      ::close(c);
    }
  }
}

ConnectResult connect_one(const NicEnd& from, const NicEnd& to, int timeout_ms) {
  return connect_all({{from, to}}, timeout_ms)[0];
}

std::vector<ConnectResult> connect_all(const std::vector<std::pair<NicEnd, NicEnd>>& pairs, int timeout_ms) {
  std::vector<ConnectResult> out(pairs.size());
  std::vector<pollfd> fds;
  std::vector<std::size_t> which;
  const double t0 = now_us();
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto& [from, to] = pairs[i];
    auto& r = out[i];
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      r.error = errno;
      continue;
    }
    // Egress through this interface only (needs CAP_NET_RAW; without it the address bind still names the
    // source, and the result says the device was not bound).
    if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, from.name.c_str(),
                   static_cast<socklen_t>(from.name.size())) != 0)
      r.bound_device = false;
    sockaddr_in src = addr_of(from.addr, 0), dst = addr_of(to.addr, to.port);
    if (to.port == 0) {
      r.error = ECONNREFUSED;
      ::close(fd);
      continue;
    }
    if (::bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src) != 0) {
      r.error = errno;
      ::close(fd);
      continue;
    }
    if (::connect(fd, reinterpret_cast<sockaddr*>(&dst), sizeof dst) != 0 && errno != EINPROGRESS) {
      r.error = errno;
      ::close(fd);
      continue;
    }
    r.fd = fd;
    fds.push_back({fd, POLLOUT, 0});
    which.push_back(i);
  }
  std::vector<bool> done(fds.size(), false);
  std::size_t left = fds.size();
  while (left > 0) {
    const double waited_ms = (now_us() - t0) / 1000.0;
    const int wait = static_cast<int>(timeout_ms - waited_ms);
    if (wait <= 0) break;
    const int k = ::poll(fds.data(), fds.size(), wait);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    for (std::size_t p = 0; p < fds.size(); ++p) {
      if (done[p] || !fds[p].revents) continue;
      done[p] = true;
      --left;
      fds[p].events = 0;
      auto& r = out[which[p]];
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(r.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        r.error = err;
        ::close(r.fd);
        r.fd = -1;
        continue;
      }
      r.connect_us = now_us() - t0;
      ::fcntl(r.fd, F_SETFL, ::fcntl(r.fd, F_GETFL) & ~O_NONBLOCK);
      set_timeouts(r.fd);
    }
  }
  for (std::size_t p = 0; p < fds.size(); ++p) {
    if (done[p]) continue;
    auto& r = out[which[p]];
    r.error = -1;
    ::close(r.fd);
    r.fd = -1;
  }
  return out;
}

std::optional<double> stream_gbps(int fd, double budget_ms, std::uint64_t max_bytes) {
  Header h;
  h.mode = kModeStream;
  if (!write_full(fd, &h, sizeof h)) return std::nullopt;
  // 128 KiB writes: a blocking send returns once its bytes are queued, so the budget overshoots by at most
  // one chunk's drain time on a slow link.
  std::vector<char> buf(128 << 10, 'n');
  std::uint64_t sent = 0;
  const double t0 = now_us();
  while (sent < max_bytes && (now_us() - t0) < budget_ms * 1000.0) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), max_bytes - sent));
    if (!write_full(fd, buf.data(), n)) return std::nullopt;
    sent += n;
  }
  ::shutdown(fd, SHUT_WR);
  std::uint64_t got = 0;
  if (!read_full(fd, &got, sizeof got) || got != sent) return std::nullopt;
  const double t_us = now_us() - t0;
  if (!(t_us > 0)) return std::nullopt;
  return static_cast<double>(sent) / (t_us * 1e-6) / 1e9;
}

std::vector<double> ping_pong_us(int fd, int warmup, int iters) {
  Header h;
  h.mode = kModePingPong;
  h.arg = static_cast<std::uint64_t>(warmup + iters);
  set_nodelay(fd);
  std::vector<double> half;
  if (!write_full(fd, &h, sizeof h)) return half;
  half.reserve(static_cast<std::size_t>(iters));
  char b[8] = {};
  for (int i = 0; i < warmup + iters; ++i) {
    const double t0 = now_us();
    if (!write_full(fd, b, sizeof b) || !read_full(fd, b, sizeof b)) return {};
    if (i >= warmup) half.push_back((now_us() - t0) / 2);
  }
  return half;
}

std::string connect_error_text(int error, int timeout_ms) {
  if (error == -1) return fmt::format("timed out after {} ms", timeout_ms);
  return fmt::format("{} (errno {})", std::strerror(error), error);
}

}  // namespace fabcheck::probes::detail
