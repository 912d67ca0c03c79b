// The watchdog's TCP side channel (see side_channel.hpp). MPI is called only in the constructor (main
// thread).
#include "fabcheck/comm/side_channel.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <mpi.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>

#include "fabcheck/comm/side_channel_addr.hpp"

namespace fabcheck::comm {
namespace {

constexpr int kMaxAddrs = 16;
constexpr char kLeave = 'L';
constexpr char kKeepalive = 'K';
/// A reporter keeps at most this many records queued while rank 0 does not read (older heartbeats say nothing
/// new).
constexpr std::size_t kMaxQueuedRecords = 16;

/// What rank 0 broadcasts: where to connect and the token that proves it is this job's rank 0.
struct Info {
  std::uint64_t token = 0;
  std::uint32_t port = 0;  // 0: rank 0 could not listen
  std::uint32_t count = 0;
  std::uint32_t addrs[kMaxAddrs] = {};
};

struct Hello {
  std::uint64_t token = 0;
  std::int32_t rank = -1;
  std::int32_t pad = 0;
};

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

void set_nonblocking(int fd) {
  const int fl = fcntl(fd, F_GETFL, 0);
  fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

std::vector<InterfaceAddress> local_ipv4() {
  std::vector<InterfaceAddress> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    const auto* sin = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    out.push_back({a->ifa_name ? a->ifa_name : "", ntohl(sin->sin_addr.s_addr)});
  }
  freeifaddrs(list);
  return out;
}

const char* env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

/// Room for `fds` more descriptors: raises the soft RLIMIT_NOFILE towards the hard one when needed.
bool make_room_for(std::size_t fds) {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return true;
  const rlim_t want = static_cast<rlim_t>(fds) + 64;
  if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? want : std::min<rlim_t>(want, rl.rlim_max);
    setrlimit(RLIMIT_NOFILE, &rl);
    getrlimit(RLIMIT_NOFILE, &rl);
  }
  return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want;
}

/// Waits until `fd` is ready for `events` or `deadline` (seconds, now_s clock) passes.
bool wait_fd(int fd, short events, double deadline) {
  while (true) {
    const double left = deadline - now_s();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, std::max(1, static_cast<int>(left * 1000)));
    if (r > 0) return (p.revents & (events | POLLERR | POLLHUP)) != 0;
    if (r < 0 && errno != EINTR) return false;
  }
}

/// One attempt: connect to addr:port, say hello, wait for the ack. Returns the connected fd or -1.
int try_connect(std::uint32_t addr, std::uint32_t port, const Hello& hello, double deadline) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  set_nonblocking(fd);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(port));
  sa.sin_addr.s_addr = htonl(addr);
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa);
  if (rc != 0 && errno != EINPROGRESS) {
    ::close(fd);
    return -1;
  }
  int err = 0;
  socklen_t len = sizeof err;
  if (rc != 0 && (!wait_fd(fd, POLLOUT, deadline) || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 ||
                  err != 0)) {
    ::close(fd);
    return -1;
  }
  if (::send(fd, &hello, sizeof hello, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof hello)) {
    ::close(fd);
    return -1;
  }
  std::uint64_t ack = 0;
  std::size_t got = 0;
  while (got < sizeof ack && wait_fd(fd, POLLIN, deadline)) {
    const ssize_t r = ::recv(fd, reinterpret_cast<char*>(&ack) + got, sizeof ack - got, 0);
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  if (got != sizeof ack || ack != hello.token) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

struct SideChannel::Impl {
  std::size_t record_bytes = 0;
  bool ok = false;
  std::string failure;
  // rank 0
  int listen_fd = -1;
  std::vector<int> fds;             // by rank (-1: none)
  std::vector<std::string> inbufs;  // by rank
  // other ranks
  int fd = -1;
  std::string outbuf;
  bool closed = false;

  void close_all() {
    if (listen_fd >= 0) ::close(listen_fd);
    listen_fd = -1;
    for (int& f : fds) {
      if (f >= 0) ::close(f);
      f = -1;
    }
    if (fd >= 0) ::close(fd);
    fd = -1;
  }

  Info listen_root(int n) {
    Info info;
    if (!make_room_for(static_cast<std::size_t>(n))) {
      failure = fmt::format("too few file descriptors for {} connections (RLIMIT_NOFILE)", n - 1);
      return info;
    }
    const auto cands = side_channel_candidates(local_ipv4(), env_or_empty("OMPI_MCA_btl_tcp_if_include"),
                                               env_or_empty("OMPI_MCA_btl_tcp_if_exclude"));
    listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t len = sizeof sa;
    if (listen_fd < 0 || ::bind(listen_fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0 ||
        ::listen(listen_fd, SOMAXCONN) != 0 ||
        getsockname(listen_fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
      failure = fmt::format("rank 0 could not listen on TCP: {}", std::strerror(errno));
      return info;
    }
    set_nonblocking(listen_fd);
    std::random_device rd;
    info.token = (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ 0x5eedULL;
    info.port = ntohs(sa.sin_port);
    for (const auto& a : cands) {
      if (info.count == kMaxAddrs) break;
      info.addrs[info.count++] = a.ipv4;
    }
    return info;
  }

  void accept_all(const Info& info, int n, double deadline) {
    fds.assign(static_cast<std::size_t>(n), -1);
    inbufs.assign(static_cast<std::size_t>(n), {});
    struct Pending {
      int fd;
      std::string buf;
    };
    std::vector<Pending> pending;
    int joined = 0;
    while (joined < n - 1 && now_s() < deadline) {
      std::vector<pollfd> p;
      p.push_back({listen_fd, POLLIN, 0});
      for (const auto& q : pending) p.push_back({q.fd, POLLIN, 0});
      const int r = ::poll(p.data(), p.size(), 20);
      if (r <= 0) continue;
      if (p[0].revents & POLLIN) {
        while (true) {
          const int c = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
          if (c < 0) break;
          const int one = 1;
          setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          pending.push_back({c, {}});
        }
      }
      for (std::size_t i = 1; i < p.size(); ++i) {
        if (!p[i].revents) continue;
        auto& q = pending[i - 1];
        char buf[sizeof(Hello)];
        const ssize_t got = ::recv(q.fd, buf, sizeof(Hello) - q.buf.size(), 0);
        if (got <= 0) {
          ::close(q.fd);
          q.fd = -1;
          continue;
        }
        q.buf.append(buf, static_cast<std::size_t>(got));
        if (q.buf.size() < sizeof(Hello)) continue;
        Hello h;
        std::memcpy(&h, q.buf.data(), sizeof h);
        if (h.token != info.token || h.rank <= 0 || h.rank >= n ||
            fds[static_cast<std::size_t>(h.rank)] >= 0 ||
            ::send(q.fd, &info.token, sizeof info.token, MSG_NOSIGNAL) != sizeof info.token) {
          ::close(q.fd);
        } else {
          fds[static_cast<std::size_t>(h.rank)] = q.fd;
          ++joined;
        }
        q.fd = -1;
      }
      std::erase_if(pending, [](const Pending& q) { return q.fd < 0; });
    }
    for (auto& q : pending) ::close(q.fd);
    ::close(listen_fd);
    listen_fd = -1;
    ok = joined == n - 1;
    if (!ok) {
      int first = -1;
      for (int r = 1; r < n && first < 0; ++r) {
        if (fds[static_cast<std::size_t>(r)] < 0) first = r;
      }
      failure = fmt::format("{} of {} ranks did not reach rank 0 over TCP (first: rank {})", n - 1 - joined,
                            n - 1, first);
    }
  }

  void connect_root(const Info& info, int rank, bool same_host, double deadline) {
    if (info.port == 0) {
      failure = "rank 0 could not listen";
      return;
    }
    Hello h;
    h.token = info.token;
    h.rank = rank;
    std::vector<std::uint32_t> order;
    if (same_host) order.push_back(0x7f000001u);  // 127.0.0.1
    for (std::uint32_t i = 0; i < info.count && i < kMaxAddrs; ++i) order.push_back(info.addrs[i]);
    for (std::uint32_t a : order) {
      const double attempt_end = std::min(deadline, now_s() + 2.0);
      fd = try_connect(a, info.port, h, attempt_end);
      if (fd >= 0) {
        ok = true;
        return;
      }
    }
    std::string tried;
    for (std::uint32_t a : order) tried += (tried.empty() ? "" : ", ") + ipv4_text(a);
    failure = fmt::format("rank {} could not reach rank 0 at port {} on {}", rank, info.port, tried);
  }
};

SideChannel::SideChannel(const Communicator& c, std::size_t record_bytes, double connect_timeout_s)
    : impl_(std::make_unique<Impl>()) {
  impl_->record_bytes = record_bytes;
  MPI_Comm base = *static_cast<MPI_Comm*>(c.native_handle());
  const int n = c.size();
  Info info;
  if (c.rank() == 0 && n > 1) info = impl_->listen_root(n);
  if (n > 1) MPI_Bcast(&info, sizeof info, MPI_BYTE, 0, base);
  const double deadline = now_s() + connect_timeout_s + 0.0005 * n;
  if (n <= 1) {
    impl_->ok = true;
  } else if (c.rank() == 0) {
    if (info.port != 0) impl_->accept_all(info, n, deadline);
  } else {
    impl_->connect_root(info, c.rank(), c.hosts_of_ranks()[0] == c.host(), deadline);
  }
  int mine = impl_->ok ? 1 : 0, all = 0;
  if (n > 1) {
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, base);
  } else {
    all = mine;
  }
  if (!all) {
    if (impl_->ok) impl_->failure = "another rank could not connect";
    impl_->ok = false;
    impl_->close_all();
  }
}

SideChannel::~SideChannel() {
  impl_->close_all();
}

bool SideChannel::ok() const {
  return impl_->ok;
}

const std::string& SideChannel::failure() const {
  return impl_->failure;
}

bool SideChannel::send_to_root(const void* record) {
  auto& m = *impl_;
  if (m.fd < 0 || m.closed) return false;
  if (m.outbuf.size() < kMaxQueuedRecords * m.record_bytes) {
    m.outbuf.append(static_cast<const char*>(record), m.record_bytes);
  }
  while (!m.outbuf.empty()) {
    const ssize_t r = ::send(m.fd, m.outbuf.data(), m.outbuf.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (r > 0) {
      m.outbuf.erase(0, static_cast<std::size_t>(r));
      continue;
    }
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
    m.closed = true;
    return false;
  }
  return true;
}

int SideChannel::poll_root() {
  auto& m = *impl_;
  if (m.fd < 0 || m.closed) return 2;
  char buf[64];
  const ssize_t r = ::recv(m.fd, buf, sizeof buf, MSG_DONTWAIT);
  if (r > 0) {
    if (std::find(buf, buf + r, kLeave) != buf + r) return 1;
    return std::find(buf, buf + r, kKeepalive) != buf + r ? 3 : 0;
  }
  if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 0;
  m.closed = true;
  return 2;
}

void SideChannel::drain(const std::function<void(int, const void*)>& on_record,
                        const std::function<void(int)>& on_closed) {
  auto& m = *impl_;
  std::vector<pollfd> p;
  std::vector<int> ranks;
  for (std::size_t r = 0; r < m.fds.size(); ++r) {
    if (m.fds[r] < 0) continue;
    p.push_back({m.fds[r], POLLIN, 0});
    ranks.push_back(static_cast<int>(r));
  }
  if (p.empty() || ::poll(p.data(), p.size(), 0) <= 0) return;
  char buf[4096];
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!p[i].revents) continue;
    const auto r = static_cast<std::size_t>(ranks[i]);
    bool gone = false;
    while (true) {
      const ssize_t got = ::recv(m.fds[r], buf, sizeof buf, MSG_DONTWAIT);
      if (got > 0) {
        m.inbufs[r].append(buf, static_cast<std::size_t>(got));
        continue;
      }
      gone = !(got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR));
      break;
    }
    std::size_t off = 0;
    for (; off + m.record_bytes <= m.inbufs[r].size(); off += m.record_bytes) {
      on_record(ranks[i], m.inbufs[r].data() + off);
    }
    m.inbufs[r].erase(0, off);
    if (gone) {
      ::close(m.fds[r]);
      m.fds[r] = -1;
      on_closed(ranks[i]);
    }
  }
}

void SideChannel::keepalive_all() {
  for (int f : impl_->fds) {
    if (f >= 0) (void)::send(f, &kKeepalive, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
  }
}

void SideChannel::tell_all_to_leave() {
  for (int f : impl_->fds) {
    if (f >= 0) (void)::send(f, &kLeave, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
  }
}

}  // namespace fabcheck::comm
