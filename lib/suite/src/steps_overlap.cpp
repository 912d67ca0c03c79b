// Adapter: config section "overlap" -> probes::OverlapOptions -> run_overlap -> add_overlap / render_overlap.
#include "fabcheck/model/option_tables.hpp"
#include "steps.hpp"

#include "fabcheck/core/error.hpp"
#include "fabcheck/probes/overlap.hpp"
#include "fabcheck/report/overlap.hpp"

namespace fabcheck::suite::detail {
namespace {

probes::OverlapOptions overlap_options(const Step& st) {
  return options_of(model::overlap_option_table(), st);
}

void validate_overlap(const Step& st) {
  probes::validate(overlap_options(st));
}

void run_overlap_step(StepContext& ctx) {
  const auto o = overlap_options(ctx.step);
  if (auto why = probes::overlap_skip_reason(ctx.world, o.backend)) throw UsageError(*why);
  const auto r = probes::run_overlap(ctx.world, o);
  if (ctx.doc) {
    report::add_overlap(*ctx.doc, r);
    ctx.console = report::render_overlap(r);
  }
}

const ProbeAdapter kOverlap{"overlap", validate_overlap, run_overlap_step};

}  // namespace

const ProbeAdapter* overlap_adapter() {
  return &kOverlap;
}

}  // namespace fabcheck::suite::detail
