// The NCCL stand-in's communicators: versions and error texts, the unique id and its bootstrap root, init
// (with NCCL 2.28's INFO lines for the network choice and ring connections), async error, abort and destroy,
// memory. See nccl_standin_ops.cpp for the calls. Test infrastructure only (tests/standin).
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "nccl_standin_comm.hpp"
#include "nccl_standin_log.hpp"
#include "nccl_standin_net.hpp"
#include "standin.hpp"

namespace standin::nccl {
namespace {

// As NCCL's ncclLastError (src/debug.cc): one process-wide text, the last WARN, whichever thread raised it.
std::mutex g_last_error_mu;
std::string g_last_error;
// The live communicators: a handle not in it (destroyed, aborted, never made) is an invalid argument.
std::mutex g_comms_mu;
std::set<ncclComm*>* g_comms = new std::set<ncclComm*>();

}  // namespace

bool valid(ncclComm* c) {
  std::lock_guard<std::mutex> lock(g_comms_mu);
  return c != nullptr && g_comms->count(c) != 0;
}

ncclResult_t fail(ncclResult_t r, const char* file, int line, int device, const std::string& msg) {
  {
    std::lock_guard<std::mutex> lock(g_last_error_mu);
    g_last_error = msg;
  }
  standin::log::warn(file, line, device, msg);
  return r;
}

void block_until_aborted(ncclComm* c) {
  while (!c->aborted.load()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

namespace {

int version_code() {
  if (const char* v = std::getenv("NCCL_STANDIN_VERSION"); v != nullptr && *v != '\0') return std::atoi(v);
  return NCCL_VERSION_CODE;
}

std::string version_text() {
  const int c = version_code();
  return std::to_string(c / 10000) + "." + std::to_string(c % 10000 / 100) + "." + std::to_string(c % 100) +
         "+cuda" + std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10);
}

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "%lx", static_cast<unsigned long>(v));
  return b;
}

/// The lines every process logs once before its first communicator (NCCL 2.22+: each process).
void log_banner(const standin::net::Iface& ifc) {
  static std::once_flag once;
  std::call_once(once, [&] {
    const int dev = standin::current_device();
    standin::log::info(standin::log::kBootstrap, dev, "Bootstrap: Using " + ifc.name + ":" + ifc.ip + "<0>");
    standin::log::info(standin::log::kInit, dev, "cudaDriverVersion " + std::to_string(CUDART_VERSION));
    standin::log::info(~0u, dev, "NCCL version " + version_text());  // NCCL_ALL: whatever the subsystems
  });
}

constexpr char kIdMagic[8] = {'S', 'T', 'A', 'N', 'D', 'I', 'N', '1'};

/// What the unique id holds: the bootstrap root's address and a communicator id.
struct IdPayload {
  char magic[8];
  char ip[16];
  std::int32_t port;
  std::uint64_t comm_id;
};
static_assert(sizeof(IdPayload) <= sizeof(ncclUniqueId));

// ---------- bootstrap ----------

void root_thread(int listen_fd) {
  std::vector<int> fds;
  std::vector<PeerInfo> table;
  int nranks = -1;
  while (nranks < 0 || static_cast<int>(fds.size()) < nranks) {
    const int fd = standin::net::accept_one(listen_fd);
    if (fd < 0) return;
    PeerInfo p{};
    if (!standin::net::recv_all(fd, &p, sizeof p)) {
      ::close(fd);
      continue;
    }
    nranks = p.nranks;
    if (table.empty()) table.resize(static_cast<std::size_t>(nranks));
    table[static_cast<std::size_t>(p.rank)] = p;
    fds.push_back(fd);
  }
  for (int fd : fds) {
    standin::net::send_all(fd, table.data(), table.size() * sizeof(PeerInfo));
    ::close(fd);
  }
  ::close(listen_fd);
}

ncclResult_t init_rank(ncclComm_t* out, int nranks, const ncclUniqueId& id, int rank) {
  if (out == nullptr || nranks < 1 || rank < 0 || rank >= nranks)
    return fail(ncclInvalidArgument, "init.cc", 1788, 0,
                "Invalid rank " + std::to_string(rank) + ", nranks " + std::to_string(nranks));
  IdPayload payload{};
  std::memcpy(&payload, id.internal, sizeof payload);
  const int dev = standin::current_device();
  if (std::memcmp(payload.magic, kIdMagic, sizeof kIdMagic) != 0)
    return fail(ncclInvalidArgument, "bootstrap.cc", 340, dev,
                "Invalid unique id (not from ncclGetUniqueId)");
  const standin::net::Iface ifc = standin::net::pick_interface();
  log_banner(ifc);
  auto fault = standin::fault_for(rank);
  if (fault && fault->kind == "init") {
    return fail(ncclSystemError, "misc/socket.cc", 596, dev,
                std::string("socketStartConnect: connect to ") + payload.ip + "<" +
                    std::to_string(payload.port) +
                    "> failed : Software caused connection abort (injected by STANDIN_FAULT)");
  }
  using standin::log::info;
  using standin::log::kInit;
  using standin::log::kNet;
  info(kInit | kNet, dev, "NET/Plugin: Could not find: libnccl-net.so");
  info(kInit | kNet, dev, "NET/IB : No device found.");
  info(kInit | kNet, dev, "NET/IB : Using [RO]; OOB " + ifc.name + ":" + ifc.ip + "<0>");
  info(kInit | kNet, dev, "Failed to initialize NET plugin IB");
  info(kInit | kNet, dev, "NET/Socket : Using [0]" + ifc.name + ":" + ifc.ip + "<0>");
  info(kInit | kNet, dev, "Initialized NET plugin Socket");
  info(kInit | kNet, dev, "Assigned NET plugin Socket to comm");
  info(kInit, dev, "Using network Socket");
  auto* c = new ncclComm();
  // NCCL's communicator takes device memory for its channels' buffers (nccl-tests -M shows it as
  // "Initialization"); never touched here, so it costs no host memory.
  constexpr std::size_t kCommBufferBytes = 64u << 20;
  if (standin::device_alloc(&c->buffers, kCommBufferBytes) != cudaSuccess)
    return fail(ncclUnhandledCudaError, "init.cc", 410, dev,
                "Cuda failure 'out of memory' (communicator buffers)");
  c->rank = rank;
  c->nranks = nranks;
  c->device = dev;
  c->comm_id = payload.comm_id;
  c->fault = fault;
  char cptr[32];
  std::snprintf(cptr, sizeof cptr, "%p", static_cast<void*>(c));
  const std::string head =
      std::string("ncclCommInitRankConfig comm ") + cptr + " rank " + std::to_string(rank) + " nranks " +
      std::to_string(nranks) + " cudaDev " + std::to_string(dev) + " nvmlDev " + std::to_string(dev) +
      " busId " + hex(static_cast<std::uint64_t>(standin::bus_id(dev))) + " commId 0x" + hex(payload.comm_id);
  info(kInit, dev, head + " - Init START");
  // Bootstrap: my listener for the pair connections, my record to the root, everyone's records back.
  PeerInfo me{};
  me.rank = rank;
  me.nranks = nranks;
  me.device = dev;
  me.bus_id = standin::bus_id(dev);
  std::snprintf(me.host, sizeof me.host, "%s", standin::log::host().c_str());
  std::snprintf(me.ip, sizeof me.ip, "%s", ifc.ip.c_str());
  int port = 0;
  const int lfd = standin::net::listen_on(ifc.ip, port);
  me.port = port;
  const int rfd = lfd < 0 ? -1 : standin::net::connect_to(payload.ip, payload.port, 30);
  c->peers.resize(static_cast<std::size_t>(nranks));
  if (rfd < 0 || !standin::net::send_all(rfd, &me, sizeof me) ||
      !standin::net::recv_all(rfd, c->peers.data(), c->peers.size() * sizeof(PeerInfo))) {
    return fail(ncclSystemError, "bootstrap.cc", 128, dev,
                std::string("Bootstrap : no connection to the root at ") + payload.ip + "<" +
                    std::to_string(payload.port) + ">");
  }
  ::close(rfd);
  // One connection per pair: connect to every lower rank, accept every higher one.
  c->fds.assign(static_cast<std::size_t>(nranks), -1);
  for (int p = 0; p < rank; ++p) {
    const PeerInfo& q = c->peers[static_cast<std::size_t>(p)];
    const int fd = standin::net::connect_to(q.ip, q.port, 30);
    std::int32_t r32 = rank;
    if (fd < 0 || !standin::net::send_all(fd, &r32, sizeof r32))
      return fail(
          ncclSystemError, "misc/socket.cc", 596, dev,
          std::string("socketStartConnect: connect to ") + q.ip + "<" + std::to_string(q.port) + "> failed");
    c->fds[static_cast<std::size_t>(p)] = fd;
  }
  for (int k = rank + 1; k < nranks; ++k) {
    const int fd = standin::net::accept_one(lfd);
    std::int32_t r32 = -1;
    if (fd < 0 || !standin::net::recv_all(fd, &r32, sizeof r32) || r32 <= rank || r32 >= nranks)
      return fail(ncclSystemError, "misc/socket.cc", 550, dev, "socketAccept: bootstrap connection failed");
    c->fds[static_cast<std::size_t>(r32)] = fd;
  }
  ::close(lfd);
  // The log lines NCCL prints for this communicator: nodes, the ring's connections.
  std::set<std::string> hosts;
  int local_ranks = 0, local_rank = 0;
  for (const PeerInfo& q : c->peers) {
    hosts.insert(q.host);
    if (std::string(q.host) == me.host) {
      if (q.rank < rank) ++local_rank;
      ++local_ranks;
    }
  }
  info(kInit, dev,
       std::string("comm ") + cptr + " rank " + std::to_string(rank) + " nRanks " + std::to_string(nranks) +
           " nNodes " + std::to_string(hosts.size()) + " localRanks " + std::to_string(local_ranks) +
           " localRank " + std::to_string(local_rank) + " MNNVL 0");
  if (nranks > 1) {
    const PeerInfo& next = c->peers[static_cast<std::size_t>((rank + 1) % nranks)];
    const PeerInfo& prev = c->peers[static_cast<std::size_t>((rank + nranks - 1) % nranks)];
    for (int ch = 0; ch < 2; ++ch) {
      const std::string chan = std::string(ch == 0 ? "Channel 00/0 : " : "Channel 01/0 : ");
      const auto link = [&](const PeerInfo& from, const PeerInfo& to, const char* dir) {
        const bool same = std::string(from.host) == to.host;
        const std::string ends = std::to_string(from.rank) + "[" + std::to_string(from.device) + "] -> " +
                                 std::to_string(to.rank) + "[" + std::to_string(to.device) + "]";
        info(same ? kInit | standin::log::kP2p : kInit | kNet, dev,
             chan + ends + (same ? " via P2P/CUMEM" : std::string(" [") + dir + "] via NET/Socket/0"));
      };
      link(prev, me, "receive");
      link(me, next, "send");
    }
  }
  info(kInit, dev, "Connected all rings, use ring PXN 0 GDR 0");
  info(kInit, dev, head + " - Init COMPLETE");
  {
    std::lock_guard<std::mutex> lock(g_comms_mu);
    g_comms->insert(c);
  }
  *out = c;
  return ncclSuccess;
}

}  // namespace
}  // namespace standin::nccl

using namespace standin::nccl;

extern "C" {

ncclResult_t ncclGetVersion(int* version) {
  if (version == nullptr) return ncclInvalidArgument;
  *version = version_code();
  return ncclSuccess;
}

const char* ncclGetErrorString(ncclResult_t r) {
  switch (r) {
    case ncclSuccess:
      return "no error";
    case ncclUnhandledCudaError:
      return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError:
      return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError:
      return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument:
      return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage:
      return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError:
      return "remote process exited or there was a network error";
    case ncclInProgress:
      return "NCCL operation in progress";
    default:
      return "unknown result code";
  }
}

const char* ncclGetLastError(ncclComm_t /*comm*/) {
  static thread_local std::string copy;
  std::lock_guard<std::mutex> lock(g_last_error_mu);
  copy = g_last_error;
  return copy.c_str();
}

ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  if (id == nullptr) return ncclInvalidArgument;
  const standin::net::Iface ifc = standin::net::pick_interface();
  log_banner(ifc);
  int port = 0;
  const int fd = standin::net::listen_on(ifc.ip, port);
  if (fd < 0)
    return fail(ncclSystemError, "bootstrap.cc", 210, standin::current_device(),
                "Bootstrap : cannot listen on " + ifc.ip);
  IdPayload payload{};
  std::memcpy(payload.magic, kIdMagic, sizeof kIdMagic);
  std::snprintf(payload.ip, sizeof payload.ip, "%s", ifc.ip.c_str());
  payload.port = port;
  payload.comm_id = std::random_device{}() * 0x100000001ull;
  std::memset(id->internal, 0, sizeof id->internal);
  std::memcpy(id->internal, &payload, sizeof payload);
  std::thread(root_thread, fd).detach();
  return ncclSuccess;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank,
                                    ncclConfig_t* config) {
  if (config != nullptr && (config->magic != 0xcafebeef || config->size != sizeof(ncclConfig_t)))
    return fail(ncclInvalidArgument, "init.cc", 1960, standin::current_device(),
                "ncclConfig_t not initialized with NCCL_CONFIG_INITIALIZER");
  return init_rank(comm, nranks, id, rank);
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* async) {
  if (!valid(comm) || async == nullptr) return ncclInvalidArgument;
  *async = static_cast<ncclResult_t>(comm->async.load());
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (comm == nullptr) return ncclSuccess;
  if (!valid(comm)) return ncclInvalidArgument;
  comm->aborted = true;
  standin::device_free(comm->buffers);
  comm->buffers = nullptr;
  for (int fd : comm->fds) {
    if (fd >= 0) ::shutdown(fd, SHUT_RDWR);  // peers see the connection close; our operations stop
  }
  // As NCCL's commDestroySync: no return while a CUDA graph still holds a call of this communicator (real
  // NCCL waits silently; the stand-in says why after 5 s).
  for (int waited_ms = 0; comm->persistent_refs.load() > 0; waited_ms += 10) {
    if (waited_ms == 5000) {
      standin::log::warn("init.cc", 2233, comm->device,
                         "(stand-in) ncclCommAbort/Destroy waits for " +
                             std::to_string(comm->persistent_refs.load()) +
                             " call(s) held by CUDA graphs: destroy the graphs (cudaGraphExecDestroy, "
                             "cudaGraphDestroy) first");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::lock_guard<std::mutex> lock(g_comms_mu);
  g_comms->erase(comm);  // the object itself stays: a stream worker may still be leaving an operation
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  return ncclCommAbort(comm);
}

ncclResult_t ncclMemAlloc(void** ptr, size_t size) {
  if (standin::device_alloc(ptr, size) != cudaSuccess)
    return fail(ncclUnhandledCudaError, "allocator.cc", 110, standin::current_device(),
                "Cuda failure 'out of memory'");
  return ncclSuccess;
}

ncclResult_t ncclMemFree(void* ptr) {
  return standin::device_free(ptr) == cudaSuccess ? ncclSuccess : ncclInvalidArgument;
}

}  // extern "C"
