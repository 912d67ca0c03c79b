// Adapter: config section "sweep" -> probes::SweepOptions -> run_sweep -> add_sweep / render_sweep.
#include "fabcheck/model/option_tables.hpp"
#include "steps.hpp"

#include <fmt/format.h>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/probes/sweep.hpp"
#include "fabcheck/report/sweep.hpp"

namespace fabcheck::suite::detail {
namespace {

probes::SweepOptions sweep_options(const Step& st) {
  return options_of(model::sweep_option_table(), st);
}

void validate_sweep(const Step& st) {
  probes::validate(sweep_options(st));
}

// A sweep inside a plan with a budget stops its sizes before model::kSweepBudgetLimitFactor x the budget
// (a throttled host must not turn the default run into minutes; the report names the first size
// left out). A standalone `sweep` has no budget and measures every size.

void run_sweep_step(StepContext& ctx) {
  auto o = sweep_options(ctx.step);
  if (ctx.step.budget_s > 0) o.time_limit_s = model::kSweepBudgetLimitFactor * ctx.step.budget_s;
  const auto r = probes::run_sweep(ctx.world, o);
  if (ctx.doc) {  // rank 0: the document and the suite state come together
    report::add_sweep(*ctx.doc, r);
    if (ctx.state->on_sweep) ctx.state->on_sweep(r);
    ctx.console = ctx.detail == model::ConsoleDetail::kCompact ? report::render_sweep_compact(r)
                                                               : report::render_sweep(r);
    // nccl backend: NCCL's own log is direct evidence of the transport; it joins the inventory's evidence
    // and the verdict is redrawn from both (later signatures keep it).
    if (!r.nccl_logs.empty() || !r.nccl_log_notes.empty()) {
      ctx.state->transport_evidence.add_nccl_logs(r.nccl_logs, r.nccl_env, r.nccl_log_notes);
      redraw_transport(ctx);
      const std::string t = report::render_transport(*ctx.state->transport);
      // as comment lines, so that nccl-tests table parsers skip them
      ctx.console += fmt::format("#\n# Transport, from NCCL's own log ({} of {} ranks)\n", r.nccl_logs.size(),
                                 r.topology.nranks);
      std::size_t start = 0;
      while (start < t.size()) {
        const auto nl = t.find('\n', start);
        ctx.console +=
            "# " + t.substr(start, nl == std::string::npos ? std::string::npos : nl - start) + "\n";
        if (nl == std::string::npos) break;
        start = nl + 1;
      }
    }
  }
}

const ProbeAdapter kSweep{"sweep", validate_sweep, run_sweep_step};

}  // namespace

const ProbeAdapter* sweep_adapter() {
  return &kSweep;
}

}  // namespace fabcheck::suite::detail
