// `fabcheck scaling`: the scaling-efficiency score on its own (DESIGN §5). Sweeps the collectives
// the workload model needs (the sweep probe), measures busBw on host groups of 2, 4, … N (the scaling probe),
// and writes the `sweeps`, `scaling` and `score` sections. Thin: flags → options → probes → report.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "command.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/probes/scaling.hpp"
#include "fabcheck/report/scaling.hpp"
#include "fabcheck/suite/single.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct ScalingCli {
  std::shared_ptr<BoundOptions<probes::ScalingOptions>> opts;
  // The standalone command's own sweep (in `run` the sweep step provides it): CLI-only.
  std::string min_bytes = "1M", coll = "allreduce,allgather,reducescatter";
  long long step_factor = 2;
  int sweep_iters = 5;
  std::string json;
  ReportOutputs out;  // --html, --junit, --no-counters
};

// --coll: read as the sweep's collectives option reads it (one normalizer), limited to those with a ring
// model.
nlohmann::json ring_collectives(const std::string& text) {
  const auto& row = model::sweep_option_table().find("collectives")->info;
  const nlohmann::json names = model::normalize_value(row, text, "--coll");
  for (const auto& n : names) {
    if (!report::has_ring_model(*core::parse_collective(n.get<std::string>()))) {
      throw UsageError(
          fmt::format("--coll: \"{}\" has no ring model (use allreduce, allgather, reducescatter)",
                      n.get<std::string>()));
    }
  }
  return names;
}

int run_scaling_cmd(const RunContext& ctx, const ScalingCli& f) {
  const probes::ScalingOptions opts = f.opts->options();  // errors name the flag
  probes::validate(opts);
  // The command's own sweep: what the sweep step gives the scaling step inside `run`.
  const nlohmann::json colls = ring_collectives(f.coll);
  if (f.step_factor < 1) throw UsageError("-f/--stepfactor: must be >= 1");
  const nlohmann::json sweep = {
      {"collectives", colls},         {"min_bytes", core::parse_size(f.min_bytes, "-b/--minbytes")},
      {"max_bytes", opts.size_bytes}, {"step_factor", f.step_factor},
      {"iters", f.sweep_iters},       {"warmup_iters", opts.warmup_iters},
      {"per_iter_iters", 0},  // the score needs the table times only
      {"backend", opts.backend}};
  const auto world = comm::Communicator::world();
  const std::vector<suite::Step> steps = {
      suite::make_single_step(suite::StepKind::kSweep, sweep),
      suite::make_single_step(suite::StepKind::kScaling, f.opts->given_json())};
  auto so = suite::SingleOptions::of(ctx.argv, f.json)
                .with_counters(!f.out.no_counters)
                .with_outputs(f.out.html, f.out.junit);
  so.silent = {suite::StepKind::kSweep};
  return suite::run_single(world, steps, so).exit_code;
}

const Registrar kScaling{
    probe_command(suite::StepKind::kScaling, [](CLI::App& sub) -> std::function<int(const RunContext&)> {
      auto f = std::make_shared<ScalingCli>();
      f->opts = bind_options(sub, model::scaling_option_table());
      sub.add_option("-b,--minbytes", f->min_bytes, "Smallest size of the command's own sweep (K M G)")
          ->capture_default_str();
      sub.add_option("-f,--stepfactor", f->step_factor, "Multiplicative step of the command's own sweep")
          ->capture_default_str();
      sub.add_option("-n,--sweep-iters", f->sweep_iters, "Timed ops per size of the command's own sweep")
          ->capture_default_str();
      sub.add_option("--coll", f->coll,
                     "Collectives of the command's own sweep (the workload model uses these)")
          ->capture_default_str();
      sub.add_option("-J,--json,--out", f->json, "Write the JSON report here (atomically)");
      add_report_outputs(sub, f->out);
      return [f](const RunContext& ctx) { return run_scaling_cmd(ctx, *f); };
    })};

}  // namespace
}  // namespace fabcheck::app
