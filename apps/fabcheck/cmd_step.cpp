// `fabcheck step`: one training step of a workload profile emulated on the fabric, measured beside its
// projection.

#include "command.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/probes/train_step.hpp"
#include "fabcheck/suite/single.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct StepFlags {
  std::shared_ptr<BoundOptions<probes::TrainStepOptions>> opts;
  std::string json_path;
  ReportOutputs out;  // --html, --junit, --no-counters
};

int run_step_cmd(const StepFlags& fl, const RunContext& ctx) {
  probes::validate(fl.opts->options());  // errors name the flag
  const auto comm = comm::Communicator::world();
  if (auto why = probes::step_skip_reason(comm)) throw UsageError(*why);
  const suite::Step step = suite::make_single_step(suite::StepKind::kStep, fl.opts->given_json());
  return suite::run_single(comm, {step},
                           suite::SingleOptions::of(ctx.argv, fl.json_path)
                               .with_counters(!fl.out.no_counters)
                               .with_outputs(fl.out.html, fl.out.junit))
      .exit_code;
}

const Registrar kStep{
    probe_command(suite::StepKind::kStep, [](CLI::App& sub) -> std::function<int(const RunContext&)> {
      auto fl = std::make_shared<StepFlags>();
      fl->opts = bind_options(sub, model::step_option_table());
      sub.add_option("--json,-J,--out", fl->json_path, "Write the JSON report to FILE (atomically)");
      add_report_outputs(sub, fl->out);
      return [fl](const RunContext& ctx) { return run_step_cmd(*fl, ctx); };
    })};

}  // namespace
}  // namespace fabcheck::app
