// The overlap probe's option table.
#include "fabcheck/model/option_tables.hpp"

namespace fabcheck::model {

namespace {

OptionTable<OverlapOptions> make_overlap_table() {
  using K = OptKind;
  using O = OverlapOptions;
  OptionTable<O> t;
  t.probe = "overlap";
  t.options = {
      names({"collectives", "--coll,--collectives", K::kCollectives, 0, 0, "",
             "Nonblocking collectives, a comma list of allreduce allgather reducescatter"},
            &O::collectives, [](const std::string& s) { return core::parse_collective(s); }),
      field({"sizes", "--sizes", K::kSizeList, 1, 0, "", "Message sizes, list (K/M/G binary)"},
            &O::sizes_bytes),
      field({"iters", "--iters,-n", K::kInt, 1, 1e6, "", "Timed iterations of each variant per size"},
            &O::iters),
      field({"warmup", "--warmup,-w", K::kInt, 0, 1e6, "", "Untimed collectives per size"}, &O::warmup),
      field({"poll_us", "--poll-us", K::kNumber, 0, 1e6, "",
             "Also measure with MPI_Test every this many us of compute (0: only without polling)"},
            &O::poll_us),
      field({"backend", "--backend", K::kChoice, 0, 0, "mpi|nccl",
             "Backend: mpi (CPU compute kernel) or nccl (collective and a GPU FMA kernel on two streams)"},
            &O::backend),
  };
  t.cli_only = model::command_cli_only();
  return t;
}

}  // namespace

const OptionTable<OverlapOptions>& overlap_option_table() {
  static const OptionTable<OverlapOptions> t = make_overlap_table();
  return t;
}

}  // namespace fabcheck::model
