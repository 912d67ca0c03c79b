// The communicator of the NCCL stand-in (nccl_standin_init.cpp makes it, nccl_standin_ops.cpp runs calls on
// it) and the error reporting both share. Test infrastructure only (tests/standin).
#pragma once

#include <nccl.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "standin.hpp"

namespace standin::nccl {

/// One rank as the bootstrap tells everyone.
struct PeerInfo {
  std::int32_t rank;
  std::int32_t nranks;
  std::int32_t device;
  std::int32_t port;
  std::int64_t bus_id;
  char host[64];
  char ip[16];
};

/// A ncclRedOpCreatePreMulSum op: its scalar, held (host-immediate) or pointed to (device).
struct PreMul {
  ncclDataType_t dt;
  ncclScalarResidence_t residence;
  std::array<unsigned char, 8> value;
  const void* device_ptr;
};

}  // namespace standin::nccl

struct ncclComm {
  int rank = 0;
  int nranks = 0;
  int device = 0;
  std::uint64_t comm_id = 0;
  std::vector<standin::nccl::PeerInfo> peers;
  std::vector<int> fds;
  std::atomic<bool> aborted{false};
  std::atomic<int> async{ncclSuccess};
  std::atomic<long> ops{0};
  std::atomic<long> persistent_refs{0};  // calls held by CUDA graphs (enqueue_operation)
  std::optional<standin::Fault> fault;
  std::mutex mu;
  std::map<int, standin::nccl::PreMul> premul;
  int next_op = ncclNumOps;
  std::set<void*> registrations;
  void* buffers = nullptr;  // the device memory the communicator holds (NCCL: channel and proxy buffers)
};

struct ncclWindow_vidmem {
  void* buff;
  std::size_t bytes;
};

namespace standin::nccl {

/// Whether `c` is a live communicator of this process (not destroyed or aborted).
bool valid(ncclComm* c);
/// Records `msg` as NCCL's last error (ncclGetLastError), logs it as a WARN line from file:line, returns r.
ncclResult_t fail(ncclResult_t r, const char* file, int line, int device, const std::string& msg);
#define FAIL(r, dev, msg) ::standin::nccl::fail(r, __FILE__, __LINE__, dev, msg)
/// Waits until ncclCommAbort (an operation that cannot complete, as a kernel waiting on a peer).
void block_until_aborted(ncclComm* c);

}  // namespace standin::nccl
