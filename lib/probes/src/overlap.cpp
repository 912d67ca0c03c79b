// The overlap probe: nonblocking collectives against a calibrated CPU compute kernel.
#include "fabcheck/probes/overlap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <set>

#include "compute_kernel.hpp"
#include "fabcheck/comm/backend.hpp"
#include "fabcheck/comm/phase.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/overlap_math.hpp"
#include "fabcheck/core/size.hpp"
#include "overlap_point.hpp"

namespace fabcheck::probes {
namespace {

struct Timed {
  double total_us = 0;    // the whole variant
  double compute_us = 0;  // the compute inside it (polling: without the MPI_Test calls)
  double test_us = 0;     // inside MPI_Test
};

// The variants of one point. `gpu` null: the CPU kernel (mpi); else the GPU kernel on its own stream beside
// the backend's (nccl), every variant timed on the host from the first launch until both streams are done.
class Variants {
 public:
  Variants(comm::CollBackend& be, const comm::CollCall& call, std::uint64_t units, std::uint64_t poll_units,
           comm::DeviceCompute* gpu = nullptr)
      : be_(be), call_(call), units_(units), poll_units_(poll_units), gpu_(gpu) {}

  double comm_alone() {
    const double t0 = comm::now_us();
    be_.start(call_);
    be_.wait_started();
    return comm::now_us() - t0;
  }

  // The kernel alone; `device_us` (gpu) gets its cudaEvent time.
  double compute_alone(double* device_us = nullptr) {
    const double t0 = comm::now_us();
    if (gpu_) {
      gpu_->launch(units_);
      gpu_->synchronize();
    } else {
      detail::compute_polling(nullptr, units_, 0);
    }
    const double took = comm::now_us() - t0;
    if (gpu_ && device_us) *device_us = gpu_->last_kernel_us();
    return took;
  }

  // Post, compute (polling every poll_units units when poll), wait. gpu: start the collective, launch the
  // kernel, wait for both streams; compute_us is the kernel's cudaEvent time beside the collective.
  Timed both(bool poll) {
    Timed t;
    const double t0 = comm::now_us();
    be_.start(call_);
    if (gpu_) {
      gpu_->launch(units_);
      gpu_->synchronize();
      be_.wait_started();
      t.total_us = comm::now_us() - t0;
      t.compute_us = gpu_->last_kernel_us();
      return t;
    }
    const double c0 = comm::now_us();
    t.test_us = detail::compute_polling(poll ? &be_ : nullptr, units_, poll ? poll_units_ : 0);
    t.compute_us = comm::now_us() - c0 - t.test_us;
    be_.wait_started();
    t.total_us = comm::now_us() - t0;
    return t;
  }

 private:
  comm::CollBackend& be_;
  comm::CollCall call_;
  std::uint64_t units_;
  std::uint64_t poll_units_;
  comm::DeviceCompute* gpu_;
};

core::Summary max_over_ranks(const comm::Communicator& comm, std::vector<double> v) {
  comm.allreduce(std::span<double>(v), comm::ScalarOp::kMax);
  return core::summarize(v);
}

}  // namespace

namespace detail {

model::OverlapPoint measure_overlap_point(const comm::Communicator& comm, comm::CollBackend& be,
                                          core::Collective coll, std::uint64_t size_bytes,
                                          const OverlapOptions& o, double us_per_unit,
                                          comm::DeviceCompute* gpu) {
  const auto g = core::geometry(coll, core::Dtype::kFloat, size_bytes, comm.size());
  void* send = be.alloc(std::max<std::uint64_t>(g.send_count, 1) * sizeof(float));
  void* recv = be.alloc(std::max<std::uint64_t>(g.recv_count, 1) * sizeof(float));
  comm::CollCall call;
  call.coll = coll;
  call.dtype = core::Dtype::kFloat;
  call.op = core::RedOp::kSum;
  call.send = send;
  call.recv = recv;
  call.geometry = g;

  model::OverlapPoint p;
  p.coll = coll;
  p.size_bytes = size_bytes;
  p.count = g.count;
  p.polled = o.poll_us > 0 && gpu == nullptr;  // NCCL progresses on the GPU: nothing to poll

  Variants calib(be, call, 0, 1);
  for (int i = 0; i < o.warmup; ++i) {
    comm.barrier();
    calib.comm_alone();
  }
  // Size the kernel to the collective: the slowest rank's median of three, the same target on every rank.
  std::vector<double> first;
  for (int i = 0; i < 3; ++i) {
    comm.barrier();
    first.push_back(calib.comm_alone());
  }
  p.compute_target_us = comm.allreduce(core::median(first).value_or(0.0), comm::ScalarOp::kMax);
  double per_unit = us_per_unit;
  std::uint64_t units = std::max<std::uint64_t>(1, core::compute_units_for(p.compute_target_us, per_unit));
  // One trial of the kernel at full length, every rank at once (as in the timed loop): where ranks share
  // cores, a long kernel runs slower than the short calibration did; scale the units by what it took.
  {
    comm.barrier();
    Variants trial(be, call, units, units, gpu);
    const double took = comm.allreduce(trial.compute_alone(), comm::ScalarOp::kMax);
    if (took > 0) {
      per_unit = took / static_cast<double>(units);
      units = std::max<std::uint64_t>(1, core::compute_units_for(p.compute_target_us, per_unit));
    }
  }
  const std::uint64_t poll_units =
      p.polled ? std::max<std::uint64_t>(1, core::compute_units_for(o.poll_us, per_unit)) : units;
  p.compute_units = static_cast<std::uint64_t>(
      comm.allreduce(static_cast<std::int64_t>(comm.rank() == 0 ? units : 0), comm::ScalarOp::kSum));

  // The variants interleave iteration by iteration, so drift of the machine (another job, frequency)
  // reaches all of them alike.
  Variants v(be, call, units, poll_units, gpu);
  const auto n = static_cast<std::size_t>(o.iters);
  std::vector<double> t_comm(n), t_compute(n), t_both(n), during(n), t_poll(n), test(n), device(n);
  for (std::size_t i = 0; i < n; ++i) {
    comm.barrier();
    t_comm[i] = v.comm_alone();
    comm.barrier();
    t_compute[i] = v.compute_alone(&device[i]);
    comm.barrier();
    const Timed b = v.both(false);
    t_both[i] = b.total_us;
    during[i] = b.compute_us;
    if (p.polled) {
      comm.barrier();
      const Timed bp = v.both(true);
      t_poll[i] = bp.total_us;
      test[i] = bp.test_us;
    }
  }
  be.free(send);
  be.free(recv);

  p.t_comm = max_over_ranks(comm, t_comm);
  p.t_compute = max_over_ranks(comm, t_compute);
  p.t_both = max_over_ranks(comm, t_both);
  p.compute_during = max_over_ranks(comm, during);
  if (gpu) p.t_compute_device = max_over_ranks(comm, device);
  // The overlap of one variant: of the medians (have: defined), and of the means as OSU prints it.
  auto overlap_of = [&p](const core::Summary& both, double& median_ov, bool& have, double& mean_ov) {
    const auto ov = core::overlap_fraction(p.t_comm.p50, p.t_compute.p50, both.p50);
    have = ov.has_value();
    median_ov = ov.value_or(0.0);
    mean_ov = core::overlap_fraction(p.t_comm.mean, p.t_compute.mean, both.mean).value_or(0.0);
  };
  overlap_of(p.t_both, p.overlap, p.have_overlap, p.overlap_mean);
  if (p.polled) {
    p.t_both_poll = max_over_ranks(comm, t_poll);
    p.test_us_mean = max_over_ranks(comm, test).mean;
    overlap_of(p.t_both_poll, p.overlap_poll, p.have_overlap_poll, p.overlap_poll_mean);
  }
  return p;
}

}  // namespace detail

void validate(const OverlapOptions& o) {
  if (o.collectives.empty())
    throw UsageError("--coll: give at least one of allreduce, allgather, reducescatter");
  for (auto c : o.collectives) {
    if (c != core::Collective::kAllReduce && c != core::Collective::kAllGather &&
        c != core::Collective::kReduceScatter) {
      throw UsageError(fmt::format(
          "--coll: overlap measures allreduce, allgather and reducescatter, not {} (drop it from the list)",
          core::name(c)));
    }
  }
  if (o.backend != "mpi" && o.backend != "nccl")
    throw UsageError(fmt::format("--backend: unknown backend \"{}\" (use mpi or nccl)", o.backend));
  if (o.sizes_bytes.empty()) throw UsageError("--sizes: give at least one size (e.g. 1M,8M)");
  for (auto s : o.sizes_bytes) {
    if (s / sizeof(float) > static_cast<std::uint64_t>(INT_MAX)) {
      throw UsageError(
          fmt::format("--sizes: {} exceeds the MPI int count limit of float elements (use at most 8G)",
                      core::format_size(s)));
    }
  }
}

std::optional<std::string> overlap_skip_reason(const comm::Communicator& comm, std::string_view backend) {
  // nccl on one rank: NCCL still runs the collective on the GPU beside the kernel (a one-GPU machine).
  if (backend == "nccl") return std::nullopt;
  if (comm.size() < 2)
    return std::string("overlap needs at least 2 ranks (a collective of one rank has nothing to overlap)");
  return std::nullopt;
}

OverlapResult run_overlap(const comm::Communicator& comm, const OverlapOptions& o) {
  validate(o);
  if (auto why = overlap_skip_reason(comm, o.backend)) throw UsageError(*why);
  const double t0 = comm::now_us();
  OverlapResult r;
  r.nranks = comm.size();
  r.hosts = comm.hosts();
  r.options = o;
  r.backend = o.backend;
  r.mpi_library = comm::Runtime::library_version();
  if (auto nl = r.mpi_library.find('\n'); nl != std::string::npos) r.mpi_library.resize(nl);
  // nccl where it cannot run: UsageError, the same one line as `sweep --backend nccl` (exit 2 standalone,
  // a skipped section in `run`).
  auto be = comm::make_backend(o.backend, comm);
  const std::unique_ptr<comm::DeviceCompute> gpu = be->make_device_compute();
  if (o.backend == "nccl" && !gpu)
    throw RuntimeFailure("--backend nccl: the backend has no GPU compute kernel");
  r.compute_kernel = gpu ? gpu->description() : detail::compute_kernel_description();
  if (gpu) {
    r.library_version = be->library_version();
    r.device = be->device_label();
  }
  comm.barrier();  // every rank calibrates at once, as the kernels will run
  const double us_per_unit = gpu ? calibrate_us_per_unit(*gpu) : detail::calibrate_us_per_unit();
  r.us_per_unit = comm.allreduce(comm.rank() == 0 ? us_per_unit : 0.0, comm::ScalarOp::kSum);
  for (auto c : o.collectives) {
    for (auto s : o.sizes_bytes) {
      // an arrival per point: the watchdog sees progress and names the point a frozen rank stopped in
      comm::enter_phase(fmt::format("overlap {} {} B", core::name(c), s));
      r.points.push_back(detail::measure_overlap_point(comm, *be, c, s, o, us_per_unit, gpu.get()));
    }
  }
  r.duration_s = (comm::now_us() - t0) / 1e6;
  return r;
}

}  // namespace fabcheck::probes
