// The emulated training step's option table.
#include "fabcheck/model/option_tables.hpp"

namespace fabcheck::model {

namespace {

OptionTable<TrainStepOptions> make_step_table() {
  using K = OptKind;
  using O = TrainStepOptions;
  OptionTable<O> t;
  t.probe = "step";
  t.options = {
      field({"workload", "--workload", K::kString, 0, 0, "",
             "Training profile emulated, ddp or fsdp (\"\": the workloads file's default)"},
            &O::workload),
      field({"workloads_file", "--workloads-file,--workloads", K::kString, 0, 0, "",
             "Workloads JSON (\"\": the built-in configs/workloads.json)"},
            &O::workloads_file),
      field({"scale", "--scale", K::kNumber, 0, 1, "",
             "Fraction of the profile's buckets and compute emulated (0: auto, at most --max-buckets)"},
            &O::scale),
      field({"max_buckets", "--max-buckets", K::kInt, 1, 1e4, "",
             "Buckets (fsdp: units) per emulated step when --scale is 0"},
            &O::max_buckets),
      field({"iters", "--iters,-n", K::kInt, 1, 1e6, "", "Timed iterations of the step and of its compute"},
            &O::iters),
      field({"warmup", "--warmup,-w", K::kInt, 0, 1e6, "", "Untimed steps"}, &O::warmup),
      field({"poll_us", "--poll-us", K::kNumber, 0, 1e6, "",
             "The step's compute calls MPI_Test every this many us (0: no MPI call during compute)"},
            &O::poll_us),
  };
  t.cli_only = model::command_cli_only();
  return t;
}

}  // namespace

const OptionTable<TrainStepOptions>& step_option_table() {
  static const OptionTable<TrainStepOptions> t = make_step_table();
  return t;
}

}  // namespace fabcheck::model
