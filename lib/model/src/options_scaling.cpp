// The scaling probe's option table. The standalone `fabcheck scaling` runs its own sweep first;
// inside `fabcheck run` the sweep step provides it, so the standalone sweep's range flags are CLI-only.
#include "fabcheck/model/option_tables.hpp"

namespace fabcheck::model {

using nlohmann::json;

namespace {

OptionTable<ScalingOptions> make_scaling_table() {
  using K = OptKind;
  using O = ScalingOptions;
  OptionTable<O> t;
  t.probe = "scaling";
  t.options = {
      {{"collective", "--collective,--reference", K::kCollective, 0, 0, "",
        "Reference collective measured on the host groups (allreduce, allgather, reducescatter)"},
       [](const O& o) { return json(std::string(core::name(o.collective))); },
       [](O& o, const json& v) { o.collective = *core::parse_collective(v.get<std::string>()); }},
      field({"max_bytes", "-e,--maxbytes,--max-bytes", K::kSize, 1, 0, "",
             "Size measured on every host group (standalone: also the sweep's largest size)"},
            &O::size_bytes),
      field({"iters", "--iters,--group-iters", K::kInt, 1, 1e9, "", "Timed ops per host group"}, &O::iters),
      field({"warmup_iters", "-w,--warmup_iters,--warmup-iters", K::kInt, 0, 1e9, "", "Warm-up ops"},
            &O::warmup_iters),
      field({"backend", "--backend", K::kChoice, 0, 0, "mpi|nccl", "Collective backend: mpi or nccl"},
            &O::backend),
      field({"workload", "--workload", K::kString, 0, 0, "",
             "Reference training profile (\"\": the workloads file's default)"},
            &O::workload),
      field({"workloads_file", "--workloads-file,--workloads", K::kString, 0, 0, "",
             "Workloads JSON (\"\": the built-in configs/workloads.json)"},
            &O::workloads_file),
  };
  t.cli_only = model::command_cli_only(
      {{"minbytes", "the standalone command's own sweep (run: the sweep step's min_bytes)"},
       {"sweep-iters", "the standalone command's own sweep, -n (run: the sweep step's iters)"},
       {"stepfactor", "the standalone command's own sweep (run: the sweep step's step_factor)"},
       {"coll", "the standalone command's own sweep (run: the sweep step's collectives)"}});
  return t;
}

}  // namespace

const OptionTable<ScalingOptions>& scaling_option_table() {
  static const OptionTable<ScalingOptions> t = make_scaling_table();
  return t;
}

}  // namespace fabcheck::model
