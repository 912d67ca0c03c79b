// The probe commands that are their option table and nothing else: `incast`, `nics`, `overlap`, `step`. Each
// is a one-step plan through the driver of `run` (suite::run_single); its flags are its table's,
// `--json,-J,--out` and the report outputs. The commands with flags of their own (sweep's nccl-tests -J/-T,
// latency --verbose, pairs --exclude-hostfile, scaling's own sweep, inspect --nccl-log) keep a file each.
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "command.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/probes/incast.hpp"
#include "fabcheck/probes/nics.hpp"
#include "fabcheck/probes/overlap.hpp"
#include "fabcheck/probes/train_step.hpp"
#include "fabcheck/suite/single.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

/// Why the probe cannot run on these ranks with these options (a usage error, exit 2), or nothing.
template <class O>
using SkipReason = std::function<std::optional<std::string>(const comm::Communicator&, const O&)>;

template <class O>
CommandSpec table_command(suite::StepKind kind, const model::OptionTable<O>& (*table)(),
                          void (*validate)(const O&), SkipReason<O> skip) {
  return probe_command(kind, [=](CLI::App& sub) -> std::function<int(const RunContext&)> {
    struct Flags {
      std::shared_ptr<BoundOptions<O>> opts;
      std::string json;
      ReportOutputs out;
    };
    auto f = std::make_shared<Flags>();
    f->opts = bind_options(sub, table());
    sub.add_option("--json,-J,--out", f->json, "Write the JSON report to FILE (atomically)");
    add_report_outputs(sub, f->out);
    return [f, kind, validate, skip](const RunContext& ctx) {
      validate(f->opts->options());  // errors name the flag
      const auto world = comm::Communicator::world();
      if (skip) {
        if (auto why = skip(world, f->opts->options())) throw UsageError(*why);
      }
      const suite::Step step = suite::make_single_step(kind, f->opts->given_json());
      return suite::run_single(world, {step},
                               suite::SingleOptions::of(ctx.argv, f->json)
                                   .with_counters(!f->out.no_counters)
                                   .with_outputs(f->out.html, f->out.junit))
          .exit_code;
    };
  });
}

const Registrar kIncast{table_command<probes::IncastOptions>(
    suite::StepKind::kIncast, model::incast_option_table, probes::validate, {})};

const Registrar kNics{table_command<probes::NicsOptions>(
    suite::StepKind::kNics, model::nics_option_table, probes::validate,
    [](const comm::Communicator& c, const probes::NicsOptions&) { return probes::nics_skip_reason(c); })};

const Registrar kOverlap{table_command<probes::OverlapOptions>(
    suite::StepKind::kOverlap, model::overlap_option_table, probes::validate,
    [](const comm::Communicator& c, const probes::OverlapOptions& o) {
      return probes::overlap_skip_reason(c, o.backend);
    })};

const Registrar kStep{table_command<probes::TrainStepOptions>(
    suite::StepKind::kStep, model::step_option_table, probes::validate,
    [](const comm::Communicator& c, const probes::TrainStepOptions&) {
      return probes::step_skip_reason(c);
    })};

}  // namespace
}  // namespace fabcheck::app
