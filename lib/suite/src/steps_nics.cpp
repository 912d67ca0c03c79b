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

probes::NicsOptions nics_options(const Step& st) {
  return options_of(model::nics_option_table(), st);
}

void validate_nics(const Step& st) {
  probes::validate(nics_options(st));
}

void run_nics_step(StepContext& ctx) {
  if (auto why = probes::nics_skip_reason(ctx.world)) throw UsageError(*why);
  const auto opts = nics_options(ctx.step);
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

const ProbeAdapter kNics{"nics", validate_nics, run_nics_step};

}  // namespace

const ProbeAdapter* nics_adapter() {
  return &kNics;
}

}  // namespace fabcheck::suite::detail
