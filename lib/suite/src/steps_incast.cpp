// Adapter: config section "incast" -> probes::IncastOptions -> run_incast -> add_incast / render_incast.
#include "fabcheck/model/option_tables.hpp"
#include "steps.hpp"

#include "fabcheck/probes/incast.hpp"
#include "fabcheck/report/incast.hpp"

namespace fabcheck::suite::detail {
namespace {

probes::IncastOptions incast_options(const Step& st) {
  return options_of(model::incast_option_table(), st);
}

void validate_incast(const Step& st) {
  probes::validate(incast_options(st));
}

void run_incast_step(StepContext& ctx) {
  const auto o = incast_options(ctx.step);
  // Options that do not fit this run (a receiver not in it, too large a fan-in) skip the section on every
  // rank.
  probes::validate(o, probes::incast_endpoints(ctx.world).names);
  const auto r = probes::run_incast(ctx.world, o);
  if (ctx.doc) {
    report::add_incast(*ctx.doc, r);
    ctx.console = report::render_incast(r);
  }
}

const ProbeAdapter kIncast{"incast", validate_incast, run_incast_step};

}  // namespace

const ProbeAdapter* incast_adapter() {
  return &kIncast;
}

}  // namespace fabcheck::suite::detail
