#pragma once
/// @file The MPI communicator seen by probes (DESIGN §2, lib/comm). No MPI types appear here: the MPI handle
/// lives behind a pimpl, so probes and tests never include <mpi.h>.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace fabcheck::comm {

/// Process-wide MPI lifetime. Create exactly one, first thing in main(); destroying it finalizes MPI.
class Runtime {
 public:
  /// Initializes MPI with MPI_Init (MPI_THREAD_SINGLE, as nccl-tests, IMB and OSU): only the main thread
  /// calls MPI (the watchdog thread talks TCP, comm::SideChannel). The level provided is thread_level().
  /// @throws RuntimeFailure when MPI cannot be initialized.
  Runtime(int* argc, char*** argv);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
  /// MPI library version string (MPI_Get_library_version, first line).
  static std::string library_version();
  /// The thread level MPI provided (MPI_Query_thread): "single", "funneled", "serialized" or "multiple".
  static std::string thread_level();
  /// True between MPI_Init and MPI_Finalize.
  static bool initialized();
};

/// Waits until every rank of MPI_COMM_WORLD has called this too (MPI_Ibarrier on a communicator of its own,
/// polled), or `timeout_s` has passed. True when all arrived. For an error path that every rank takes alike:
/// a rank that never arrives costs the others `timeout_s`, never a hang. False leaves the barrier
/// outstanding: the caller must then leave without MPI_Finalize (std::_Exit), which the launcher turns into
/// the job's end.
bool all_arrive_within(double timeout_s);

/// Aborts every rank of MPI_COMM_WORLD with the given exit code (MPI_Abort). Never returns.
[[noreturn]] void abort_world(int exit_code);

/// Monotonic wall clock in microseconds (std::chrono::steady_clock). Namespaces on one machine share it.
double now_us();

/// An outstanding non-blocking operation (opaque).
class Request {
 public:
  Request();
  ~Request();
  Request(Request&&) noexcept;
  Request& operator=(Request&&) noexcept;
  struct Impl;
  std::unique_ptr<Impl> impl;  ///< MPI_Request inside
};

/// Reduction for the scalar helpers.
enum class ScalarOp { kSum, kMin, kMax };

/// A group of ranks (MPI communicator) with the host of every rank. Cheap to copy (shared handle).
class Communicator {
 public:
  /// MPI_COMM_WORLD. Collective on first call (gathers host names). Requires a live Runtime.
  static Communicator world();

  /// This process's rank in the group.
  int rank() const;
  /// Number of ranks (nranks).
  int size() const;
  /// Host name (gethostname, cut at the first '.') of every rank, indexed by rank.
  const std::vector<std::string>& hosts_of_ranks() const;
  /// This rank's host name.
  const std::string& host() const { return hosts_of_ranks()[static_cast<std::size_t>(rank())]; }
  /// Distinct hosts in order of their lowest rank.
  const std::vector<std::string>& hosts() const;
  /// Index into hosts() of a rank's host.
  int host_index(int rank) const;
  /// Ranks on each host, indexed like hosts().
  const std::vector<std::vector<int>>& ranks_by_host() const;
  /// This rank's index among the ranks of its host (0 = host leader).
  int local_rank() const;

  /// MPI_Comm_split. Ranks passing color < 0 get an empty (invalid) communicator (valid() == false).
  Communicator split(int color, int key) const;
  /// False for the result of split() with a negative color.
  bool valid() const;

  /// MPI_Barrier. @throws RuntimeFailure on MPI error.
  void barrier() const;
  /// Barrier that sleeps while it waits (MPI_Ibarrier, then MPI_Test every `poll_us` µs), so that ranks with
  /// nothing to do leave the cores to the ranks that measure. @throws RuntimeFailure on MPI error.
  void lazy_barrier(double poll_us = 200.0) const;
  /// Broadcast of a byte string from root (length first).
  void bcast(std::string& data, int root) const;
  /// Broadcast of raw bytes (same size on every rank).
  void bcast(void* data, std::size_t bytes, int root) const;
  /// Allreduce of one double.
  double allreduce(double v, ScalarOp op) const;
  /// Allreduce of one 64-bit integer.
  std::int64_t allreduce(std::int64_t v, ScalarOp op) const;
  /// Element-wise allreduce of doubles in place.
  void allreduce(std::span<double> v, ScalarOp op) const;
  /// Variable-length gather of doubles to root; on root returns one vector per rank, elsewhere empty.
  std::vector<std::vector<double>> gather(std::span<const double> mine, int root) const;
  /// Variable-length gather of strings to root; on root one per rank, elsewhere empty.
  std::vector<std::string> gather(const std::string& mine, int root) const;
  /// Allgather of one double per rank.
  std::vector<double> allgather(double v) const;

  /// Blocking send of bytes (< 2 GiB) to dest with tag.
  void send(const void* data, std::size_t bytes, int dest, int tag) const;
  /// Blocking receive of exactly `bytes` from src with tag.
  void recv(void* data, std::size_t bytes, int src, int tag) const;
  /// Combined send/receive (MPI_Sendrecv).
  void sendrecv(const void* sdata, std::size_t sbytes, int dest, void* rdata, std::size_t rbytes, int src,
                int tag) const;
  /// Non-blocking send. The buffer must stay alive until completion.
  Request isend(const void* data, std::size_t bytes, int dest, int tag) const;
  /// Non-blocking receive.
  Request irecv(void* data, std::size_t bytes, int src, int tag) const;
  /// Waits for every request (MPI_Waitall).
  static void wait_all(std::vector<Request>& reqs);
  /// Waits for one request.
  static void wait(Request& req);
  /// Tests one request without blocking; true when complete.
  static bool test(Request& req);
  /// Waits for one request, sleeping `poll_us` µs between tests (leaves the core to others while waiting).
  static void wait_lazy(Request& req, double poll_us);

  /// Opaque pointer to the MPI_Comm (for backends inside lib/comm only).
  void* native_handle() const;

  struct State;  ///< shared state (MPI_Comm and host table)

 private:
  std::shared_ptr<State> s_;
};

/// Clock alignment to rank 0 of a communicator (DESIGN §4): ping-pong offset estimate, best of `rounds`.
struct ClockAlignment {
  double to_ref_us = 0;          ///< add to this rank's now_us() to get rank 0's clock
  double error_bound_us = 0;     ///< this rank's half round trip
  double max_error_us = 0;       ///< max error bound over ranks (same on every rank)
  double max_abs_offset_us = 0;  ///< max |offset| over ranks (same on every rank)
};

/// Collective: estimates every rank's offset to rank 0. @throws RuntimeFailure on MPI error.
ClockAlignment align_clocks(const Communicator& comm, int rounds = 20);

}  // namespace fabcheck::comm
