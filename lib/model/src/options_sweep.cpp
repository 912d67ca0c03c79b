// The sweep's option table (issue 16). Flags and meanings follow nccl-tests
// (../shared/reference/nccl-tests.md as copied into docs/DESIGN.md §7); fabcheck's own spellings with '-' are
// the config keys.
#include "fabcheck/model/option_tables.hpp"

#include <fmt/format.h>

namespace fabcheck::model {

using nlohmann::json;

namespace {

template <class T, class Parse>
OptionSpec<SweepOptions> names(OptionInfo info, std::vector<T> SweepOptions::*m, Parse parse) {
  return {std::move(info),
          [m](const SweepOptions& o) {
            json out = json::array();
            for (const auto& x : o.*m) out.push_back(std::string(core::name(x)));
            return out;
          },
          [m, parse](SweepOptions& o, const json& v) {
            (o.*m).clear();
            for (const auto& s : v) (o.*m).push_back(*parse(s.get<std::string>()));
          }};
}

OptionTable<SweepOptions> make_table() {
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
      names({"op", "-o,--op", K::kRedops, 0, 0, "", "Reduction: sum prod min max, a comma list, or all"},
            &O::redops, [](const std::string& s) { return core::parse_redop(s); }),
      names({"dtype", "-d,--datatype,--dtype", K::kDtypes, 0, 0, "",
             "int8 uint8 int32 uint32 int64 uint64 half float double bfloat16, list, or all"},
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
  };
  t.cli_only = {{"json", "the report file of the standalone command (run: --json)"},
                {"out", "alias of --json"},
                {"output_file", "alias of --json (nccl-tests' -J long name)"}};
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
  static const OptionTable<SweepOptions> t = make_table();
  return t;
}

}  // namespace fabcheck::model
