// `fabcheck sweep`: nccl-tests-style collective sweep (DESIGN §3, §7): the sweep step of `run` on its own
// (suite::run_single), its flags from the sweep's option table.
#include <string>

#include "command.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/fault.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/probes/sweep.hpp"
#include "fabcheck/suite/single.hpp"
#include "nccl_tests_json_output.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct SweepFlags {
  std::shared_ptr<BoundOptions<probes::SweepOptions>> opts;
  std::string json;
  double timeout_s = 0;     // nccl-tests -T: the watchdog of `run` over the sweep (0 = off)
  std::string output_file;  // -J: nccl-tests' JSON layout
  ReportOutputs out;        // --html, --junit, --no-counters
};

int run_sweep_cmd(const RunContext& ctx, const SweepFlags& flags) {
  probes::validate(flags.opts->options());  // errors name the flag
  (void)core::fault_from_env();             // a malformed test hook is a usage error before anything runs
  const auto world = comm::Communicator::world();
  const suite::Step step = suite::make_single_step(suite::StepKind::kSweep, flags.opts->given_json());
  auto so = suite::SingleOptions::of(ctx.argv, flags.json)
                .with_counters(!flags.out.no_counters)
                .with_outputs(flags.out.html, flags.out.junit);
  so.timeout_s = flags.timeout_s;
  so.other_outputs = {{"-J/--output_file", flags.output_file}};
  const auto jout =
      NcclTestsJsonOutput::open(world.rank() == 0, flags.output_file, ctx.argv, flags.opts->options());
  if (jout) so.on_sweep = [&jout](const model::SweepResult& r) { jout->write(r); };
  return suite::run_single(world, {step}, so).exit_code;
}

const Registrar kSweep{
    probe_command(suite::StepKind::kSweep, [](CLI::App& sub) -> std::function<int(const RunContext&)> {
      auto f = std::make_shared<SweepFlags>();
      f->opts = bind_options(sub, model::sweep_option_table());
      sub.add_option("--json,--out", f->json, "Write the JSON report here (atomically)");
      add_report_outputs(sub, f->out);
      sub.add_option("-J,--output_file", f->output_file,
                     "Write nccl-tests' JSON (its -J layout) here; FILE.0, FILE.1, ... when FILE exists");
      sub.add_option(
             "-T,--timeout", f->timeout_s,
             "nccl-tests -T: seconds an operation may make no progress; then every rank leaves with exit 3 "
             "(nccl-tests: 4) naming the operation and the ranks (0 = off)")
          ->check(CLI::Range(0.0, 86400.0));
      return [f](const RunContext& ctx) { return run_sweep_cmd(ctx, *f); };
    })};

}  // namespace
}  // namespace fabcheck::app
