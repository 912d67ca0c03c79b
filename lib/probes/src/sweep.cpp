// The collective sweep probe: nccl-tests' table measurement (DESIGN §3), an exact data check, and a separate
// per-iteration pass on aligned clocks (DESIGN §4).
#include "fabcheck/probes/sweep.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>
#include <stdexcept>
#include <thread>
#include <type_traits>

#include "fabcheck/comm/phase.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/fault.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/core/size_cost.hpp"
#include "fabcheck/core/stats.hpp"
#include "fabcheck/probes/inventory.hpp"
#include "sweep_data.hpp"

namespace fabcheck::probes {

using core::Collective;
using core::Dtype;
using core::RedOp;

/// `-o` asks for mulsum (nccl-tests' ncclRedOpCreatePreMulSum).
static bool has_mulsum(const SweepOptions& o) {
  return std::find(o.redops.begin(), o.redops.end(), RedOp::kMulSum) != o.redops.end();
}

/// `-d` names an fp8 type (f8e4m3 or f8e5m2).
static bool has_fp8(const SweepOptions& o) {
  return std::any_of(o.dtypes.begin(), o.dtypes.end(), core::is_fp8);
}

/// nccl-tests' flags beyond the table ones: each has its nccl-tests meaning on the backend that has one
/// (nccl-tests' README and src/common.cu), or is refused with one line naming the backend that has it — never
/// "unknown flag".
static void validate_nccl_tests_flags(const SweepOptions& o) {
  const bool mpi = o.backend == "mpi";
  struct NcclOnly {
    bool set;
    const char* flag;
    const char* what;
  };
  for (const NcclOnly& f :
       {NcclOnly{o.cudagraph > 0, "-G/--cudagraph", "CUDA graph capture and replay"},
        NcclOnly{o.local_register > 0, "-R/--local_register", "NCCL buffer registration"},
        NcclOnly{o.cta_policy >= 0, "-x/--cta_policy", "NCCL's CTA policy"},
        NcclOnly{o.device_implementation > 0, "-D/--device_implementation", "NCCL device-API kernels"},
        NcclOnly{o.device_cta_count != 16, "-V/--device_cta_count", "NCCL device-API kernels"},
        NcclOnly{o.memory > 0, "-M/--memory", "the GPU memory usage line"}}) {
    if (!f.set || !mpi) continue;
    throw UsageError(
        fmt::format("{}: {} exists on the nccl backend only (--backend nccl, GPU buffers); this "
                    "sweep runs on --backend mpi (drop {})",
                    f.flag, f.what, f.flag));
  }
  if (mpi && has_mulsum(o)) {
    throw UsageError(
        "-o/--op mulsum: ncclRedOpCreatePreMulSum exists on the nccl backend only (--backend nccl, NCCL >= "
        "2.11); this sweep runs on --backend mpi, which has no pre-multiplied sum (use sum, prod, min, max, "
        "avg or all)");
  }
  if (o.device_implementation > 0) {
    // nccl-tests -D runs kernels of its own written against NCCL's device API (nccl_device.h); fabcheck
    // times NCCL's host API only.
    throw UsageError(
        "-D/--device_implementation: fabcheck has no kernels of its own on NCCL's device API (nccl-tests' "
        "-D 1-4 are its custom allreduce/alltoall kernels); it times NCCL's host API (drop -D and -V)");
  }
  if (o.cudagraph > 0 && o.blocking != 0) {  // nccl-tests: -z 3 with -G is disabled; 1 and 2 wait inside
    throw UsageError(fmt::format(
        "-G/--cudagraph: needs -z 0 (a captured graph cannot wait or barrier between its ops; -z {} given)",
        o.blocking));
  }
  if (o.cudagraph > 0 && o.per_iter_timing) {
    throw UsageError(
        "-I/--per_iter_timing: incompatible with -G/--cudagraph (nccl-tests disables it; drop one of them)");
  }
  if (o.cudagraph > 0 && o.stream_null) {
    throw UsageError("-G/--cudagraph: the NULL stream cannot be captured into a CUDA graph (drop -y)");
  }
  if (o.per_iter_skip > 0 && !o.per_iter_timing) {
    throw UsageError("-K/--per_iter_skip: needs -I 1 (it drops samples from the -I columns)");
  }
  if (o.per_iter_timing && o.per_iter_iters == 0) {
    throw UsageError("-I/--per_iter_timing: needs the per-iteration pass (--per-iter-iters 0 turns it off)");
  }
  const int per_iter = o.per_iter_iters < 0 ? o.iters : o.per_iter_iters;
  if (o.per_iter_timing && o.per_iter_skip >= per_iter) {
    throw UsageError(
        fmt::format("-K/--per_iter_skip {}: must be below the per-iteration samples per point ({}; "
                    "nccl-tests: 0 <= K < iters)",
                    o.per_iter_skip, per_iter));
  }
}

void validate(const SweepOptions& o) {
  if (o.nthreads != 1) {
    throw UsageError(
        fmt::format("-t/--nthreads: {} threads per process are not supported (run one MPI rank per "
                    "GPU or process instead: mpirun -np N fabcheck sweep)",
                    o.nthreads));
  }
  if (o.ngpus != 1) {
    throw UsageError(
        fmt::format("-g/--ngpus: {} GPUs per process are not supported (run one MPI rank per GPU "
                    "instead: mpirun -np N fabcheck sweep)",
                    o.ngpus));
  }
  if (o.collectives.empty())
    throw UsageError("--coll: no collective given (use a list such as allreduce,allgather or all)");
  if (o.dtypes.empty()) throw UsageError("-d/--datatype: no type given (use e.g. float, or all)");
  if (o.redops.empty()) throw UsageError("-o/--op: no op given (use sum, prod, min, max or all)");
  if (o.min_bytes > o.max_bytes) {
    throw UsageError(fmt::format("-b/--minbytes: {} is larger than -e/--maxbytes {} (give -b <= -e)",
                                 o.min_bytes, o.max_bytes));
  }
  if (o.step_factor < 1) throw UsageError("-f/--stepfactor: must be >= 1 (1 = additive steps of -i)");
  if (o.step_factor == 1 && o.step_bytes < 1) {
    throw UsageError("-i/--stepbytes: must be >= 1 when -f/--stepfactor is 1 (or give -f 2)");
  }
  if (o.step_factor > 1 && o.min_bytes == 0 && o.max_bytes > 0) {
    throw UsageError("-b/--minbytes: 0 never grows with -f/--stepfactor > 1 (start at 1 or more, e.g. -b 8)");
  }
  if (o.iters < 1)
    throw UsageError(fmt::format("-n/--iters: {} is not a valid count (give 1 or more)", o.iters));
  if (o.warmup_iters < 0) throw UsageError("-w/--warmup_iters: must be >= 0");
  if (o.check < 0) throw UsageError("-c/--check: must be >= 0 (0 disables the data check)");
  if (o.average < 0 || o.average > 3) {
    throw UsageError(
        fmt::format("-a/--average: {} is not a mode (0 rank 0, 1 mean, 2 min, 3 max)", o.average));
  }
  if (o.blocking < 0 || o.blocking > 3) {
    throw UsageError(fmt::format("-z/--blocking: {} is not a mode (0, 1, 2 or 3)", o.blocking));
  }
  if (o.cycles < 1) {
    throw UsageError(
        fmt::format("-N/--run_cycles: {} is not supported (give 1 or more; endless runs are not)", o.cycles));
  }
  if (o.root < -1)
    throw UsageError(fmt::format("-r/--root: {} is not a rank (give 0..n-1, or -1 for every root)", o.root));
  if (o.per_iter_iters < -1)
    throw UsageError("--per-iter-iters: must be >= 0 (0 disables the per-iteration pass)");
  if (o.samples_cap < 1) throw UsageError("--samples-cap: must be >= 1");
  if (o.per_iter_rounds < 1)
    throw UsageError(fmt::format(
        "--per-iter-rounds {}: must be >= 1 (1 = the whole per-iteration pass at once)", o.per_iter_rounds));
  if (o.backend != "mpi" && o.backend != "nccl") {
    throw UsageError(fmt::format("--backend: unknown backend \"{}\" (use mpi or nccl)", o.backend));
  }
  validate_nccl_tests_flags(o);
  // Bound the number of sizes (an additive sweep with a tiny -i over a huge range would never end).
  constexpr std::uint64_t kMaxSizes = 100000;
  if (o.step_factor == 1 && o.step_bytes > 0 && (o.max_bytes - o.min_bytes) / o.step_bytes >= kMaxSizes) {
    throw UsageError(
        fmt::format("-i/--stepbytes: {} gives more than {} sizes between -b and -e (use a larger -i or -f 2)",
                    o.step_bytes, kMaxSizes));
  }
}

std::vector<std::uint64_t> sweep_sizes(const SweepOptions& o) {
  std::vector<std::uint64_t> out;
  std::uint64_t size = o.min_bytes;
  while (size <= o.max_bytes) {
    out.push_back(size);
    std::uint64_t next = o.step_factor > 1 ? size * o.step_factor : size + o.step_bytes;
    if (next <= size) break;  // 0 with a factor, or overflow
    if (o.step_factor > 1 && size > std::numeric_limits<std::uint64_t>::max() / o.step_factor) break;
    size = next;
  }
  return out;
}

namespace {

void sleep_us(std::uint64_t us) {
  std::this_thread::sleep_for(std::chrono::microseconds(us));
}

std::string block_label(Collective c, Dtype d, std::optional<RedOp> op, int root) {
  return fmt::format("{} {} {} root {}", core::name(c), core::name(d), op ? core::name(*op) : "none", root);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------

namespace {

/// The timed loop of time_table_loop and time_group_loop: `issue` is one outer iteration (-z 0: one op or one
/// aggregate) or one inner op (-z 1..3, `inner` of them per outer iteration: nccl-tests waits "after each
/// inner iteration (-m)"). `issue_all(n)` issues n outer iterations back to back (-z 0: the bare loop).
/// Seconds per op: elapsed / (iters * inner_per_outer).
template <class Issue, class IssueAll>
double timed_loop(const comm::Communicator& comm, comm::CollBackend& be, Issue&& issue, IssueAll&& issue_all,
                  int iters, int blocking, int inner, int ops_per_outer, int graph_launches, double* cpu_s) {
  double t0 = 0, t1 = 0;
  const double ops = static_cast<double>(iters) * ops_per_outer;
  // nccl-tests -C (common.cu:767-768): the elapsed time right after the last enqueue, / (iters × agg); under
  // -G not divided by the launches, as nccl-tests; -z 1/2 wait inside the loop, -z 3 is the collective time.
  const auto enqueued = [&] {  // reads the clock only when asked for (the bare loop stays bare)
    if (cpu_s != nullptr) *cpu_s = (comm::now_us() - t0) * 1e-6 / ops;
  };
  if (graph_launches > 0) {  // nccl-tests -G: capture (untimed), instantiate, barrier, launch N times, sync
    be.begin_capture();
    for (int i = 0; i < iters; ++i) issue(0);
    be.end_capture();
    comm.barrier();
    t0 = comm::now_us();
    for (int l = 0; l < graph_launches; ++l) be.launch_captured();
    enqueued();
    be.synchronize();
    t1 = comm::now_us();
    be.drop_captured();
    return (t1 - t0) * 1e-6 / (ops * graph_launches);
  }
  comm.barrier();
  switch (blocking) {
    case 0:
      t0 = comm::now_us();
      issue_all(iters);  // the bare table loop: nothing else per iteration
      enqueued();
      be.synchronize();
      t1 = comm::now_us();
      return (t1 - t0) * 1e-6 / ops;
    case 1:    // sync and barrier after each inner op
    case 2: {  // sync after each inner op
      const bool barrier_each = blocking == 1;
      t0 = comm::now_us();
      for (int i = 0; i < iters; ++i) {
        for (int k = 0; k < inner; ++k) {
          issue(k);
          be.synchronize();
          if (barrier_each) comm.barrier();
        }
      }
      t1 = comm::now_us();
      enqueued();
      return (t1 - t0) * 1e-6 / ops;
    }
    default: {  // 3: sync + barrier after each outer iteration, barrier time excluded
      double acc = 0;
      for (int i = 0; i < iters; ++i) {
        const double s = comm::now_us();
        for (int k = 0; k < inner; ++k) issue(k);
        be.synchronize();
        acc += comm::now_us() - s;
        comm.barrier();
      }
      if (cpu_s != nullptr) *cpu_s = acc * 1e-6 / ops;  // -z 3: the collective time, as the time column
      return acc * 1e-6 / ops;
    }
  }
}

}  // namespace

double time_table_loop(const comm::Communicator& comm, comm::CollBackend& be, const comm::CollCall& call,
                       int iters, int blocking, int graph_launches, double* cpu_s) {
  return timed_loop(
      comm, be, [&](int) { be.run(call); }, [&](int n) { be.run_repeated(call, n); }, iters, blocking, 1, 1,
      graph_launches, cpu_s);
}

double time_group_loop(const comm::Communicator& comm, comm::CollBackend& be,
                       std::span<const comm::CollCall> calls, int iters, int blocking, int graph_launches,
                       double* cpu_s) {
  const int n = static_cast<int>(calls.size());
  const auto groups = [&](int count) {
    for (int i = 0; i < count; ++i) be.run_group(calls);
  };
  if (blocking == 0 || blocking == 3)  // the aggregate as one (3: waited after each outer iteration)
    return timed_loop(
        comm, be, [&](int) { be.run_group(calls); }, groups, iters, blocking, 1, n, graph_launches, cpu_s);
  // -z 1/2 wait after each inner op: issue_all (the -z 0 loop) is never called here
  return timed_loop(
      comm, be, [&](int k) { be.run(calls[static_cast<std::size_t>(k)]); }, groups, iters, blocking, n, n,
      graph_launches, cpu_s);
}

double reduce_time(const comm::Communicator& comm, double seconds, int average) {
  switch (average) {
    case 0: {
      double v = seconds;
      comm.bcast(&v, sizeof v, 0);
      return v;
    }
    case 2:
      return comm.allreduce(seconds, comm::ScalarOp::kMin);
    case 3:
      return comm.allreduce(seconds, comm::ScalarOp::kMax);
    default:
      return comm.allreduce(seconds, comm::ScalarOp::kSum) / comm.size();
  }
}

model::PerIterStats per_iter_stats(const std::vector<std::vector<double>>& entry_us,
                                   const std::vector<std::vector<double>>& exit_us,
                                   const std::vector<std::string>& hosts, std::size_t samples_cap,
                                   double resolution_us) {
  model::PerIterStats st;
  st.samples_cap = samples_cap;
  st.straggler_resolution_us = resolution_us;
  const std::size_t nr = entry_us.size();
  if (nr == 0 || exit_us.size() != nr)
    throw std::invalid_argument("per_iter_stats: entry/exit rank counts differ");
  const std::size_t m = entry_us[0].size();
  for (std::size_t r = 0; r < nr; ++r) {
    if (entry_us[r].size() != m || exit_us[r].size() != m) {
      throw std::invalid_argument("per_iter_stats: ranks have different iteration counts");
    }
  }
  std::vector<double> spans(m);
  std::vector<int> strag(m);
  std::vector<std::size_t> times_last(nr, 0);
  for (std::size_t i = 0; i < m; ++i) {
    double min_entry = entry_us[0][i], max_exit = exit_us[0][i], max_entry = entry_us[0][i];
    double second = -std::numeric_limits<double>::infinity();
    std::size_t arg = 0;
    for (std::size_t r = 1; r < nr; ++r) {
      const double e = entry_us[r][i];
      min_entry = std::min(min_entry, e);
      max_exit = std::max(max_exit, exit_us[r][i]);
      if (e > max_entry) {
        second = max_entry;
        max_entry = e;
        arg = r;
      } else {
        second = std::max(second, e);
      }
    }
    spans[i] = max_exit - min_entry;
    if (nr > 1 && max_entry - second > resolution_us) {
      strag[i] = static_cast<int>(arg);
      ++times_last[arg];
    } else {
      strag[i] = -1;
    }
  }
  const core::Summary s = core::summarize(spans);
  st.samples = s.samples;
  st.min_us = s.min;
  st.p50_us = s.p50;
  st.p99_us = s.p99;
  st.p999_us = s.p999;
  st.max_us = s.max;
  st.mean_us = s.mean;
  st.stdev_us = s.stdev;
  st.low_confidence = s.low_confidence_p99;
  st.low_confidence_p999 = s.low_confidence_p999;
  for (std::size_t r = 0; r < nr; ++r) {
    if (times_last[r] == 0) continue;
    st.stragglers.push_back({static_cast<int>(r), r < hosts.size() ? hosts[r] : std::string{},
                             static_cast<double>(times_last[r]) / static_cast<double>(m)});
  }
  std::stable_sort(st.stragglers.begin(), st.stragglers.end(),
                   [](const model::Straggler& a, const model::Straggler& b) { return a.share > b.share; });
  const std::size_t keep = std::min(m, samples_cap);
  st.samples_us.assign(spans.begin(), spans.begin() + static_cast<std::ptrdiff_t>(keep));
  st.straggler_ranks.assign(strag.begin(), strag.begin() + static_cast<std::ptrdiff_t>(keep));
  return st;
}

// ---------------------------------------------------------------------------------------------------------------

namespace {

/// Everything one (collective, dtype, op, root) series needs while it runs.
class SeriesRunner {
 public:
  SeriesRunner(const comm::Communicator& comm, comm::CollBackend& be, const SweepOptions& o,
               const comm::ClockAlignment& clocks, const std::optional<core::Fault>& fault, void* send,
               void* recv, unsigned char* host, std::uint64_t buf_bytes,
               std::vector<std::pair<void*, void*>> extra_bases)
      : comm_(comm),
        be_(be),
        o_(o),
        clocks_(clocks),
        fault_(fault),
        send_(send),
        recv_(recv),
        send_base_(send),
        recv_base_(recv),
        host_(host),
        buf_bytes_(buf_bytes),
        extra_bases_(std::move(extra_bases)),
        start_us_(comm::now_us()) {}

  model::SweepBlock run(Collective c, Dtype d, std::optional<RedOp> op, int root,
                        const std::vector<std::uint64_t>& sizes) {
    model::SweepBlock b;
    b.collective = c;
    b.dtype = d;
    b.redop = op;
    b.root = core::is_rooted(c) ? root : -1;
    b.nranks = comm_.size();
    const std::string label = block_label(c, d, op, b.root);
    // -u N (nccl-tests): the buffers start N elements of this type past their allocation.
    const std::size_t shift = static_cast<std::size_t>(o_.unalign) * core::dtype_size(d);
    send_ = static_cast<char*>(send_base_) + shift;
    recv_ = static_cast<char*>(recv_base_) + shift;
    extra_.clear();
    for (const auto& [s, r] : extra_bases_)
      extra_.emplace_back(static_cast<char*>(s) + shift, static_cast<char*>(r) + shift);
    warmup(c, d, op, root, label);
    pending_.clear();
    const double block_start_us = comm::now_us();
    double prev_cost_s = 0, min_cost_s = 0;
    std::uint64_t prev_bytes = 0;
    bool measured = false;
    for (int cycle = 0; cycle < o_.cycles && !b.truncated_from_bytes; ++cycle) {
      for (std::uint64_t req : sizes) {
        const core::CollGeometry g = core::geometry(c, d, req, comm_.size());
        if (o_.time_limit_s > 0 && measured &&
            stop_before(core::predict_size_cost_s(prev_cost_s, min_cost_s, prev_bytes, g.size_bytes),
                        g.size_bytes, block_start_us, b)) {
          break;
        }
        const double size_start_us = comm::now_us();
        model::SweepPoint pt;
        pt.size_bytes = g.size_bytes;
        pt.requested_bytes = req;
        pt.count = g.count;
        pt.cycle = cycle;
        pt.measured_unix_s = static_cast<std::int64_t>(std::time(nullptr));
        pt.out_of_place = measure(c, d, op, root, g, false, label, b.points.size());
        pt.in_place = measure(c, d, op, root, g, true, label, b.points.size());
        b.points.push_back(std::move(pt));
        prev_cost_s = (comm::now_us() - size_start_us) * 1e-6;
        min_cost_s = measured ? std::min(min_cost_s, prev_cost_s) : prev_cost_s;
        prev_bytes = g.size_bytes;
        measured = true;
      }
    }
    ++blocks_done_;
    per_iter_rounds(b, label);
    core::BusbwMean mean;  // nccl-tests' average: every block of the series, in row order
    for (const auto& p : b.points) {
      mean.add(p.out_of_place.busbw_gbps);
      mean.add(p.in_place.busbw_gbps);
    }
    b.avg_busbw_gbps = mean.value().value_or(0.0);
    return b;
  }

  std::uint64_t total_wrong = 0;
  std::uint64_t failed_checks = 0;
  std::size_t blocks_total = 1;  ///< series of the whole sweep (the time limit is shared among them)

 private:
  /// The time-limit rule (SweepOptions::time_limit_s): predicts the next size from the sizes before it
  /// (`size_cost_s`: core::predict_size_cost_s, latency + bytes / bandwidth fitted to them) × the share of
  /// its ops still pending in the later per-iteration rounds — and stops when the series' elapsed time plus
  /// the prediction exceeds its share of the limit left (limit − elapsed before the series, over the series
  /// left). Every rank decides on its own clock; the stop is agreed (max), so all ranks stop at the same
  /// size.
  bool stop_before(double size_cost_s, std::uint64_t bytes, double block_start_us, model::SweepBlock& b) {
    const int per_iter = o_.per_iter_iters < 0 ? o_.iters : o_.per_iter_iters;
    const int rounds = per_iter > 0 ? std::min(o_.per_iter_rounds, per_iter) : 1;
    const double now_ops = 2.0 + o_.iters + (per_iter > 0 ? 1.0 + round_iters(per_iter, 0) : 0.0) + o_.check;
    const double later_ops = per_iter > 0 ? (rounds - 1) + (per_iter - round_iters(per_iter, 0)) : 0.0;
    const double predicted_s = size_cost_s * (now_ops + later_ops) / now_ops;
    const double now_us = comm::now_us();
    const double before_s = (block_start_us - start_us_) * 1e-6;
    const double in_block_s = (now_us - block_start_us) * 1e-6;
    const double left_blocks = static_cast<double>(std::max<std::size_t>(1, blocks_total - blocks_done_));
    const double allowance_s = (o_.time_limit_s - before_s) / left_blocks;
    const std::int64_t mine = in_block_s + predicted_s > allowance_s ? 1 : 0;
    if (comm_.allreduce(mine, comm::ScalarOp::kMax) == 0) return false;
    b.truncated_from_bytes = bytes;
    b.truncated_predicted_s = predicted_s;
    b.truncated_allowance_s = allowance_s - in_block_s;
    return true;
  }

  comm::CollCall make_call(Collective c, Dtype d, std::optional<RedOp> op, int root,
                           const core::CollGeometry& g, bool in_place) const {
    comm::CollCall call;
    call.coll = c;
    call.dtype = d;
    call.op = op.value_or(RedOp::kSum);
    call.root = root < 0 ? 0 : root;
    call.send = send_;
    call.recv = recv_;
    call.geometry = g;
    call.in_place = in_place;
    return call;
  }

  void warmup(Collective c, Dtype d, std::optional<RedOp> op, int root, const std::string& label) {
    if (o_.warmup_iters <= 0) return;
    comm::enter_phase(fmt::format("sweep {} warmup", label));
    // nccl-tests: for size = minbytes; size <= maxbytes; size *= 2: warmup ops, out-of-place.
    for (std::uint64_t size = o_.min_bytes; size <= o_.max_bytes; size = size == 0 ? 1 : size * 2) {
      const auto call = make_call(c, d, op, root, core::geometry(c, d, size, comm_.size()), false);
      for (int i = 0; i < o_.warmup_iters; ++i) be_.run(call);
      if (size > o_.max_bytes / 2) break;
    }
    be_.synchronize();
  }

  /// The calls of one `-m` aggregate: `call` agg_iters times, on buffers of their own where the backend needs
  /// them (extra_), else on the same ones (nccl-tests).
  std::vector<comm::CollCall> make_group(const comm::CollCall& call) const {
    std::vector<comm::CollCall> group(static_cast<std::size_t>(std::max(1, o_.agg_iters)), call);
    for (std::size_t k = 1; k < group.size() && k - 1 < extra_.size(); ++k) {
      group[k].send = extra_[k - 1].first;
      group[k].recv = extra_[k - 1].second;
    }
    return group;
  }

  /// Writes this rank's input into every buffer pair of `group` (the first is send_/recv_).
  void load_input(Collective c, Dtype d, const core::CollGeometry& g, bool in_place, const DataPattern& pat,
                  const std::vector<comm::CollCall>& group) {
    const std::size_t elt = core::dtype_size(d);
    const std::uint64_t buf_elems = std::max(g.send_count, g.recv_count);
    const auto distinct = own_buffers(group);
    detail::init_input(d, host_, buf_elems, c, g, in_place, pat, comm_.rank());
    for (std::size_t k = 0; k < distinct; ++k)
      be_.copy_from_host(in_place ? group[k].recv : const_cast<void*>(group[k].send), host_, buf_elems * elt);
    if (!in_place) {
      std::memset(host_, 0, g.recv_count * elt);
      for (std::size_t k = 0; k < distinct; ++k) be_.copy_from_host(group[k].recv, host_, g.recv_count * elt);
    }
  }

  /// How many calls of `group` have buffers of their own (1 where they share send_/recv_).
  std::size_t own_buffers(const std::vector<comm::CollCall>& group) const {
    return std::min(group.size(), 1 + extra_.size());
  }

  model::PlacementResult measure(Collective c, Dtype d, std::optional<RedOp> op, int root,
                                 const core::CollGeometry& g, bool in_place, const std::string& label,
                                 std::size_t point) {
    const char* placement = in_place ? "in_place" : "out_of_place";
    comm::enter_phase(fmt::format("sweep {} {} B {}", label, g.size_bytes, placement));
    const DataPattern pat = pattern_for(d, op, comm_.size());
    const auto call = make_call(c, d, op, root, g, in_place);
    const auto group = make_group(call);
    const bool agg = group.size() > 1;
    model::PlacementResult pr;

    // nccl-tests BenchTime: init data, one untimed op (aggregate) + sync, barrier, then the timed loop.
    load_input(c, d, g, in_place, pat, group);
    if (agg)
      be_.run_group(group);
    else
      be_.run(call);
    be_.synchronize();
    // -C on nccl: rank 0's enqueue time (mpi calls block: no enqueue time apart from the completion time)
    const bool enqueues = be_.name() == "nccl";
    double cpu_s = 0;
    double* cpu = enqueues ? &cpu_s : nullptr;
    const double local_s = agg ? time_group_loop(comm_, be_, group, o_.iters, o_.blocking, o_.cudagraph, cpu)
                               : time_table_loop(comm_, be_, call, o_.iters, o_.blocking, o_.cudagraph, cpu);
    const double sec = reduce_time(comm_, local_s, o_.average);
    pr.time_us = sec * 1e6;
    pr.algbw_gbps = core::algbw_gbps(g.size_bytes, sec);
    pr.busbw_gbps = core::busbw_gbps(c, comm_.size(), pr.algbw_gbps);
    if (enqueues) pr.cputime_us = cpu_s * 1e6;  // rank 0's is printed, as nccl-tests

    const int per_iter = o_.per_iter_iters < 0 ? o_.iters : o_.per_iter_iters;
    if (per_iter > 0) {
      // The first round right after the timed loop, the others after every point's first round.
      pending_.push_back({call, point, in_place, {}, {}});
      per_iter_block(pending_.back(), round_iters(per_iter, 0), false);
    }

    const detail::CheckPlan plan =
        detail::plan_check(be_, c, g, in_place, comm_.rank(), comm_.size(), root, o_.check);
    if (!plan.checked) {
      pr.wrong_reason =
          o_.check == 0 ? "unchecked (-c 0)" : "in-place result not checked for this collective (nccl-tests)";
      return pr;
    }
    std::uint64_t wrong_total = 0;
    for (int round = 0; round < o_.check; ++round) {
      // -m N where each aggregated call has buffers of its own (mpi): the aggregate runs and every call's own
      // result is checked. Where they share one pair (nccl) one call runs, as nccl-tests' check does ("test
      // validation in single itertion", common.cu BenchTime): N in-place reductions of one buffer compound.
      load_input(c, d, g, in_place, pat, group);
      if (agg && own_buffers(group) == group.size())
        be_.run_group(group);
      else
        be_.run(call);
      be_.synchronize();
      std::int64_t mine = 0;
      const std::size_t elt = core::dtype_size(d);
      for (std::size_t k = 0; k < own_buffers(group); ++k) {
        char* result = static_cast<char*>(group[k].recv) + plan.offset * elt;
        be_.copy_to_host(host_, result, plan.elems * elt);
        if (k == 0 && fault_ && fault_->kind == core::Fault::Kind::kCorrupt && fault_->rank == comm_.rank())
          detail::corrupt(d, host_, plan.elems, fault_->elems);
        mine += static_cast<std::int64_t>(
            detail::count_wrong(d, host_, plan, c, g, pat, op.value_or(RedOp::kSum), comm_.rank(),
                                comm_.size(), root < 0 ? 0 : root, be_.avg_ariths()));
      }
      wrong_total = static_cast<std::uint64_t>(comm_.allreduce(mine, comm::ScalarOp::kSum));
      if (wrong_total > 0) {
        // Which ranks received wrong data (every rank takes part: wrong_total is the same on all).
        const auto per_rank = comm_.allgather(static_cast<double>(mine));
        for (std::size_t r = 0; r < per_rank.size(); ++r)
          if (per_rank[r] > 0) pr.wrong_ranks.push_back(static_cast<int>(r));
        break;  // nccl-tests stops at the first round with errors
      }
    }
    pr.wrong = wrong_total;
    total_wrong += wrong_total;
    if (wrong_total > 0) ++failed_checks;
    return pr;
  }

  /// One point's per-iteration pass in progress: this rank's entry and exit times over all rounds so far.
  struct PendingPerIter {
    comm::CollCall call;
    std::size_t point = 0;
    bool in_place = false;
    std::vector<double> entry_us, exit_us;  // aligned to rank 0's clock
  };

  /// Iterations of round `r` when `total` are split over the rounds (the first total % rounds get one more).
  int round_iters(int total, int r) const {
    const int rounds = std::min(o_.per_iter_rounds, total);
    if (r >= rounds) return 0;
    return total / rounds + (r < total % rounds ? 1 : 0);
  }

  /// Runs `iters` timed iterations of `p`, after one untimed op when `untimed_first` (a later round: the
  /// buffers and connections were last used by another size), appending this rank's aligned times.
  void per_iter_block(PendingPerIter& p, int iters, bool untimed_first) {
    if (iters <= 0) return;
    const bool delayed = fault_ && fault_->kind == core::Fault::Kind::kDelay && fault_->rank == comm_.rank();
    const std::uint64_t every = fault_ ? std::max<std::uint64_t>(1, fault_->every) : 1;
    if (untimed_first) be_.run(p.call);
    be_.synchronize();
    comm_.barrier();
    for (int k = 0; k < iters; ++k) {
      // A common release per iteration: without it the rank that left the previous op last would always enter
      // last, and "entered last" would name the algorithm's ordering instead of a late rank.
      comm_.barrier();
      const std::size_t i = p.entry_us.size();
      if (delayed && i % every == every - 1) sleep_us(fault_->us);
      const double t0 = comm::now_us();
      be_.run(p.call);
      be_.synchronize();
      const double t1 = comm::now_us();
      p.entry_us.push_back(t0 + clocks_.to_ref_us);
      p.exit_us.push_back(t1 + clocks_.to_ref_us);
    }
  }

  /// The remaining rounds of every pending point, then their statistics (rank 0 fills b's points).
  void per_iter_rounds(model::SweepBlock& b, const std::string& label) {
    const int total = o_.per_iter_iters < 0 ? o_.iters : o_.per_iter_iters;
    const int rounds = std::min(o_.per_iter_rounds, std::max(total, 1));
    for (int r = 1; r < rounds; ++r) {
      comm::enter_phase(fmt::format("sweep {} per-iteration round {}/{}", label, r + 1, rounds));
      for (auto& p : pending_) per_iter_block(p, round_iters(total, r), true);
    }
    for (auto& p : pending_) {
      std::vector<double> times(p.entry_us);
      times.insert(times.end(), p.exit_us.begin(), p.exit_us.end());
      const std::size_t m = p.entry_us.size();
      auto all = comm_.gather(times, 0);
      auto& pt = b.points[p.point];
      auto& dest = (p.in_place ? pt.in_place : pt.out_of_place).per_iter;
      if (comm_.rank() != 0) {
        dest = model::PerIterStats{};  // statistics live on rank 0
        continue;
      }
      std::vector<std::vector<double>> entry(all.size()), exit(all.size());
      for (std::size_t r = 0; r < all.size(); ++r) {
        entry[r].assign(all[r].begin(), all[r].begin() + static_cast<std::ptrdiff_t>(m));
        exit[r].assign(all[r].begin() + static_cast<std::ptrdiff_t>(m), all[r].end());
      }
      model::PerIterStats st =
          per_iter_stats(entry, exit, comm_.hosts_of_ranks(), o_.samples_cap, clocks_.max_error_us);
      st.rounds = rounds;
      dest = std::move(st);
    }
    pending_.clear();
  }

  std::vector<PendingPerIter> pending_;
  const comm::Communicator& comm_;
  comm::CollBackend& be_;
  const SweepOptions& o_;
  const comm::ClockAlignment& clocks_;
  const std::optional<core::Fault>& fault_;
  void* send_;
  void* recv_;
  void* send_base_;  // the allocations; send_/recv_ sit -u elements past them
  void* recv_base_;
  unsigned char* host_;
  std::uint64_t buf_bytes_;
  std::vector<std::pair<void*, void*>> extra_bases_;  // -m N on a backend whose aggregate needs own buffers
  std::vector<std::pair<void*, void*>> extra_;        // the same, -u elements on
  double start_us_ = 0;          // when the sweep began (the time limit counts from here)
  std::size_t blocks_done_ = 0;  // series finished so far
};

/// Reads this rank's NCCL log (at most kMaxNcclLogBytes); "" with a note when it cannot.
std::string read_log_head(const std::string& path, std::string& note) {
  if (path.empty()) {
    note = "NCCL_DEBUG_FILE is not set: NCCL wrote its log to stdout, not to a file fabcheck can read";
    return {};
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    note = fmt::format("no NCCL log at {} ({})", path, std::strerror(errno));
    return {};
  }
  std::string text(kMaxNcclLogBytes, '\0');
  const std::size_t got = std::fread(text.data(), 1, text.size(), f);
  const bool more = got == text.size() && std::fgetc(f) != EOF;
  std::fclose(f);
  text.resize(got);
  if (more) note = fmt::format("NCCL log {} is larger than {} bytes: only its head was read", path, got);
  return text;
}

/// Gathers every rank's NCCL log to rank 0 and parses it there (rank 0 fills res.nccl_logs and notes).
void collect_library_logs(const comm::Communicator& comm, const comm::nccl::LogCapture& log,
                          model::SweepResult& res) {
  std::string note = log.note;
  std::string extra;
  std::string text = read_log_head(log.path, extra);
  if (!extra.empty()) note += (note.empty() ? "" : "; ") + extra;
  const auto paths = comm.gather(log.path, 0);
  const auto notes = comm.gather(note, 0);
  const auto texts = comm.gather(text, 0);
  if (comm.rank() != 0) return;
  const auto& hosts = comm.hosts_of_ranks();
  for (std::size_t r = 0; r < texts.size(); ++r) {
    if (!notes[r].empty())
      res.nccl_log_notes.push_back(fmt::format("rank {} (host {}): {}", r, hosts[r], notes[r]));
    if (!texts[r].empty())
      res.nccl_logs.push_back(parse::parse_nccl_log(texts[r], hosts[r] + ":" + paths[r]));
  }
  // NCCL's environment, read as the inventory reads it (one reader of the process environment).
  for (const auto& [k, v] : filter_transport_env(process_environment()))
    if (k.rfind("NCCL_", 0) == 0) res.nccl_env.emplace(k, v);
}

/// Frees backend buffers on every exit path.
struct Buffers {
  comm::CollBackend& be;
  void* send = nullptr;
  void* recv = nullptr;
  std::vector<std::pair<void*, void*>> extra;  // -m N: the other calls' own buffers
  ~Buffers() {
    be.free(send);
    be.free(recv);
    for (auto& [s, r] : extra) {
      be.free(s);
      be.free(r);
    }
  }
};

}  // namespace

std::uint64_t nccl_tests_max_bytes_cap(std::uint64_t device_bytes, bool check) {
  constexpr std::uint64_t kGiB = 1ull << 30;
  const std::uint64_t reserve = std::min((device_bytes + 16 * kGiB - 1) / (16 * kGiB) * kGiB, 4 * kGiB);
  if (device_bytes <= reserve + kGiB) return 0;
  return (device_bytes - reserve - kGiB) / (check ? 3 : 2);
}

model::SweepResult run_sweep(const comm::Communicator& comm, comm::CollBackend& be,
                             const SweepOptions& requested) {
  validate(requested);
  SweepOptions opts = requested;
  std::optional<std::uint64_t> reduced_to;
  {
    const std::int64_t unknown = std::numeric_limits<std::int64_t>::max();
    const std::int64_t smallest =
        comm.allreduce(be.device_total_bytes().value_or(unknown), comm::ScalarOp::kMin);
    const std::uint64_t cap =
        smallest == unknown ? UINT64_MAX
                            : nccl_tests_max_bytes_cap(static_cast<std::uint64_t>(smallest), opts.check > 0);
    if (opts.max_bytes > cap) {
      reduced_to = cap;
      opts.max_bytes = cap;
      opts.min_bytes = std::min(opts.min_bytes, cap);
    }
  }
  const int n = comm.size();
  const auto sizes = sweep_sizes(opts);
  const bool any_rooted = std::any_of(opts.collectives.begin(), opts.collectives.end(), core::is_rooted);
  if (any_rooted && opts.root >= n) {
    throw UsageError(fmt::format("-r/--root: {} is not a rank of this run (give 0..{}, or -1 for every root)",
                                 opts.root, n - 1));
  }
  // Buffer sizes and count limits, before measuring anything. The warm-up doubles up to max_bytes, which an
  // additive or factor sweep may not reach exactly: size the buffers for max_bytes too.
  std::uint64_t buf_bytes = 1;
  std::vector<std::uint64_t> buffer_sizes = sizes;
  buffer_sizes.push_back(opts.max_bytes);
  for (Collective c : opts.collectives) {
    for (Dtype d : opts.dtypes) {
      for (std::uint64_t s : buffer_sizes) {
        const auto g = core::geometry(c, d, s, n);
        buf_bytes = std::max(buf_bytes, std::max(g.send_count, g.recv_count) * core::dtype_size(d));
        if (be.name() == "mpi" && g.count > static_cast<std::uint64_t>(INT_MAX)) {
          throw UsageError(
              fmt::format("-e/--maxbytes: {} B gives count {} for {} {}, above the MPI limit 2^31-1 "
                          "(lower -e or use a larger -d type)",
                          s, g.count, core::name(c), core::name(d)));
        }
      }
    }
  }
  const std::optional<core::Fault> fault = core::fault_from_env();

  model::SweepResult res;
  res.options = requested;
  res.max_bytes_reduced_to = reduced_to;
  comm::enter_phase("sweep align clocks");
  const comm::ClockAlignment clocks = comm::align_clocks(comm);
  res.topology = describe_topology(comm, be.name(), clocks, be.library_version());

  // `# Using devices` lines.
  const std::string mine =
      fmt::format("{}\t{}\t{}", static_cast<int>(::getpid()), be.device_index(), be.device_label());
  const auto lines = comm.gather(mine, 0);
  for (std::size_t r = 0; r < lines.size(); ++r) {
    model::RankDevice dev;
    dev.rank = static_cast<int>(r);
    dev.host = comm.hosts_of_ranks()[r];
    const auto t1 = lines[r].find('\t');
    const auto t2 = lines[r].find('\t', t1 + 1);
    dev.pid = std::stoi(lines[r].substr(0, t1));
    dev.device = std::stoi(lines[r].substr(t1 + 1, t2 - t1 - 1));
    dev.label = lines[r].substr(t2 + 1);
    res.devices.push_back(std::move(dev));
  }

  // nccl-tests -M (common.cu): device memory free before the buffers, after them, and after every series.
  const std::optional<std::int64_t> free_before_buffers = be.device_free_bytes();
  Buffers bufs{be, nullptr, nullptr, {}};
  const std::uint64_t unalign_bytes = static_cast<std::uint64_t>(opts.unalign) * 8;  // the widest type
  bufs.send = be.alloc(buf_bytes + unalign_bytes);
  bufs.recv = be.alloc(buf_bytes + unalign_bytes);
  if (opts.agg_iters > 1 && be.group_needs_own_buffers()) {
    // Every call of an MPI aggregate has its own pair of buffers: refuse before allocating what this host
    // does not have (half its physical memory, all ranks of the host together).
    const double need = 2.0 * static_cast<double>(buf_bytes + unalign_bytes) * opts.agg_iters;
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    const double have = pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0;
    const auto local = static_cast<double>(
        comm.ranks_by_host()[static_cast<std::size_t>(comm.host_index(comm.rank()))].size());
    const std::int64_t too_big = have > 0 && need * local > have / 2 ? 1 : 0;
    if (comm.allreduce(too_big, comm::ScalarOp::kMax) != 0) {
      throw UsageError(fmt::format(
          "-m/--agg_iters {}: on the mpi backend every aggregated op has its own buffers ({} x 2 x {} B per "
          "rank), more than half this host's memory (lower -m or -e)",
          opts.agg_iters, opts.agg_iters, buf_bytes));
    }
    for (int k = 1; k < opts.agg_iters; ++k) {
      bufs.extra.emplace_back(nullptr, nullptr);
      bufs.extra.back().first = be.alloc(buf_bytes + unalign_bytes);
      bufs.extra.back().second = be.alloc(buf_bytes + unalign_bytes);
    }
  }
  const std::optional<std::int64_t> free_after_buffers = be.device_free_bytes();
  std::vector<unsigned char> host(buf_bytes);
  SeriesRunner runner(comm, be, opts, clocks, fault, bufs.send, bufs.recv, host.data(), buf_bytes,
                      bufs.extra);
  runner.blocks_total = 0;
  for (Collective c : opts.collectives) {
    const std::size_t roots = core::is_rooted(c) ? (opts.root == -1 ? static_cast<std::size_t>(n) : 1) : 1;
    const std::size_t ops = core::has_redop(c) ? opts.redops.size() : 1;
    runner.blocks_total += opts.dtypes.size() * ops * roots;
  }

  for (Collective c : opts.collectives) {
    std::vector<int> roots{-1};
    if (core::is_rooted(c)) {
      roots.clear();
      if (opts.root == -1) {
        for (int r = 0; r < n; ++r) roots.push_back(r);
      } else {
        roots.push_back(opts.root);
      }
    }
    std::vector<std::optional<RedOp>> ops{std::nullopt};
    if (core::has_redop(c)) ops.assign(opts.redops.begin(), opts.redops.end());
    // nccl-tests order: type → op → root → cycle → size.
    for (Dtype d : opts.dtypes) {
      for (const auto& op : ops) {
        for (int root : roots) res.blocks.push_back(runner.run(c, d, op, root, sizes));
      }
    }
  }
  res.total_wrong = runner.total_wrong;
  res.failed_checks = runner.failed_checks;
  if (opts.memory > 0) {  // every rank takes part; the maximum over ranks, as nccl-tests' MPI_Allreduce MAX
    const auto init = be.init_memory_bytes();
    const std::int64_t user =
        free_before_buffers && free_after_buffers ? *free_before_buffers - *free_after_buffers : 0;
    // nccl-tests threadRunTests: free before every test of the run − free after them (connections, graphs)
    const std::optional<std::int64_t> free_at_end = be.device_free_bytes();
    const std::int64_t collective_bytes =
        free_after_buffers && free_at_end ? *free_after_buffers - *free_at_end : 0;
    model::GpuMemoryUsage m;
    m.init_bytes = comm.allreduce(init.value_or(0), comm::ScalarOp::kMax);
    m.user_bytes = comm.allreduce(user, comm::ScalarOp::kMax);
    m.collective_bytes = comm.allreduce(collective_bytes, comm::ScalarOp::kMax);
    if (init) res.gpu_memory = m;
  }
  comm.barrier();
  if (const comm::nccl::LogCapture* log = be.library_log()) {
    comm::enter_phase("sweep read NCCL logs");
    collect_library_logs(comm, *log, res);
  }
  return res;
}

static comm::nccl::Tuning nccl_tuning(const SweepOptions& o) {
  comm::nccl::Tuning t;
  t.local_register = o.local_register;
  t.cta_policy = o.cta_policy;
  t.cudagraph_launches = o.cudagraph;
  t.mulsum = has_mulsum(o);
  t.stream_null = o.stream_null;
  t.fp8 = has_fp8(o);
  return t;
}

model::SweepResult run_sweep(const comm::Communicator& comm, const SweepOptions& opts) {
  validate(opts);
  auto be = comm::make_backend(opts.backend, comm, nccl_tuning(opts));
  return run_sweep(comm, *be, opts);
}

}  // namespace fabcheck::probes
