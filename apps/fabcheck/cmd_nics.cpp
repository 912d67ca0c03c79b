// `fabcheck nics`: every data NIC pair of every host pair, rail-only fabrics, dead and slow NICs, the
// management NIC in use.

#include "command.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/probes/nics.hpp"
#include "fabcheck/suite/single.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct NicsFlags {
  std::shared_ptr<BoundOptions<probes::NicsOptions>> opts;
  std::string json_path;
  ReportOutputs out;  // --html, --junit, --no-counters
};

int run(const NicsFlags& fl, const RunContext& ctx) {
  probes::validate(fl.opts->options());  // errors name the flag
  const auto comm = comm::Communicator::world();
  if (auto why = probes::nics_skip_reason(comm)) throw UsageError(*why);
  const suite::Step step = suite::make_single_step(suite::StepKind::kNics, fl.opts->given_json());
  const auto out = suite::run_single(comm, {step},
                                     suite::SingleOptions::of(ctx.argv, fl.json_path)
                                         .with_counters(!fl.out.no_counters)
                                         .with_outputs(fl.out.html, fl.out.junit));
  return out.exit_code;
}

const Registrar kNics{
    probe_command(suite::StepKind::kNics, [](CLI::App& sub) -> std::function<int(const RunContext&)> {
      auto fl = std::make_shared<NicsFlags>();
      fl->opts = bind_options(sub, model::nics_option_table());
      sub.add_option("--json,-J,--out", fl->json_path, "Write the JSON report to FILE (atomically)");
      add_report_outputs(sub, fl->out);
      return [fl](const RunContext& ctx) { return run(*fl, ctx); };
    })};

}  // namespace
}  // namespace fabcheck::app
