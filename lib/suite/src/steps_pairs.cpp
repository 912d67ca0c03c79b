// Adapter: config section "pairs" -> probes::PairsOptions -> run_pairs -> add_pairs / render_pairs, then its
// host-pair latency and bandwidth as MPI signature evidence for the transport verdict.
#include "fabcheck/model/option_tables.hpp"
#include "steps.hpp"

#include "fabcheck/core/error.hpp"
#include "fabcheck/probes/pairs.hpp"
#include "fabcheck/report/pairs.hpp"
#include "fabcheck/report/signature_sources.hpp"

namespace fabcheck::suite::detail {
namespace {

void run_pairs_step(StepContext& ctx, const probes::PairsOptions& o) {
  // One host: the section is skipped with the probe's reason (the same on every rank).
  if (auto why = probes::pairs_skip_reason(ctx.world)) throw UsageError(*why);
  const auto r = probes::run_pairs(ctx.world, o);
  if (ctx.doc) {
    report::add_pairs(*ctx.doc, r);
    if (ctx.state) {
      ctx.state->pairs_passed_hosts = r.passed_hosts();
      ctx.state->pairs_hosts = r.hosts.size();
    }
    ctx.console = report::render_pairs(r);
    add_signatures(ctx, "pairs", report::signatures_from_pairs(r));
  }
}

}  // namespace

const ProbeAdapter* pairs_adapter() {
  return table_adapter<probes::PairsOptions, model::pairs_option_table, probes::validate, run_pairs_step>(
      "pairs");
}

}  // namespace fabcheck::suite::detail
