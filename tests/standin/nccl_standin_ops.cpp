// CPU stand-in of the NCCL API subset fabcheck calls, built as libnccl.so.2 over the CUDA runtime stand-in
// (standin.hpp); this file: the calls (collectives, send/recv, groups, PreMulSum ops, registration), the
// communicators are nccl_standin_init.cpp's. Test infrastructure only: it proves fabcheck's own logic on its
// NCCL path, never NCCL's performance or a GPU's semantics (tests/gpu/check.sh on real GPUs does).
//
// As NCCL: rank 0's ncclGetUniqueId starts a bootstrap root listening on the interface NCCL's Socket
// transport would choose and puts its address in the id; ncclCommInitRank(Config) connects every rank to it,
// learns every rank's host and address, and connects each pair of ranks over TCP (so ranks on different hosts
// of the virtual fabric really talk over its network). Each call is validated at enqueue (device pointers of
// the stand-in's allocations, dtype, op, root/peer) and runs on its CUDA stream's worker: NCCL's results for
// every dtype and op (nccl_standin_reduce.hpp), in rank order on every rank. ncclGroupStart/End make one
// operation of the calls between them. A failed connection sets the communicator's asynchronous error
// (ncclRemoteError when the peer closed, ncclSystemError otherwise) and, as a kernel waiting on a peer, the
// operation then never completes until ncclCommAbort. NCCL_DEBUG/NCCL_DEBUG_SUBSYS/NCCL_DEBUG_FILE give
// NCCL 2.28's INFO lines for the choice of network (Socket: no InfiniBand here), the communicator and its
// ring connections.
//
// Faults (STANDIN_FAULT=<kind>@<rank>[:<op>], rank = the communicator rank, op counted from 1 per
// communicator): init (ncclCommInitRankConfig fails with ncclSystemError), remote / system (the op's async
// error is ncclRemoteError / ncclSystemError and the op never completes), hang (the op never completes),
// corrupt (from that op on, each op's first result element is wrong, as a faulty
// device keeps corrupting). NCCL_STANDIN_VERSION=<code> makes ncclGetVersion report an
// older NCCL (e.g. 21800).
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "nccl_standin_comm.hpp"
#include "nccl_standin_net.hpp"
#include "nccl_standin_reduce.hpp"
#include "standin.hpp"

namespace standin::nccl {
namespace {

using standin::RedKind;

// ---------- operations ----------

enum class Kind { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kSend, kRecv };

struct Op {
  Kind kind;
  char* send;  // host views of the device buffers
  char* recv;
  std::size_t count;
  ncclDataType_t dt;
  RedKind red = RedKind::kSum;
  bool premul = false;
  PreMul scalar{};
  int root = 0;  // root, or the peer of a send/recv
};

/// A broken connection: the asynchronous error ncclRemoteError with the WARN line NCCL's sockets print
/// (v2.28.9 src/misc/socket.cc:71 for a closed peer, :46 for a failed call; both ncclRemoteError), then the
/// operation stays pending (a kernel waiting on a peer) until the communicator is aborted.
void connection_failed(ncclComm* c, standin::net::Outcome o, int peer) {
  if (o == standin::net::Outcome::kAborted) return;
  const PeerInfo& p = c->peers[static_cast<std::size_t>(peer)];
  const std::string port = "<" + std::to_string(p.port) + ">";
  if (o == standin::net::Outcome::kPeerClosed) {
    fail(ncclRemoteError, "misc/socket.cc", 71, c->device,
         "socketProgress: Connection closed by remote peer " + std::string(p.host) + port);
  } else {
    fail(ncclRemoteError, "misc/socket.cc", 46, c->device,
         "socketProgressOpt: Call to recv from " + std::string(p.ip) + port +
             " failed : Connection reset by peer");
  }
  c->async = ncclRemoteError;
  block_until_aborted(c);
}

/// This rank's contribution to a reduction: its input, premultiplied when the op says so.
std::vector<char> contribution(const Op& op, std::size_t elems) {
  const std::size_t bytes = elems * standin::dtype_bytes(op.dt);
  std::vector<char> mine(op.send, op.send + bytes);
  if (op.premul) {
    std::array<unsigned char, 8> s = op.scalar.value;
    if (op.scalar.residence == ncclScalarDevice) {
      if (const void* v = standin::host_view(op.scalar.device_ptr, standin::dtype_bytes(op.dt)); v != nullptr)
        std::memcpy(s.data(), v, standin::dtype_bytes(op.dt));
    }
    standin::premultiply(op.dt, mine.data(), elems, s.data());
  }
  return mine;
}

/// Runs one collective; false when a connection failed (already reported).
bool run_collective(ncclComm* c, const Op& op) {
  const int n = c->nranks, me = c->rank;
  const std::size_t b = standin::dtype_bytes(op.dt), chunk = op.count * b;
  std::vector<standin::net::Xfer> sends, recvs;
  std::vector<std::vector<char>> from(static_cast<std::size_t>(n));
  std::vector<char> mine;
  const auto reduce_into = [&](char* out, std::size_t elems) {
    std::vector<const char*> in;
    for (int p = 0; p < n; ++p)
      in.push_back(p == me ? mine.data() : from[static_cast<std::size_t>(p)].data());
    standin::reduce(op.dt, op.red, in, out, elems, n);
  };
  const auto post = [&](std::size_t bytes, bool send_all, bool recv_all, const char* what) {
    for (int p = 0; p < n; ++p) {
      if (p == me) continue;
      if (send_all) sends.push_back({p, const_cast<char*>(what), bytes});
      if (recv_all) {
        from[static_cast<std::size_t>(p)].resize(bytes);
        recvs.push_back({p, from[static_cast<std::size_t>(p)].data(), bytes});
      }
    }
  };
  int bad = -1;
  standin::net::Outcome o = standin::net::Outcome::kDone;
  switch (op.kind) {
    case Kind::kAllReduce:
      mine = contribution(op, op.count);
      post(chunk, true, true, mine.data());
      o = standin::net::exchange(c->fds, me, sends, recvs, c->aborted, bad);
      if (o == standin::net::Outcome::kDone) reduce_into(op.recv, op.count);
      break;
    case Kind::kReduce:
      mine = contribution(op, op.count);
      if (me == op.root) {
        post(chunk, false, true, nullptr);
      } else {
        sends.push_back({op.root, mine.data(), chunk});
      }
      o = standin::net::exchange(c->fds, me, sends, recvs, c->aborted, bad);
      if (o == standin::net::Outcome::kDone && me == op.root) reduce_into(op.recv, op.count);
      break;
    case Kind::kBroadcast:
      if (me == op.root) {
        mine.assign(op.send, op.send + chunk);
        post(chunk, true, false, mine.data());
      } else {
        recvs.push_back({op.root, op.recv, chunk});
      }
      o = standin::net::exchange(c->fds, me, sends, recvs, c->aborted, bad);
      if (o == standin::net::Outcome::kDone && me == op.root && chunk > 0)
        std::memcpy(op.recv, mine.data(), chunk);
      break;
    case Kind::kAllGather:
      mine.assign(op.send, op.send + chunk);
      for (int p = 0; p < n; ++p) {
        if (p == me) continue;
        sends.push_back({p, mine.data(), chunk});
        recvs.push_back({p, op.recv + static_cast<std::size_t>(p) * chunk, chunk});
      }
      o = standin::net::exchange(c->fds, me, sends, recvs, c->aborted, bad);
      if (o == standin::net::Outcome::kDone && chunk > 0)
        std::memcpy(op.recv + static_cast<std::size_t>(me) * chunk, mine.data(), chunk);
      break;
    case Kind::kReduceScatter: {
      std::vector<char> all = contribution(op, op.count * static_cast<std::size_t>(n));
      for (int p = 0; p < n; ++p) {
        if (p == me) continue;
        sends.push_back({p, all.data() + static_cast<std::size_t>(p) * chunk, chunk});
        from[static_cast<std::size_t>(p)].resize(chunk);
        recvs.push_back({p, from[static_cast<std::size_t>(p)].data(), chunk});
      }
      mine.assign(all.data() + static_cast<std::size_t>(me) * chunk,
                  all.data() + static_cast<std::size_t>(me + 1) * chunk);
      o = standin::net::exchange(c->fds, me, sends, recvs, c->aborted, bad);
      if (o == standin::net::Outcome::kDone) reduce_into(op.recv, op.count);
      break;
    }
    case Kind::kSend:
    case Kind::kRecv:
      break;
  }
  if (o != standin::net::Outcome::kDone) {
    connection_failed(c, o, bad);
    return false;
  }
  return true;
}

/// One operation (a call, or the calls of one group) on the stream's worker.
void run_operation(ncclComm* c, const std::vector<Op>& ops) {
  if (c->aborted.load()) return;
  const long n = ++c->ops;
  if (c->fault && c->fault->op == n) {
    const std::string& k = c->fault->kind;
    if (k == "hang") return block_until_aborted(c);
    if (k == "remote") {
      const PeerInfo& p = c->peers[static_cast<std::size_t>((c->rank + 1) % c->nranks)];
      fail(ncclRemoteError, "misc/socket.cc", 71, c->device,
           "socketProgress: Connection closed by remote peer " + std::string(p.host) + "<" +
               std::to_string(p.port) + "> (injected by STANDIN_FAULT)");
      c->async = ncclRemoteError;
      return block_until_aborted(c);
    }
    if (k ==
        "system") {  // a host resource failing under a lazily connected channel (src/misc/shmutils.cc:87)
      fail(ncclSystemError, "misc/shmutils.cc", 87, c->device,
           "Error: failed to extend /dev/shm/nccl-standin to 9637892 bytes, error: No space left on device "
           "(28) "
           "(injected by STANDIN_FAULT)");
      c->async = ncclSystemError;
      return block_until_aborted(c);
    }
  }
  std::vector<standin::net::Xfer> sends, recvs;
  for (const Op& op : ops) {
    const std::size_t bytes = op.count * standin::dtype_bytes(op.dt);
    if (op.kind == Kind::kSend) sends.push_back({op.root, op.send, bytes});
    if (op.kind == Kind::kRecv) recvs.push_back({op.root, op.recv, bytes});
  }
  if (!sends.empty() || !recvs.empty()) {
    int bad = -1;
    const auto o = standin::net::exchange(c->fds, c->rank, sends, recvs, c->aborted, bad);
    if (o != standin::net::Outcome::kDone) return connection_failed(c, o, bad);
  }
  for (const Op& op : ops) {
    if (op.kind != Kind::kSend && op.kind != Kind::kRecv && !run_collective(c, op)) return;
  }
  if (c->fault && c->fault->kind == "corrupt" && c->fault->op <= n) {
    for (const Op& op : ops) {
      const std::size_t b = standin::dtype_bytes(op.dt);
      if (op.kind == Kind::kSend || op.count == 0 || op.recv == nullptr) continue;
      op.recv[b - 1] = static_cast<char>(op.recv[b - 1] ^ 0x40);  // the first element's most significant byte
      break;
    }
  }
}

// ---------- groups ----------

struct Pending {
  ncclComm* comm;
  cudaStream_t stream;
  Op op;
};
thread_local int tl_group_depth = 0;
thread_local std::vector<Pending> tl_group;

/// One operation onto the stream. Captured into a graph, it holds the communicator as NCCL's persistent work
/// does (localPersistentRefs, v2.28.9 src/enqueue.cc:1542-1545), until every graph holding it is destroyed
/// (src/enqueue.cc:1336-1337); ncclCommAbort and ncclCommDestroy wait for that (src/init.cc:2232-2234).
cudaError_t enqueue_operation(ncclComm* c, cudaStream_t stream, std::vector<Op> ops) {
  if (!standin::capturing(stream)) return standin::enqueue(stream, [c, ops] { run_operation(c, ops); });
  ++c->persistent_refs;
  std::shared_ptr<void> ref(nullptr, [c](void*) { --c->persistent_refs; });
  return standin::enqueue(stream, [c, ops, ref] { run_operation(c, ops); });
}

ncclResult_t submit(ncclComm* c, cudaStream_t stream, const Op& op) {
  if (tl_group_depth > 0) {
    tl_group.push_back({c, stream, op});
    return ncclSuccess;
  }
  if (enqueue_operation(c, stream, {op}) != cudaSuccess)
    return FAIL(ncclUnhandledCudaError, c->device, "Cuda failure 'invalid resource handle' (stream)");
  return ncclSuccess;
}

/// Validates and translates a call's buffers and op; the Op is ready to submit.
ncclResult_t prepare(ncclComm* c, Op& op, const void* send, std::size_t send_elems, void* recv,
                     std::size_t recv_elems, std::optional<ncclRedOp_t> redop) {
  const std::size_t b = standin::dtype_bytes(op.dt);
  if (b == 0) return FAIL(ncclInvalidArgument, c->device, "Invalid datatype " + std::to_string(op.dt));
  if (send_elems > 0) {
    op.send = static_cast<char*>(standin::host_view(send, send_elems * b));
    if (op.send == nullptr)
      return FAIL(ncclInvalidArgument, c->device, "sendbuff is not a valid device pointer");
  }
  if (recv_elems > 0) {
    op.recv = static_cast<char*>(standin::host_view(recv, recv_elems * b));
    if (op.recv == nullptr)
      return FAIL(ncclInvalidArgument, c->device, "recvbuff is not a valid device pointer");
  }
  if (!redop) return ncclSuccess;
  const int r = static_cast<int>(*redop);
  // the built-in ops in nccl.h's order: ncclSum, ncclProd, ncclMax, ncclMin
  static_assert(ncclSum == 0 && ncclProd == 1 && ncclMax == 2 && ncclMin == 3);
  constexpr RedKind kBuiltin[] = {RedKind::kSum, RedKind::kProd, RedKind::kMax, RedKind::kMin};
  if (r >= ncclSum && r <= ncclMin) {
    op.red = kBuiltin[r];
    return ncclSuccess;
  }
  switch (r) {
    case ncclAvg:
      if (standin::is_floating(op.dt)) {
        op.red = RedKind::kSum;
        op.premul = true;
        op.scalar.residence = ncclScalarHostImmediate;
        standin::inverse_scalar(op.dt, c->nranks, op.scalar.value.data());
      } else {
        op.red = RedKind::kSumPostDiv;
      }
      return ncclSuccess;
    default: {
      std::lock_guard<std::mutex> lock(c->mu);
      const auto it = c->premul.find(r);
      if (it == c->premul.end())
        return FAIL(ncclInvalidArgument, c->device, "Invalid reduction operation " + std::to_string(r));
      if (it->second.dt != op.dt)
        return FAIL(ncclInvalidArgument, c->device, "PreMulSum op created for another datatype");
      op.red = RedKind::kSum;
      op.premul = true;
      op.scalar = it->second;
      return ncclSuccess;
    }
  }
}

/// Every collective and send/recv: checked as NCCL checks the call, then enqueued (or added to the open
/// group). `root` is the root of reduce/broadcast and the peer of send/recv; `redop` is set for reducing
/// calls.
ncclResult_t enqueue_call(Kind kind, const void* send, void* recv, std::size_t count, ncclDataType_t dt,
                          std::optional<ncclRedOp_t> redop, int root, ncclComm* c, cudaStream_t stream) {
  if (!valid(c)) return fail(ncclInvalidArgument, "enqueue.cc", 2001, 0, "Invalid communicator");
  if (c->aborted.load()) return FAIL(ncclInvalidUsage, c->device, "communicator was aborted");
  const bool p2p = kind == Kind::kSend || kind == Kind::kRecv;
  if ((p2p || kind == Kind::kReduce || kind == Kind::kBroadcast) && (root < 0 || root >= c->nranks)) {
    return FAIL(ncclInvalidArgument, c->device,
                std::string("Invalid ") + (p2p ? "peer " : "root ") + std::to_string(root) + ", nranks " +
                    std::to_string(c->nranks));
  }
  const std::size_t all = count * static_cast<std::size_t>(c->nranks);
  const bool is_root = c->rank == root;
  std::size_t send_elems = count, recv_elems = count;
  switch (kind) {
    case Kind::kAllGather:
      recv_elems = all;
      break;
    case Kind::kReduceScatter:
      send_elems = all;
      break;
    case Kind::kReduce:
      recv_elems = is_root ? count : 0;
      break;
    case Kind::kBroadcast:
      send_elems = is_root ? count : 0;
      break;
    case Kind::kSend:
      recv_elems = 0;
      break;
    case Kind::kRecv:
      send_elems = 0;
      break;
    case Kind::kAllReduce:
      break;
  }
  // NCCL refuses fp8 reductions below sm90 (v2.28.9 src/enqueue.cc:2557-2560; empty calls are discarded
  // first)
  const bool fp8 = dt == ncclFloat8e4m3 || dt == ncclFloat8e5m2;
  if (fp8 && count > 0 &&
      (kind == Kind::kAllReduce || kind == Kind::kReduce || kind == Kind::kReduceScatter)) {
    int major = 0;
    (void)cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, c->device);
    if (major < 9)
      return FAIL(ncclInvalidArgument, c->device, "FP8 reduction support begins with sm90 capable devices.");
  }
  Op o{kind, nullptr, nullptr, count, dt};
  o.root = root;
  if (const ncclResult_t r = prepare(c, o, send, send_elems, recv, recv_elems, redop); r != ncclSuccess)
    return r;
  return submit(c, stream, o);
}

}  // namespace
}  // namespace standin::nccl

using namespace standin::nccl;

extern "C" {

ncclResult_t ncclCommRegister(const ncclComm_t comm, void* buff, size_t size, void** handle) {
  if (!valid(comm) || handle == nullptr) return ncclInvalidArgument;
  if (standin::host_view(buff, size) == nullptr)
    return FAIL(ncclInvalidArgument, comm->device, "ncclCommRegister: buffer is not device memory");
  auto* h = new ncclWindow_vidmem{buff, size};
  std::lock_guard<std::mutex> lock(comm->mu);
  comm->registrations.insert(h);
  *handle = h;
  return ncclSuccess;
}

ncclResult_t ncclCommDeregister(const ncclComm_t comm, void* handle) {
  if (!valid(comm)) return ncclInvalidArgument;
  std::lock_guard<std::mutex> lock(comm->mu);
  if (comm->registrations.erase(handle) == 0) return ncclInvalidArgument;
  delete static_cast<ncclWindow_vidmem*>(handle);
  return ncclSuccess;
}

ncclResult_t ncclCommWindowRegister(ncclComm_t comm, void* buff, size_t size, ncclWindow_t* win,
                                    int /*flags*/) {
  if (!valid(comm) || win == nullptr) return ncclInvalidArgument;
  if (reinterpret_cast<std::uintptr_t>(buff) % NCCL_WIN_REQUIRED_ALIGNMENT != 0)
    return FAIL(ncclInvalidArgument, comm->device,
                "ncclCommWindowRegister: buffer not aligned to NCCL_WIN_REQUIRED_ALIGNMENT");
  void* h = nullptr;
  if (const ncclResult_t r = ncclCommRegister(comm, buff, size, &h); r != ncclSuccess) return r;
  *win = static_cast<ncclWindow_t>(h);
  return ncclSuccess;
}

ncclResult_t ncclCommWindowDeregister(ncclComm_t comm, ncclWindow_t win) {
  return ncclCommDeregister(comm, win);
}

ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t* op, void* scalar, ncclDataType_t datatype,
                                      ncclScalarResidence_t residence, ncclComm_t comm) {
  if (!valid(comm) || op == nullptr || scalar == nullptr || standin::dtype_bytes(datatype) == 0)
    return ncclInvalidArgument;
  PreMul pm{datatype, residence, {}, nullptr};
  if (residence == ncclScalarHostImmediate) {
    std::memcpy(pm.value.data(), scalar, standin::dtype_bytes(datatype));
  } else {
    pm.device_ptr = scalar;
  }
  std::lock_guard<std::mutex> lock(comm->mu);
  const int id = comm->next_op++;
  comm->premul[id] = pm;
  *op = static_cast<ncclRedOp_t>(id);
  return ncclSuccess;
}

ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm) {
  if (!valid(comm)) return ncclInvalidArgument;
  std::lock_guard<std::mutex> lock(comm->mu);
  // enqueued calls copied the scalar: the op may go at once (NCCL keeps it alive for them)
  return comm->premul.erase(static_cast<int>(op)) != 0 ? ncclSuccess : ncclInvalidArgument;
}

ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  return enqueue_call(Kind::kAllReduce, sendbuff, recvbuff, count, datatype, op, 0, comm, stream);
}

ncclResult_t ncclReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                        ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream) {
  return enqueue_call(Kind::kReduce, sendbuff, recvbuff, count, datatype, op, root, comm, stream);
}

ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
                           int root, ncclComm_t comm, cudaStream_t stream) {
  return enqueue_call(Kind::kBroadcast, sendbuff, recvbuff, count, datatype, std::nullopt, root, comm,
                      stream);
}

ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream) {
  return enqueue_call(Kind::kAllGather, sendbuff, recvbuff, sendcount, datatype, std::nullopt, 0, comm,
                      stream);
}

ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                               ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t stream) {
  return enqueue_call(Kind::kReduceScatter, sendbuff, recvbuff, recvcount, datatype, op, 0, comm, stream);
}

ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  return enqueue_call(Kind::kSend, sendbuff, nullptr, count, datatype, std::nullopt, peer, comm, stream);
}

ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  return enqueue_call(Kind::kRecv, nullptr, recvbuff, count, datatype, std::nullopt, peer, comm, stream);
}

ncclResult_t ncclGroupStart() {
  ++tl_group_depth;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd() {
  if (tl_group_depth == 0)
    return fail(ncclInvalidUsage, "group.cc", 520, standin::current_device(), "ncclGroupEnd: not in a group");
  if (--tl_group_depth > 0) return ncclSuccess;
  std::vector<Pending> group;
  group.swap(tl_group);
  // One operation per communicator, on the stream of its first call.
  std::vector<ncclComm*> order;
  for (const Pending& p : group) {
    if (std::find(order.begin(), order.end(), p.comm) == order.end()) order.push_back(p.comm);
  }
  for (ncclComm* c : order) {
    std::vector<Op> ops;
    cudaStream_t stream = nullptr;
    bool first = true;
    for (const Pending& p : group) {
      if (p.comm != c) continue;
      if (first) stream = p.stream;
      first = false;
      ops.push_back(p.op);
    }
    if (enqueue_operation(c, stream, std::move(ops)) != cudaSuccess)
      return FAIL(ncclUnhandledCudaError, c->device, "Cuda failure 'invalid resource handle' (stream)");
  }
  return ncclSuccess;
}

}  // extern "C"
