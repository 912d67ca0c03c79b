// The sweep's option table; its rows are lib/model/options/sweep.json. Flags and meanings follow nccl-tests
// (its README and src/common.cu; docs/DESIGN.md §7); fabcheck's own spellings with '-' are the config keys.
#include <fmt/format.h>

#include "fabcheck/model/option_tables.hpp"
#include "option_rows.hpp"

namespace fabcheck::model {

namespace {

void finish_sweep(SweepOptions& o, const nlohmann::json& given, const KeyNamer& name) {
  // A config that names only step_bytes asks for additive steps (nccl-tests: -i without -f).
  if (given.contains("step_bytes") && !given.contains("step_factor")) o.step_factor = 1;
  if (o.min_bytes > o.max_bytes) {
    throw UsageError(fmt::format("{}: {} is larger than {} {} (give {} <= {})", name("min_bytes"),
                                 o.min_bytes, name("max_bytes"), o.max_bytes, name("min_bytes"),
                                 name("max_bytes")));
  }
}

}  // namespace

FABCHECK_OPTION_TABLE(sweep_option_table, SweepOptions, "sweep", finish_sweep, collectives, min_bytes,
                      max_bytes, step_bytes, step_factor, iters, warmup_iters, check, redops, dtypes, root,
                      average, blocking, cycles, nthreads, ngpus, backend, per_iter_iters, per_iter_rounds,
                      samples_cap, agg_iters, per_iter_timing, per_iter_skip, report_cputime,
                      report_timestamps, unalign, parallel_init, stream_null, cudagraph, local_register,
                      cta_policy, device_implementation, device_cta_count, memory)

}  // namespace fabcheck::model
