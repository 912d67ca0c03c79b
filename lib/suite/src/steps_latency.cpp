// Adapter: config section "latency" -> probes::LatencyOptions -> run_latency -> add_latency / render_latency,
// then its 8 B pairs across hosts as MPI signature evidence for the transport verdict.
#include "fabcheck/probes/latency.hpp"

#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/model/options_sweep.hpp"
#include "fabcheck/report/latency.hpp"
#include "fabcheck/report/signature_sources.hpp"
#include "steps.hpp"

namespace fabcheck::suite::detail {
namespace {

probes::LatencyOptions latency_options(const Step& st) {
  auto o = options_of(model::latency_option_table(), st);
  // Inside a plan with a budget the sections share a time limit (LatencyOptions::time_limit_s).
  if (st.budget_s > 0) o.time_limit_s = model::kSweepBudgetLimitFactor * st.budget_s;
  return o;
}

void validate_latency(const Step& st) {
  probes::validate(latency_options(st));
}

void run_latency_step(StepContext& ctx) {
  const auto r = probes::run_latency(ctx.world, latency_options(ctx.step));
  if (ctx.doc) {
    report::add_latency(*ctx.doc, r);
    ctx.console = report::render_latency(r, ctx.detail);
    add_signatures(ctx, "latency", report::signatures_from_latency(r));
  }
}

const ProbeAdapter kLatency{"latency", validate_latency, run_latency_step};

}  // namespace

const ProbeAdapter* latency_adapter() {
  return &kLatency;
}

}  // namespace fabcheck::suite::detail
