// Adapter: config section "overlap" -> probes::OverlapOptions -> run_overlap -> add_overlap / render_overlap.
#include "fabcheck/model/option_tables.hpp"
#include "steps.hpp"

#include "fabcheck/core/error.hpp"
#include "fabcheck/probes/overlap.hpp"
#include "fabcheck/report/overlap.hpp"

namespace fabcheck::suite::detail {
namespace {

void run_overlap_step(StepContext& ctx, const probes::OverlapOptions& o) {
  if (auto why = probes::overlap_skip_reason(ctx.world, o.backend)) throw UsageError(*why);
  const auto r = probes::run_overlap(ctx.world, o);
  if (ctx.doc) {
    report::add_overlap(*ctx.doc, r);
    ctx.console = report::render_overlap(r);
  }
}

}  // namespace

const ProbeAdapter* overlap_adapter() {
  return table_adapter<probes::OverlapOptions, model::overlap_option_table, probes::validate,
                       run_overlap_step>("overlap");
}

}  // namespace fabcheck::suite::detail
