// The sweep's option table. Flags and meanings follow nccl-tests
// (its README and src/common.cu; docs/DESIGN.md §7); fabcheck's own spellings with '-' are
// the config keys.
#include "fabcheck/model/option_tables.hpp"

#include <fmt/format.h>

namespace fabcheck::model {

using nlohmann::json;

namespace {

OptionTable<SweepOptions> make_sweep_table() {
  using K = OptKind;
  using O = SweepOptions;
  OptionTable<O> t;
  t.probe = "sweep";
  t.options = {
      names({"collectives", "--coll,--collectives", K::kCollectives, 0, 0, "",
             "Collectives: allreduce allgather reducescatter alltoall broadcast reduce sendrecv gather "
             "scatter, "
             "a comma list, or all"},
            &O::collectives, [](const std::string& s) { return core::parse_collective(s); }),
      field({"min_bytes", "-b,--minbytes,--min-bytes", K::kSize, 0, 0, "",
             "Smallest size (binary suffixes K M G)"},
            &O::min_bytes),
      field({"max_bytes", "-e,--maxbytes,--max-bytes", K::kSize, 0, 0, "", "Largest size"}, &O::max_bytes),
      field({"step_bytes", "-i,--stepbytes,--step-bytes", K::kSize, 1, 0, "", "Additive step when -f is 1"},
            &O::step_bytes),
      field({"step_factor", "-f,--stepfactor,--step-factor", K::kInt, 1, 1024, "",
             "Multiplicative step (> 1); 1 = additive steps of -i"},
            &O::step_factor),
      field({"iters", "-n,--iters", K::kInt, 1, 1e9, "", "Timed ops per size and placement"}, &O::iters),
      field({"warmup_iters", "-w,--warmup_iters,--warmup-iters", K::kInt, 0, 1e9, "", "Warm-up ops per size"},
            &O::warmup_iters),
      {{"check", "-c,--check", K::kInt, 0, 1e6, "", "Data-check rounds after timing (0: #wrong N/A)", false,
        false, true},
       [](const O& o) { return json(o.check); },
       [](O& o, const json& v) { o.check = v.get<int>(); }},
      names({"op", "-o,--op", K::kRedops, 0, 0, "",
             "Reduction: sum prod min max avg, a comma list, or all; mulsum by name (nccl)"},
            &O::redops, [](const std::string& s) { return core::parse_redop(s); }),
      names(
          {"dtype", "-d,--datatype,--dtype", K::kDtypes, 0, 0, "",
           "int8 uint8 int32 uint32 int64 uint64 half float double bfloat16, list, or all (nccl-tests' ten); "
           "f8e4m3 f8e5m2 by name"},
          &O::dtypes, [](const std::string& s) { return core::parse_dtype(s); }),
      field({"root", "-r,--root", K::kInt, -1, 1e9, "", "Root of rooted collectives; -1 = every root"},
            &O::root),
      field({"average", "-a,--average", K::kInt, 0, 3, "", "Cross-rank time: 0 rank 0, 1 mean, 2 min, 3 max"},
            &O::average),
      field({"blocking", "-z,--blocking", K::kInt, 0, 3, "",
             "0 none, 1 sync+barrier per op, 2 sync per op, 3 barrier excluded"},
            &O::blocking),
      field({"run_cycles", "-N,--run_cycles,--run-cycles", K::kInt, 1, 1e9, "", "Repeat the sweep N times"},
            &O::cycles),
      field({"nthreads", "-t,--nthreads", K::kInt, -1e9, 1e9, "", "Threads per process (only 1)"},
            &O::nthreads),
      field({"ngpus", "-g,--ngpus", K::kInt, -1e9, 1e9, "", "GPUs per process (only 1)"}, &O::ngpus),
      field({"backend", "--backend", K::kChoice, 0, 0, "mpi|nccl",
             "Collective backend: mpi (host buffers) or nccl (CUDA buffers)"},
            &O::backend),
      field({"per_iter_iters", "--per-iter-iters", K::kInt, -1, 1e9, "",
             "Iterations of the separate per-iteration pass (-1: same as -n, 0: off)"},
            &O::per_iter_iters),
      field({"per_iter_rounds", "--per-iter-rounds", K::kInt, 1, 1e6, "",
             "Take the per-iteration samples in this many rounds spread over the sweep (1: at once)"},
            &O::per_iter_rounds),
      field({"samples_cap", "--samples-cap", K::kInt, 1, 1e12, "",
             "Per-iteration samples kept per point in the JSON"},
            &O::samples_cap),
      // nccl-tests' remaining flags, their nccl-tests names and meanings.
      field({"agg_iters", "-m,--agg_iters,--agg-iters", K::kInt, 1, 1e6, "",
             "Ops aggregated per timed iteration (nccl-tests -m; only 1 so far)"},
            &O::agg_iters),
      field({"per_iter_timing", "-I,--per_iter_timing,--per-iter-timing", K::kInt, 0, 1, "",
             "1: add nccl-tests' i_min i_max i_p99 i_cv% columns (from the per-iteration pass)"},
            &O::per_iter_timing),
      field({"per_iter_skip", "-K,--per_iter_skip,--per-iter-skip", K::kInt, 0, 1e9, "",
             "Leading per-iteration samples left out of the -I columns"},
            &O::per_iter_skip),
      field({"report_cputime", "-C,--report_cputime,--report-cputime", K::kInt, 0, 1, "",
             "1: report CPU time per op (the column reads cputime; MPI ops are blocking: the same time)"},
            &O::report_cputime),
      field({"report_timestamps", "-S,--report_timestamps,--report-timestamps", K::kInt, 0, 1, "",
             "1: end each row with the time it was measured (%Y-%m-%d %H:%M:%S)"},
            &O::report_timestamps),
      field({"unalign", "-u,--unalign", K::kInt, 0, 1e6, "", "Offset the buffers by this many elements"},
            &O::unalign),
      field({"parallel_init", "-p,--parallel_init,--parallel-init", K::kInt, 0, 1, "",
             "nccl-tests' per-thread communicator init: recorded, no effect (one rank per process)"},
            &O::parallel_init),
      field({"stream_null", "-y,--stream_null,--stream-null", K::kInt, 0, 1, "",
             "nccl-tests' NULL stream: recorded, no effect on the mpi backend"},
            &O::stream_null),
      field({"cudagraph", "-G,--cudagraph", K::kInt, 0, 1e6, "", "CUDA graph launches (nccl backend only)"},
            &O::cudagraph),
      field({"local_register", "-R,--local_register,--local-register", K::kInt, 0, 2, "",
             "Buffer registration 1 ncclCommRegister, 2 symmetric window (nccl backend only)"},
            &O::local_register),
      field({"cta_policy", "-x,--cta_policy,--cta-policy", K::kInt, -1, 2, "",
             "NCCL CTA policy 0/1/2 (nccl backend only; -1 unset)"},
            &O::cta_policy),
      field({"device_implementation", "-D,--device_implementation,--device-implementation", K::kInt, 0, 1e6,
             "", "NCCL device-API kernels (nccl backend only)"},
            &O::device_implementation),
      field({"device_cta_count", "-V,--device_cta_count,--device-cta-count", K::kInt, 1, 128, "",
             "CTAs for -D (nccl backend only)"},
            &O::device_cta_count),
      field({"memory", "-M,--memory", K::kInt, 0, 1, "",
             "1: print the GPU memory usage line (nccl backend only)"},
            &O::memory),
  };
  t.cli_only = model::command_cli_only(
      {{"output_file", "alias of --json (nccl-tests' -J long name)"},
       {"timeout", "nccl-tests' -T for the standalone sweep (run: its own --timeout watches every step)"}});
  t.finish = [](O& o, const json& given, const KeyNamer& name) {
    // A config that names only step_bytes asks for additive steps (nccl-tests: -i without -f).
    if (given.contains("step_bytes") && !given.contains("step_factor")) o.step_factor = 1;
    if (o.min_bytes > o.max_bytes) {
      throw UsageError(fmt::format("{}: {} is larger than {} {} (give {} <= {})", name("min_bytes"),
                                   o.min_bytes, name("max_bytes"), o.max_bytes, name("min_bytes"),
                                   name("max_bytes")));
    }
  };
  return t;
}

}  // namespace

const OptionTable<SweepOptions>& sweep_option_table() {
  static const OptionTable<SweepOptions> t = make_sweep_table();
  return t;
}

}  // namespace fabcheck::model
