// The option tables whose every row sets one Options member (option_rows.hpp; the rows are
// lib/model/options/<probe>.json). The latency and sweep tables, with rules of their own, have files of their
// own.
#include "fabcheck/model/option_tables.hpp"

#include "option_rows.hpp"

namespace fabcheck::model {

FABCHECK_OPTION_TABLE(incast_option_table, IncastOptions, "incast", {}, receiver, fan_in, sizes_bytes, rounds,
                      duration_s, victim, congestors, victim_iters, victim_interval_us)

FABCHECK_OPTION_TABLE(inventory_option_table, InventoryOptions, "inspect", {}, sysfs_root, etc_root,
                      proc_root, nccl_version, use_verbs, run_nvidia_smi)

FABCHECK_OPTION_TABLE(nics_option_table, NicsOptions, "nics", {}, ifaces, size_bytes, budget_ms, lat_iters,
                      lat_warmup, connect_timeout_ms, retest, verbs, verbs_size_bytes, verbs_iters,
                      verbs_tx_depth, nccl_log)

FABCHECK_OPTION_TABLE(overlap_option_table, OverlapOptions, "overlap", {}, collectives, sizes_bytes, iters,
                      warmup, poll_us, backend)

FABCHECK_OPTION_TABLE(pairs_option_table, PairsOptions, "pairs", {}, size_bytes, window, iters, warmup,
                      budget_ms, lat_iters, lat_warmup, bidir, all_ranks, retest, line_rate_gbit)

FABCHECK_OPTION_TABLE(scaling_option_table, ScalingOptions, "scaling", {}, collective, size_bytes, iters,
                      warmup_iters, backend, workload, workloads_file)

FABCHECK_OPTION_TABLE(step_option_table, TrainStepOptions, "step", {}, workload, workloads_file, scale,
                      max_buckets, iters, warmup, poll_us)

}  // namespace fabcheck::model
