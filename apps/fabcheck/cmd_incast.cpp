// `fabcheck incast`: many senders to one receiver, fairness and the congestion it causes to a bystander.

#include "command.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/probes/incast.hpp"
#include "fabcheck/suite/single.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct IncastCli {
  std::shared_ptr<BoundOptions<probes::IncastOptions>> opts;
  std::string json;
  ReportOutputs out;  // --html, --junit, --no-counters
};

std::function<int(const RunContext&)> setup_incast(CLI::App& sub) {
  auto cli = std::make_shared<IncastCli>();
  cli->opts = bind_options(sub, model::incast_option_table());
  sub.add_option("--json,-J,--out", cli->json, "Write the JSON report to FILE (atomically)");
  add_report_outputs(sub, cli->out);
  return [cli](const RunContext& ctx) -> int {
    probes::validate(cli->opts->options());  // errors name the flag
    const auto world = comm::Communicator::world();
    const suite::Step step = suite::make_single_step(suite::StepKind::kIncast, cli->opts->given_json());
    return suite::run_single(world, {step},
                             suite::SingleOptions::of(ctx.argv, cli->json)
                                 .with_counters(!cli->out.no_counters)
                                 .with_outputs(cli->out.html, cli->out.junit))
        .exit_code;
  };
}

const Registrar kIncast{probe_command(suite::StepKind::kIncast, setup_incast)};

}  // namespace
}  // namespace fabcheck::app
