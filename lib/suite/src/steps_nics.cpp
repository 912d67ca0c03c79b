// Adapter: config section "nics" -> probes::NicsOptions -> run_nics -> add_nics / render_nics.
#include "fabcheck/model/option_tables.hpp"
#include "steps.hpp"

#include "fabcheck/comm/agree.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/probes/nics.hpp"
#include "fabcheck/report/nics.hpp"

namespace fabcheck::suite::detail {
namespace {

void run_nics_step(StepContext& ctx, const probes::NicsOptions& opts) {
  if (auto why = probes::nics_skip_reason(ctx.world)) throw UsageError(*why);
  // The --nccl-log log is read on rank 0 before anything is measured: an unreadable one stops every rank
  // with one line (parse_nccl_log_file: "--nccl-log: cannot read PATH: reason").
  parse::NcclLog log;
  if (!opts.nccl_log.empty())
    comm::agree_on_root(ctx.world, [&] { log = parse::parse_nccl_log_file(opts.nccl_log); });
  auto r = probes::run_nics(ctx.world, opts);
  if (!opts.nccl_log.empty()) r.nccl_log_hosts = report::nics_nccl_log_hosts(log, r.hosts);
  if (ctx.doc) {
    report::add_nics(*ctx.doc, r);
    ctx.console = report::render_nics(r);
  }
}

}  // namespace

const ProbeAdapter* nics_adapter() {
  return table_adapter<probes::NicsOptions, model::nics_option_table, probes::validate, run_nics_step>(
      "nics");
}

}  // namespace fabcheck::suite::detail
