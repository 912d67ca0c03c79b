// `fabcheck overlap`: how much of a nonblocking collective hides behind compute.

#include "command.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/probes/overlap.hpp"
#include "fabcheck/suite/single.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct OverlapFlags {
  std::shared_ptr<BoundOptions<probes::OverlapOptions>> opts;
  std::string json_path;
  ReportOutputs out;  // --html, --junit, --no-counters
};

int run_overlap_cmd(const OverlapFlags& fl, const RunContext& ctx) {
  probes::validate(fl.opts->options());  // errors name the flag
  const auto comm = comm::Communicator::world();
  if (auto why = probes::overlap_skip_reason(comm, fl.opts->options().backend)) throw UsageError(*why);
  const suite::Step step = suite::make_single_step(suite::StepKind::kOverlap, fl.opts->given_json());
  return suite::run_single(comm, {step},
                           suite::SingleOptions::of(ctx.argv, fl.json_path)
                               .with_counters(!fl.out.no_counters)
                               .with_outputs(fl.out.html, fl.out.junit))
      .exit_code;
}

const Registrar kOverlap{
    probe_command(suite::StepKind::kOverlap, [](CLI::App& sub) -> std::function<int(const RunContext&)> {
      auto fl = std::make_shared<OverlapFlags>();
      fl->opts = bind_options(sub, model::overlap_option_table());
      sub.add_option("--json,-J,--out", fl->json_path, "Write the JSON report to FILE (atomically)");
      add_report_outputs(sub, fl->out);
      return [fl](const RunContext& ctx) { return run_overlap_cmd(*fl, ctx); };
    })};

}  // namespace
}  // namespace fabcheck::app
