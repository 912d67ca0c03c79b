// Adapter: config section "nics" -> probes::NicsOptions -> run_nics -> add_nics / render_nics (issue 22).
#include "fabcheck/model/option_tables.hpp"
#include "steps.hpp"

#include "fabcheck/core/error.hpp"
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
  const auto r = probes::run_nics(ctx.world, nics_options(ctx.step));
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
