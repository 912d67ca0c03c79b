// Adapter: config section "step" -> probes::TrainStepOptions and the workload's StepPlan -> run_train_step ->
// add_step / render_step.
#include "fabcheck/model/option_tables.hpp"
#include "steps.hpp"

#include "fabcheck/core/error.hpp"
#include "fabcheck/probes/train_step.hpp"
#include "fabcheck/report/train_step.hpp"
#include "fabcheck/report/workloads.hpp"

namespace fabcheck::suite::detail {
namespace {

probes::TrainStepOptions train_step_options(const Step& st) {
  return options_of(model::step_option_table(), st);
}

// The profile (from the workloads file) and the plan of its scaled step; errors name --workload(s).
struct StepWorkload {
  report::WorkloadProfile profile;
  model::StepPlan plan;
};

StepWorkload step_workload(const probes::TrainStepOptions& o) {
  const report::WorkloadSet set = report::load_workloads(o.workloads_file, "--workloads");
  StepWorkload w{report::find_workload(set, o.workload, "--workload"), {}};
  w.plan = report::plan_train_step(w.profile, o.scale, o.max_buckets);
  return w;
}

void validate_train_step(const Step& st) {
  const auto o = train_step_options(st);
  probes::validate(o);
  (void)step_workload(o);
}

void run_train_step_step(StepContext& ctx) {
  if (auto why = probes::step_skip_reason(ctx.world)) throw UsageError(*why);
  const auto o = train_step_options(ctx.step);
  const StepWorkload w = step_workload(o);
  const auto r = probes::run_train_step(ctx.world, o, w.plan);
  if (ctx.doc) {
    report::add_step(*ctx.doc, r, w.profile);
    ctx.console = report::render_step(ctx.doc->json()["step"]);
  }
}

const ProbeAdapter kTrainStep{"step", validate_train_step, run_train_step_step};

}  // namespace

const ProbeAdapter* step_adapter() {
  return &kTrainStep;
}

}  // namespace fabcheck::suite::detail
