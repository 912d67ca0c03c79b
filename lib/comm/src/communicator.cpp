#include "fabcheck/comm/communicator.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <map>
#include <thread>

#include "fabcheck/comm/heap_policy.hpp"
#include "fabcheck/comm/phase.hpp"
#include "fabcheck/core/clock.hpp"
#include "fabcheck/core/error.hpp"
#include "mpi_state.hpp"

namespace fabcheck::comm {

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw RuntimeFailure(fmt::format("{} failed: {}", what, std::string(msg, static_cast<std::size_t>(len))));
}

namespace {
// A communicator of its own for the error path's agreement (all_arrive_within): on MPI_COMM_WORLD its barrier
// could match a barrier the other ranks are in (comm::Communicator's lazy_barrier is one), and let them run
// on.
MPI_Comm g_error_comm = MPI_COMM_NULL;
}  // namespace

Runtime::Runtime(int* argc, char*** argv) {
  // MPI_Init, as nccl-tests, IMB and OSU initialise MPI (MPI_THREAD_SINGLE unless OMPI_MPI_THREAD_LEVEL says
  // otherwise). Helper threads exist (the watchdog's, NCCL's) but never call MPI. Not FUNNELED, although that
  // is the standard's name for "threads, MPI from the main one only": Open MPI 4.x turns its internal locks
  // on for any level above SINGLE (ompi/runtime/ompi_mpi_init.c: `if (*provided != MPI_THREAD_SINGLE)
  // opal_set_using_threads(true)`; 5.x only for MULTIPLE), which slows every small message.
  keep_freed_memory();  // before MPI_Init: MPI's own allocations follow the same policy
  int rc = MPI_Init(argc, argv);
  if (rc != MPI_SUCCESS) throw RuntimeFailure("MPI_Init failed");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  set_phase_rank(world_rank);
  MPI_Comm_dup(MPI_COMM_WORLD, &g_error_comm);
}

Runtime::~Runtime() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

std::string Runtime::library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(buf, &len);
  std::string s(buf, static_cast<std::size_t>(len));
  auto nl = s.find_first_of("\r\n,");
  if (nl != std::string::npos) s.resize(nl);
  return s;
}

std::string Runtime::thread_level() {
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  switch (provided) {
    case MPI_THREAD_SINGLE:
      return "single";
    case MPI_THREAD_FUNNELED:
      return "funneled";
    case MPI_THREAD_SERIALIZED:
      return "serialized";
    default:
      return "multiple";
  }
}

bool Runtime::initialized() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}

bool all_arrive_within(double timeout_s) {
  if (!Runtime::initialized() || g_error_comm == MPI_COMM_NULL) return false;
  MPI_Request req = MPI_REQUEST_NULL;
  if (MPI_Ibarrier(g_error_comm, &req) != MPI_SUCCESS) return false;
  const double deadline_us = now_us() + timeout_s * 1e6;
  for (;;) {
    int done = 0;
    if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
    if (done) return true;
    if (now_us() > deadline_us) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void abort_world(int exit_code) {
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);
}

double now_us() {
  using namespace std::chrono;
  return static_cast<double>(duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count()) /
         1000.0;
}

Request::Request() : impl(std::make_unique<Impl>()) {}
Request::~Request() = default;
Request::Request(Request&&) noexcept = default;
Request& Request::operator=(Request&&) noexcept = default;

Communicator::State::~State() {
  if (owned && comm != MPI_COMM_NULL && Runtime::initialized()) MPI_Comm_free(&comm);
}

namespace {

std::string local_hostname() {
  char buf[256] = {0};
  gethostname(buf, sizeof(buf) - 1);
  std::string h(buf);
  auto dot = h.find('.');
  if (dot != std::string::npos) h.resize(dot);
  return h;
}

std::shared_ptr<Communicator::State> make_state(MPI_Comm c, bool owned) {
  auto s = std::make_shared<Communicator::State>();
  s->comm = c;
  s->owned = owned;
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  MPI_Comm_rank(c, &s->rank);
  MPI_Comm_size(c, &s->size);
  constexpr int kLen = 256;
  std::string mine = local_hostname();
  std::vector<char> all(static_cast<std::size_t>(kLen) * static_cast<std::size_t>(s->size), 0);
  char buf[kLen] = {0};
  std::strncpy(buf, mine.c_str(), kLen - 1);
  check_mpi(MPI_Allgather(buf, kLen, MPI_CHAR, all.data(), kLen, MPI_CHAR, c), "MPI_Allgather(hostnames)");
  std::map<std::string, int> index;
  for (int r = 0; r < s->size; ++r) {
    std::string h(all.data() + static_cast<std::size_t>(r) * kLen);
    s->host_of_rank.push_back(h);
    auto it = index.find(h);
    if (it == index.end()) {
      it = index.emplace(h, static_cast<int>(s->hosts.size())).first;
      s->hosts.push_back(h);
      s->ranks_by_host.emplace_back();
    }
    s->host_idx.push_back(it->second);
    s->ranks_by_host[static_cast<std::size_t>(it->second)].push_back(r);
  }
  const auto& mine_ranks =
      s->ranks_by_host[static_cast<std::size_t>(s->host_idx[static_cast<std::size_t>(s->rank)])];
  s->local_rank =
      static_cast<int>(std::find(mine_ranks.begin(), mine_ranks.end(), s->rank) - mine_ranks.begin());
  return s;
}

int to_int_bytes(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(INT_MAX))
    throw RuntimeFailure("message larger than 2 GiB in one MPI call");
  return static_cast<int>(bytes);
}

/// The variable-length gather behind both Communicator::gather overloads: each rank's count (MPI_Gather),
/// then the elements (MPI_Gatherv); on root, `each(block, n)` per rank in rank order.
template <class T, class Each>
void gather_blocks(MPI_Comm comm, int rank, int size, const T* mine, int n, MPI_Datatype type, int root,
                   Each&& each) {
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  check_mpi(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm), "MPI_Gather(counts)");
  std::vector<T> flat;
  if (rank == root) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      displs[static_cast<std::size_t>(r)] = total;
      total += counts[static_cast<std::size_t>(r)];
    }
    flat.resize(static_cast<std::size_t>(total) + 1);  // one spare: a buffer even when every block is empty
  }
  check_mpi(MPI_Gatherv(mine, n, type, flat.data(), counts.data(), displs.data(), type, root, comm),
            "MPI_Gatherv");
  if (rank != root) return;
  for (int r = 0; r < size; ++r) {
    each(flat.data() + displs[static_cast<std::size_t>(r)],
         static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]));
  }
}

MPI_Op to_mpi(ScalarOp op) {
  switch (op) {
    case ScalarOp::kSum:
      return MPI_SUM;
    case ScalarOp::kMin:
      return MPI_MIN;
    case ScalarOp::kMax:
      return MPI_MAX;
  }
  return MPI_SUM;
}

}  // namespace

Communicator Communicator::world() {
  static std::shared_ptr<State> world_state;
  if (!world_state) world_state = make_state(MPI_COMM_WORLD, false);
  Communicator c;
  c.s_ = world_state;
  return c;
}

int Communicator::rank() const {
  return s_->rank;
}
int Communicator::size() const {
  return s_->size;
}
const std::vector<std::string>& Communicator::hosts_of_ranks() const {
  return s_->host_of_rank;
}
const std::vector<std::string>& Communicator::hosts() const {
  return s_->hosts;
}
int Communicator::host_index(int r) const {
  return s_->host_idx.at(static_cast<std::size_t>(r));
}
const std::vector<std::vector<int>>& Communicator::ranks_by_host() const {
  return s_->ranks_by_host;
}
int Communicator::local_rank() const {
  return s_->local_rank;
}
bool Communicator::valid() const {
  return s_ && s_->comm != MPI_COMM_NULL;
}
void* Communicator::native_handle() const {
  return &s_->comm;
}

Communicator Communicator::split(int color, int key) const {
  MPI_Comm out = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split(s_->comm, color < 0 ? MPI_UNDEFINED : color, key, &out), "MPI_Comm_split");
  Communicator c;
  if (out == MPI_COMM_NULL) {
    c.s_ = std::make_shared<State>();
    return c;
  }
  c.s_ = make_state(out, true);
  return c;
}

void Communicator::barrier() const {
  check_mpi(MPI_Barrier(s_->comm), "MPI_Barrier");
}

void Communicator::lazy_barrier(double poll_us) const {
  MPI_Request req = MPI_REQUEST_NULL;
  check_mpi(MPI_Ibarrier(s_->comm, &req), "MPI_Ibarrier");
  int flag = 0;
  for (;;) {
    check_mpi(MPI_Test(&req, &flag, MPI_STATUS_IGNORE), "MPI_Test(Ibarrier)");
    if (flag) return;
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<std::int64_t>(poll_us)));
  }
}

void Communicator::bcast(std::string& data, int root) const {
  std::uint64_t len = data.size();
  check_mpi(MPI_Bcast(&len, 1, MPI_UINT64_T, root, s_->comm), "MPI_Bcast(len)");
  data.resize(len);
  if (len > 0) check_mpi(MPI_Bcast(data.data(), to_int_bytes(len), MPI_CHAR, root, s_->comm), "MPI_Bcast");
}

void Communicator::bcast(void* data, std::size_t bytes, int root) const {
  check_mpi(MPI_Bcast(data, to_int_bytes(bytes), MPI_BYTE, root, s_->comm), "MPI_Bcast");
}

double Communicator::allreduce(double v, ScalarOp op) const {
  double out = 0;
  check_mpi(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, to_mpi(op), s_->comm), "MPI_Allreduce");
  return out;
}

std::int64_t Communicator::allreduce(std::int64_t v, ScalarOp op) const {
  std::int64_t out = 0;
  check_mpi(MPI_Allreduce(&v, &out, 1, MPI_INT64_T, to_mpi(op), s_->comm), "MPI_Allreduce");
  return out;
}

void Communicator::allreduce(std::span<double> v, ScalarOp op) const {
  check_mpi(
      MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_DOUBLE, to_mpi(op), s_->comm),
      "MPI_Allreduce");
}

std::vector<std::vector<double>> Communicator::gather(std::span<const double> mine, int root) const {
  std::vector<std::vector<double>> out;
  gather_blocks(s_->comm, s_->rank, s_->size, mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, root,
                [&](const double* block, std::size_t n) { out.emplace_back(block, block + n); });
  return out;
}

std::vector<std::string> Communicator::gather(const std::string& mine, int root) const {
  std::vector<std::string> out;
  gather_blocks(s_->comm, s_->rank, s_->size, mine.data(), to_int_bytes(mine.size()), MPI_CHAR, root,
                [&](const char* block, std::size_t n) { out.emplace_back(block, n); });
  return out;
}

std::vector<double> Communicator::allgather(double v) const {
  std::vector<double> out(static_cast<std::size_t>(s_->size));
  check_mpi(MPI_Allgather(&v, 1, MPI_DOUBLE, out.data(), 1, MPI_DOUBLE, s_->comm), "MPI_Allgather");
  return out;
}

void Communicator::send(const void* data, std::size_t bytes, int dest, int tag) const {
  check_mpi(MPI_Send(data, to_int_bytes(bytes), MPI_BYTE, dest, tag, s_->comm), "MPI_Send");
}

void Communicator::recv(void* data, std::size_t bytes, int src, int tag) const {
  check_mpi(MPI_Recv(data, to_int_bytes(bytes), MPI_BYTE, src, tag, s_->comm, MPI_STATUS_IGNORE), "MPI_Recv");
}

void Communicator::sendrecv(const void* sdata, std::size_t sbytes, int dest, void* rdata, std::size_t rbytes,
                            int src, int tag) const {
  check_mpi(MPI_Sendrecv(sdata, to_int_bytes(sbytes), MPI_BYTE, dest, tag, rdata, to_int_bytes(rbytes),
                         MPI_BYTE, src, tag, s_->comm, MPI_STATUS_IGNORE),
            "MPI_Sendrecv");
}

Request Communicator::isend(const void* data, std::size_t bytes, int dest, int tag) const {
  Request r;
  check_mpi(MPI_Isend(data, to_int_bytes(bytes), MPI_BYTE, dest, tag, s_->comm, &r.impl->req), "MPI_Isend");
  return r;
}

Request Communicator::irecv(void* data, std::size_t bytes, int src, int tag) const {
  Request r;
  check_mpi(MPI_Irecv(data, to_int_bytes(bytes), MPI_BYTE, src, tag, s_->comm, &r.impl->req), "MPI_Irecv");
  return r;
}

void Communicator::wait_all(std::vector<Request>& reqs) {
  std::vector<MPI_Request> raw;
  raw.reserve(reqs.size());
  for (auto& r : reqs) raw.push_back(r.impl->req);
  check_mpi(MPI_Waitall(static_cast<int>(raw.size()), raw.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  for (std::size_t i = 0; i < reqs.size(); ++i) reqs[i].impl->req = raw[i];
}

void Communicator::wait_lazy(Request& req, double poll_us) {
  while (!test(req))
    std::this_thread::sleep_for(std::chrono::microseconds(static_cast<std::int64_t>(poll_us)));
}

void Communicator::wait(Request& req) {
  check_mpi(MPI_Wait(&req.impl->req, MPI_STATUS_IGNORE), "MPI_Wait");
}

bool Communicator::test(Request& req) {
  int flag = 0;
  check_mpi(MPI_Test(&req.impl->req, &flag, MPI_STATUS_IGNORE), "MPI_Test");
  return flag != 0;
}

ClockAlignment align_clocks(const Communicator& comm, int rounds) {
  constexpr int kTag = 7001;
  ClockAlignment out;
  const int me = comm.rank();
  // Rank 0 serves its clock to every other rank in turn; each rank estimates rank0 − local.
  for (int r = 1; r < comm.size(); ++r) {
    if (me == 0) {
      for (int i = 0; i < rounds; ++i) {
        char ping = 0;
        comm.recv(&ping, 1, r, kTag);
        double t = now_us();
        comm.send(&t, sizeof t, r, kTag);
      }
    } else if (me == r) {
      std::vector<core::ClockSample> samples;
      for (int i = 0; i < rounds; ++i) {
        core::ClockSample s;
        char ping = 0;
        s.t0_local_us = now_us();
        comm.send(&ping, 1, 0, kTag);
        comm.recv(&s.t_remote_us, sizeof(double), 0, kTag);
        s.t1_local_us = now_us();
        samples.push_back(s);
      }
      auto est = core::estimate_offset(samples);
      out.to_ref_us = est.remote_minus_local_us;
      out.error_bound_us = est.error_bound_us;
    }
  }
  out.max_error_us = comm.allreduce(out.error_bound_us, ScalarOp::kMax);
  out.max_abs_offset_us = comm.allreduce(std::fabs(out.to_ref_us), ScalarOp::kMax);
  return out;
}

}  // namespace fabcheck::comm
