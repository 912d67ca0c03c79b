// `fabcheck sweep`: nccl-tests-style collective sweep (DESIGN §3, §7). Thin: flags → SweepOptions → probe →
// report.
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "agree.hpp"
#include "command.hpp"
#include "fabcheck/comm/backend.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/fault.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/probes/sweep.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/sweep.hpp"

namespace fabcheck::app {
namespace {

struct SweepFlags {
  std::string min_bytes = "32M", max_bytes = "32M", step_bytes = "1M";
  long long step_factor = 1;
  int iters = 20, warmup = 1, check = 1, root = 0, average = 1, blocking = 0, cycles = 1;
  int nthreads = 1, ngpus = 1;
  int per_iter = -1, per_iter_rounds = 10;
  long long samples_cap = 10000;
  std::string op = "sum", dtype = "float", coll = "allreduce", backend = "mpi", json;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<core::Dtype> parse_dtypes(const std::string& text) {
  if (text == "all") return core::all_dtypes();
  std::vector<core::Dtype> out;
  for (const auto& item : split_list(text)) {
    if (item == "f8e4m3" || item == "f8e5m2") {
      throw UsageError(fmt::format(
          "-d/--datatype: {} is not supported (use int8 uint8 int32 uint32 int64 uint64 half float "
          "double bfloat16)",
          item));
    }
    auto d = core::parse_dtype(item);
    if (!d) {
      throw UsageError(fmt::format(
          "-d/--datatype: unknown type \"{}\" (use int8 uint8 int32 uint32 int64 uint64 half float "
          "double bfloat16, or all)",
          item));
    }
    out.push_back(*d);
  }
  return out;
}

std::vector<core::RedOp> parse_ops(const std::string& text) {
  if (text == "all") return core::all_redops();
  std::vector<core::RedOp> out;
  for (const auto& item : split_list(text)) {
    if (item == "avg" || item == "mulsum") {
      throw UsageError(
          fmt::format("-o/--op: {} is not supported yet (use sum, prod, min, max, or all)", item));
    }
    auto o = core::parse_redop(item);
    if (!o)
      throw UsageError(fmt::format("-o/--op: unknown op \"{}\" (use sum, prod, min, max, or all)", item));
    out.push_back(*o);
  }
  return out;
}

std::vector<core::Collective> parse_colls(const std::string& text) {
  if (text == "all") return core::all_collectives();
  std::vector<core::Collective> out;
  for (const auto& item : split_list(text)) {
    auto c = core::parse_collective(item);
    if (!c) {
      throw UsageError(
          fmt::format("--coll: unknown collective \"{}\" (use allreduce allgather reducescatter alltoall "
                      "broadcast reduce "
                      "sendrecv gather scatter, a comma list, or all)",
                      item));
    }
    out.push_back(*c);
  }
  return out;
}

probes::SweepOptions to_options(const SweepFlags& f) {
  if (f.nthreads != 1) {
    throw UsageError(
        fmt::format("-t/--nthreads: {} threads per process are not supported (run one MPI rank per "
                    "GPU or process instead: mpirun -np N fabcheck sweep)",
                    f.nthreads));
  }
  if (f.ngpus != 1) {
    throw UsageError(
        fmt::format("-g/--ngpus: {} GPUs per process are not supported (run one MPI rank per GPU "
                    "instead: mpirun -np N fabcheck sweep)",
                    f.ngpus));
  }
  probes::SweepOptions o;
  o.min_bytes = core::parse_size(f.min_bytes, "-b/--minbytes");
  o.max_bytes = core::parse_size(f.max_bytes, "-e/--maxbytes");
  o.step_bytes = core::parse_size(f.step_bytes, "-i/--stepbytes");
  if (f.step_factor < 1) throw UsageError("-f/--stepfactor: must be >= 1 (1 = additive steps of -i)");
  o.step_factor = static_cast<std::uint64_t>(f.step_factor);
  o.iters = f.iters;
  o.warmup_iters = f.warmup;
  o.check = f.check;
  o.redops = parse_ops(f.op);
  o.dtypes = parse_dtypes(f.dtype);
  o.collectives = parse_colls(f.coll);
  o.root = f.root;
  o.average = f.average;
  o.blocking = f.blocking;
  o.cycles = f.cycles;
  o.per_iter_iters = f.per_iter;
  o.per_iter_rounds = f.per_iter_rounds;
  if (f.samples_cap < 1) throw UsageError("--samples-cap: must be >= 1");
  o.samples_cap = static_cast<std::size_t>(f.samples_cap);
  o.backend = f.backend;
  probes::validate(o);
  return o;
}

int run_sweep_cmd(const RunContext& ctx, const SweepFlags& flags) {
  const double t_start = comm::now_us();
  const probes::SweepOptions opts = to_options(flags);
  (void)core::fault_from_env();  // a malformed test hook is a usage error before anything runs
  const auto world = comm::Communicator::world();

  // Rank 0 owns the report file: check it before measuring, and tell every rank so that all stop together.
  if (!flags.json.empty()) agree_on_root_check(world, [&] { report::check_writable(flags.json, "--json"); });

  auto backend = comm::make_backend(opts.backend, world);
  const probes::SweepResult res = probes::run_sweep(world, *backend, opts);
  const int code = res.total_wrong > 0 ? static_cast<int>(ExitCode::kFail) : static_cast<int>(ExitCode::kOk);
  if (world.rank() == 0) {
    // nccl backend: NCCL's own log of every rank → the transport section, drawn as `inspect --nccl-log` does.
    const auto transport = report::sweep_transport(res);
    std::string text = report::render_sweep(res);
    if (transport) {
      // as comment lines, so that nccl-tests table parsers skip them
      text += fmt::format("#\n# Transport, from NCCL's own log ({} of {} ranks)\n", res.nccl_logs.size(),
                          res.topology.nranks);
      const std::string t = report::render_transport(*transport);
      std::size_t start = 0;
      while (start < t.size()) {
        const auto nl = t.find('\n', start);
        text += "# " + t.substr(start, nl == std::string::npos ? std::string::npos : nl - start) + "\n";
        if (nl == std::string::npos) break;
        start = nl + 1;
      }
    }
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    if (!flags.json.empty()) {
      report::Document doc(ctx.argv);
      report::add_sweep(doc, res);
      if (transport) report::add_transport(doc, *transport);
      doc.finish("complete", code, (comm::now_us() - t_start) * 1e-6);
      doc.write_atomic(flags.json);
    }
  }
  return code;
}

const Registrar kSweep{CommandSpec{
    "sweep", "nccl-tests-style collective sweep: algBw/busBw tables, exact data check, per-iteration tails",
    true, 20, [](CLI::App& sub) -> std::function<int(const RunContext&)> {
      auto f = std::make_shared<SweepFlags>();
      sub.add_option("-b,--minbytes", f->min_bytes, "Smallest size (binary suffixes K M G)")
          ->capture_default_str();
      sub.add_option("-e,--maxbytes", f->max_bytes, "Largest size")->capture_default_str();
      sub.add_option("-i,--stepbytes", f->step_bytes, "Additive step when -f is 1")->capture_default_str();
      sub.add_option("-f,--stepfactor", f->step_factor, "Multiplicative step (> 1)")->capture_default_str();
      sub.add_option("-n,--iters", f->iters, "Timed ops per size and placement")->capture_default_str();
      sub.add_option("-w,--warmup_iters", f->warmup, "Warm-up ops per size")->capture_default_str();
      sub.add_option("-c,--check", f->check, "Data-check rounds after timing (0: #wrong N/A)")
          ->capture_default_str();
      sub.add_option("-o,--op", f->op, "Reduction: sum prod min max, a comma list, or all")
          ->capture_default_str();
      sub.add_option("-d,--datatype", f->dtype,
                     "int8 uint8 int32 uint32 int64 uint64 half float double bfloat16, list, or all")
          ->capture_default_str();
      sub.add_option("-r,--root", f->root, "Root of rooted collectives; -1 = every root")
          ->capture_default_str();
      sub.add_option("-a,--average", f->average, "Cross-rank time: 0 rank 0, 1 mean, 2 min, 3 max")
          ->capture_default_str();
      sub.add_option("-z,--blocking", f->blocking,
                     "0 none, 1 sync+barrier per op, 2 sync per op, 3 barrier excluded")
          ->capture_default_str();
      sub.add_option("-N,--run_cycles", f->cycles, "Repeat the sweep N times")->capture_default_str();
      sub.add_option("-t,--nthreads", f->nthreads, "Threads per process (only 1)")->capture_default_str();
      sub.add_option("-g,--ngpus", f->ngpus, "GPUs per process (only 1)")->capture_default_str();
      sub.add_option(
             "--coll", f->coll,
             "Collectives: allreduce allgather reducescatter alltoall broadcast reduce sendrecv gather "
             "scatter, a comma list, or all")
          ->capture_default_str();
      sub.add_option("--backend", f->backend, "Collective backend: mpi (host buffers) or nccl (CUDA buffers)")
          ->capture_default_str();
      sub.add_option("--per-iter-iters", f->per_iter,
                     "Iterations of the separate per-iteration pass (-1: same as -n, 0: off)")
          ->capture_default_str();
      sub.add_option("--per-iter-rounds", f->per_iter_rounds,
                     "Take the per-iteration samples in this many rounds spread over the sweep (1: at once)")
          ->capture_default_str();
      sub.add_option("--samples-cap", f->samples_cap, "Per-iteration samples kept per point in the JSON")
          ->capture_default_str();
      sub.add_option("-J,--json,--out,--output_file", f->json, "Write the JSON report here (atomically)");
      return [f](const RunContext& ctx) { return run_sweep_cmd(ctx, *f); };
    }}};

}  // namespace
}  // namespace fabcheck::app
