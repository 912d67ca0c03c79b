// The emulated training step probe: a StepPlan run with the overlap probe's compute kernel and
// nonblocking collectives.
#include "fabcheck/probes/train_step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <map>
#include <utility>

#include "compute_kernel.hpp"
#include "fabcheck/comm/backend.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/overlap_math.hpp"
#include "fabcheck/core/step_math.hpp"
#include "overlap_point.hpp"

namespace fabcheck::probes {
namespace {

using model::StepOp;

comm::CollCall step_call(const StepOp& op, int nranks) {
  comm::CollCall c;
  c.coll = op.coll;
  c.dtype = core::Dtype::kFloat;
  c.op = core::RedOp::kSum;
  c.geometry = core::geometry(op.coll, core::Dtype::kFloat, op.size_bytes, nranks);
  return c;
}

// Runs a plan: every post between two waits has buffers of its own (concurrent nonblocking operations must
// not share a receive buffer, MPI 4.1 §6.12); a slot is reused after the wait that completes it.
class StepRunner {
 public:
  StepRunner(const comm::Communicator& comm, comm::CollBackend& be, const model::StepPlan& plan)
      : be_(be), plan_(plan) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> slot_elems;  // (send, recv) elements per slot
    std::size_t slot = 0;
    for (const auto& op : plan.ops) {
      if (op.kind == StepOp::Kind::kWaitAll) slot = 0;
      if (op.kind != StepOp::Kind::kPost) continue;
      comm::CollCall c = step_call(op, comm.size());
      if (slot_elems.size() <= slot) slot_elems.emplace_back(1, 1);
      auto& e = slot_elems[slot];
      e.first = std::max(e.first, c.geometry.send_count);
      e.second = std::max(e.second, c.geometry.recv_count);
      calls_.push_back({std::move(c), slot});
      ++slot;
    }
    for (const auto& [s, r] : slot_elems)
      buffers_.push_back({be.alloc(s * sizeof(float)), be.alloc(r * sizeof(float))});
    for (auto& [c, k] : calls_) {
      c.send = buffers_[k].first;
      c.recv = buffers_[k].second;
    }
  }
  ~StepRunner() {
    for (auto& [s, r] : buffers_) {
      be_.free(s);
      be_.free(r);
    }
  }
  StepRunner(const StepRunner&) = delete;
  StepRunner& operator=(const StepRunner&) = delete;

  // Kernel units per compute op at `us_per_unit`.
  void size_kernel(double us_per_unit, double poll_us) {
    units_.clear();
    for (const auto& op : plan_.ops) {
      if (op.kind == StepOp::Kind::kCompute)
        units_.push_back(std::max<std::uint64_t>(1, core::compute_units_for(op.compute_us, us_per_unit)));
    }
    poll_units_ = poll_us > 0 ? std::max<std::uint64_t>(1, core::compute_units_for(poll_us, us_per_unit)) : 0;
  }

  // One step, µs: with_comm false runs the computes only (no post, no wait, no MPI_Test).
  double run(bool with_comm) {
    std::size_t ci = 0, pi = 0;
    const double t0 = comm::now_us();
    for (const auto& op : plan_.ops) {
      switch (op.kind) {
        case StepOp::Kind::kCompute:
          detail::compute_polling(with_comm ? &be_ : nullptr, units_[ci++], with_comm ? poll_units_ : 0);
          break;
        case StepOp::Kind::kPost:
          if (with_comm) be_.start(calls_[pi].first);
          ++pi;
          break;
        case StepOp::Kind::kWaitAll:
          if (with_comm) be_.wait_started();
          break;
      }
    }
    return comm::now_us() - t0;
  }

 private:
  comm::CollBackend& be_;
  const model::StepPlan& plan_;
  std::vector<std::pair<comm::CollCall, std::size_t>> calls_;  // every post, with its buffer slot
  std::vector<std::pair<void*, void*>> buffers_;               // (send, recv) per slot
  std::vector<std::uint64_t> units_;
  std::uint64_t poll_units_ = 0;
};

core::Summary slowest_rank(const comm::Communicator& comm, std::vector<double> v) {
  comm.allreduce(std::span<double>(v), comm::ScalarOp::kMax);
  return core::summarize(v);
}

}  // namespace

void validate(const TrainStepOptions& o) {
  if (!(o.scale >= 0) || o.scale > 1)
    throw UsageError(fmt::format("--scale: {:g} is outside [0, 1] (0: auto; 0.1 emulates a tenth)", o.scale));
  if (o.max_buckets < 1) throw UsageError("--max-buckets: must be >= 1 (e.g. 8)");
  if (o.iters < 1) throw UsageError("--iters: must be >= 1");
  if (o.warmup < 0) throw UsageError("--warmup: must be >= 0");
  if (!(o.poll_us >= 0)) throw UsageError("--poll-us: must be >= 0 (0: no MPI call during compute)");
}

std::optional<std::string> step_skip_reason(const comm::Communicator& comm) {
  if (comm.size() < 2)
    return std::string("step needs at least 2 ranks (a collective of one rank communicates nothing)");
  return std::nullopt;
}

model::TrainStepResult run_train_step(const comm::Communicator& comm, const TrainStepOptions& o,
                                      const model::StepPlan& plan) {
  validate(o);
  if (auto why = step_skip_reason(comm)) throw UsageError(*why);
  for (const auto& op : plan.ops) {
    if (op.kind == StepOp::Kind::kPost &&
        op.size_bytes / sizeof(float) > static_cast<std::uint64_t>(INT_MAX)) {
      throw UsageError(
          fmt::format("--workload: a {}-byte {} exceeds the MPI int count limit of float elements "
                      "(use a profile with smaller buckets or units)",
                      op.size_bytes, core::name(op.coll)));
    }
  }
  const double t0 = comm::now_us();
  model::TrainStepResult r;
  r.nranks = comm.size();
  r.hosts = comm.hosts();
  r.options = o;
  r.plan = plan;
  r.mpi_library = comm::Runtime::library_version();
  if (auto nl = r.mpi_library.find('\n'); nl != std::string::npos) r.mpi_library.resize(nl);
  r.compute_kernel = detail::compute_kernel_description();
  comm.barrier();
  double us_per_unit = detail::calibrate_us_per_unit();
  auto be = comm::make_backend("mpi", comm);

  // Each distinct (collective, size) alone and against compute: the projection's communication times and
  // overlap, measured on the same stack the step runs on.
  std::map<std::pair<core::Collective, std::uint64_t>, bool> seen;
  model::OverlapOptions oo;
  oo.iters = std::max(3, o.iters);
  oo.warmup = 1;
  oo.poll_us = o.poll_us;
  for (const auto& op : plan.ops) {
    if (op.kind != StepOp::Kind::kPost || seen[{op.coll, op.size_bytes}]) continue;
    seen[{op.coll, op.size_bytes}] = true;
    r.comm_points.push_back(
        detail::measure_overlap_point(comm, *be, op.coll, op.size_bytes, oo, us_per_unit));
  }

  StepRunner runner(comm, *be, plan);
  runner.size_kernel(us_per_unit, o.poll_us);
  // Compute-only steps at full length, every rank at once: where ranks share cores the kernel runs slower
  // than its calibration; re-size it by what the step's compute took (as the overlap probe does), the
  // shortest of three trials (preemption only lengthens a trial; one preempted rank would shrink every
  // kernel).
  std::vector<double> trials;
  for (int i = 0; i < 3; ++i) {
    comm.barrier();
    trials.push_back(comm.allreduce(runner.run(false), comm::ScalarOp::kMax));
  }
  const double took = *std::min_element(trials.begin(), trials.end());
  if (took > 0 && plan.compute_s > 0) {
    us_per_unit *= took / (plan.compute_s * 1e6);
    runner.size_kernel(us_per_unit, o.poll_us);
  }
  r.us_per_unit = comm.allreduce(comm.rank() == 0 ? us_per_unit : 0.0, comm::ScalarOp::kSum);
  for (int i = 0; i < o.warmup; ++i) {
    comm.barrier();
    runner.run(true);
  }
  // Compute alone and the whole step interleave, so drift of the machine reaches both alike.
  const auto n = static_cast<std::size_t>(o.iters);
  std::vector<double> t_step(n), t_compute(n);
  for (std::size_t i = 0; i < n; ++i) {
    comm.barrier();
    t_compute[i] = runner.run(false);
    comm.barrier();
    t_step[i] = runner.run(true);
  }
  r.t_step = slowest_rank(comm, t_step);
  r.t_compute = slowest_rank(comm, t_compute);
  const auto eff = core::step_efficiency(r.t_compute.p50, r.t_step.p50);
  r.have_efficiency = eff.has_value();
  r.measured_efficiency = eff.value_or(0.0);
  r.exposed_us = core::exposed_comm(r.t_step.p50, r.t_compute.p50);
  r.duration_s = (comm::now_us() - t0) / 1e6;
  return r;
}

}  // namespace fabcheck::probes
