// fabcheck latency: point-to-point ping-pong between host leaders and per-iteration small allreduces, with
// the p99 tail analysis (DESIGN §4, §5, §6). Thin: options → probes::run_latency →
// report::add/render_latency.

#include <CLI/CLI.hpp>
#include <memory>

#include "command.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/probes/latency.hpp"
#include "fabcheck/suite/single.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct LatencyFlags {
  std::shared_ptr<BoundOptions<probes::LatencyOptions>> opts;
  std::string json;
  bool verbose = false;
  ReportOutputs out;  // --html, --junit, --no-counters
};

int run_latency_command(const RunContext& ctx, const LatencyFlags& f) {
  probes::validate(f.opts->options());  // errors name the flag
  auto comm = comm::Communicator::world();
  if (comm.size() < 2) {
    throw UsageError(
        "latency: needs at least 2 ranks, got 1 (launch with mpirun -np 2 or more, one rank per host across "
        "hosts)");
  }
  const suite::Step step = suite::make_single_step(suite::StepKind::kLatency, f.opts->given_json());
  auto so = suite::SingleOptions::of(ctx.argv, f.json, true)
                .with_counters(!f.out.no_counters)
                .with_outputs(f.out.html, f.out.junit);
  so.verbose = f.verbose;
  return suite::run_single(comm, {step}, so).exit_code;
}

const Registrar kLatency{
    probe_command(suite::StepKind::kLatency, [](CLI::App& sub) -> std::function<int(const RunContext&)> {
      auto f = std::make_shared<LatencyFlags>();
      f->opts = bind_options(sub, model::latency_option_table());
      sub.add_option("--json,-J,--out", f->json, "Write the JSON report (DESIGN §6) to FILE");
      add_report_outputs(sub, f->out);
      sub.add_flag("--verbose", f->verbose, "Also print the latency histograms (non-empty buckets)");
      return [f](const RunContext& ctx) { return run_latency_command(ctx, *f); };
    })};

}  // namespace
}  // namespace fabcheck::app
