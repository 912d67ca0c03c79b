// Adapter: config section "scaling" -> probes::ScalingOptions -> run_scaling -> add_scaling (with the
// report's sweeps) / render_scaling.
#include "fabcheck/probes/scaling.hpp"

#include "fabcheck/core/collective.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/model/options_sweep.hpp"
#include "fabcheck/report/scaling.hpp"
#include "steps.hpp"

namespace fabcheck::suite::detail {
namespace {

probes::ScalingOptions scaling_options(const Step& st) {
  return options_of(model::scaling_option_table(), st);
}

void validate_scaling(const Step& st) {
  const auto o = scaling_options(st);
  probes::validate(o);
  report::check_scaling_workload(o);
}

void run_scaling_step(StepContext& ctx) {
  auto o = scaling_options(ctx.step);
  // Inside a plan with a budget the groups stop before model::kSweepBudgetLimitFactor x the budget (a slow
  // host joining the groups took the default run's scaling step to 302 s of its 8).
  if (ctx.step.budget_s > 0) o.time_limit_s = model::kSweepBudgetLimitFactor * ctx.step.budget_s;
  const auto r = probes::run_scaling(ctx.world, o);
  if (ctx.doc) {
    report::add_scaling(*ctx.doc, r);
    ctx.console = report::render_scaling(r, *ctx.doc);
  }
}

const ProbeAdapter kScaling{"scaling", validate_scaling, run_scaling_step};

}  // namespace

const ProbeAdapter* scaling_adapter() {
  return &kScaling;
}

}  // namespace fabcheck::suite::detail
