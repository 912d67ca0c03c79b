// Adapter: config section "incast" -> probes::IncastOptions -> run_incast -> add_incast / render_incast.
#include "fabcheck/model/option_tables.hpp"
#include "steps.hpp"

#include "fabcheck/probes/incast.hpp"
#include "fabcheck/report/incast.hpp"

namespace fabcheck::suite::detail {
namespace {

void run_incast_step(StepContext& ctx, const probes::IncastOptions& o) {
  // Options that do not fit this run (a receiver not in it, too large a fan-in) skip the section on every
  // rank.
  probes::validate(o, probes::incast_endpoints(ctx.world).names);
  const auto r = probes::run_incast(ctx.world, o);
  if (ctx.doc) {
    report::add_incast(*ctx.doc, r);
    ctx.console = report::render_incast(r);
  }
}

}  // namespace

const ProbeAdapter* incast_adapter() {
  return table_adapter<probes::IncastOptions, model::incast_option_table, probes::validate, run_incast_step>(
      "incast");
}

}  // namespace fabcheck::suite::detail
