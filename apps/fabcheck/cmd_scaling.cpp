// `fabcheck scaling`: the scaling-efficiency score on its own (DESIGN §5, issue 9). Sweeps the collectives
// the workload model needs (the sweep probe), measures busBw on host groups of 2, 4, … N (the scaling probe),
// and writes the `sweeps`, `scaling` and `score` sections. Thin: flags → options → probes → report.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

#include "agree.hpp"
#include "command.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/probes/scaling.hpp"
#include "fabcheck/probes/sweep.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/scaling.hpp"
#include "fabcheck/report/sweep.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct ScalingCli {
  std::shared_ptr<BoundOptions<probes::ScalingOptions>> opts;
  // The standalone command's own sweep (in `run` the sweep step provides it): CLI-only.
  std::string min_bytes = "1M", coll = "allreduce,allgather,reducescatter";
  long long step_factor = 2;
  std::string json;
};

std::vector<core::Collective> parse_colls(const std::string& text) {
  std::vector<core::Collective> out;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto c = core::parse_collective(item);
    if (!c || !report::has_ring_model(*c)) {
      throw UsageError(
          fmt::format("--coll: \"{}\" has no ring model (use allreduce, allgather, reducescatter)", item));
    }
    out.push_back(*c);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

int run_scaling_cmd(const RunContext& ctx, const ScalingCli& f) {
  const double t_start = comm::now_us();
  const probes::ScalingOptions opts = f.opts->options();
  probes::validate(opts);
  probes::SweepOptions so;
  so.collectives = parse_colls(f.coll);
  so.min_bytes = core::parse_size(f.min_bytes, "-b/--minbytes");
  so.max_bytes = opts.size_bytes;
  if (f.step_factor < 1) throw UsageError("-f/--stepfactor: must be >= 1");
  so.step_factor = static_cast<std::uint64_t>(f.step_factor);
  so.iters = opts.iters;
  so.warmup_iters = opts.warmup_iters;
  so.per_iter_iters = 0;  // the score needs the table times only
  so.backend = opts.backend;
  probes::validate(so);

  const auto world = comm::Communicator::world();
  // Rank 0 reads the workloads and owns the report file: check both before measuring, stop together.
  agree_on_root_check(world, [&] {
    report::check_scaling_workload(opts);
    if (!f.json.empty()) report::check_writable(f.json, "--json");
  });

  const probes::SweepResult sweep = probes::run_sweep(world, so);
  const probes::ScalingResult scaling = probes::run_scaling(world, opts);
  if (world.rank() != 0) return 0;

  report::Document doc(ctx.argv);
  report::add_sweep(doc, sweep);
  report::add_scaling(doc, scaling);
  const std::string text = report::render_scaling(scaling, doc);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  const int code = doc.has_fail() ? static_cast<int>(ExitCode::kFail) : static_cast<int>(ExitCode::kOk);
  doc.finish("complete", code, (comm::now_us() - t_start) * 1e-6);
  if (!f.json.empty()) doc.write_atomic(f.json);
  return code;
}

const Registrar kScaling{CommandSpec{
    "scaling", "Scaling-efficiency score: sweep, host-group busBw, training-workload projection", true, 60,
    [](CLI::App& sub) -> std::function<int(const RunContext&)> {
      auto f = std::make_shared<ScalingCli>();
      f->opts = bind_options(sub, model::scaling_option_table());
      sub.add_option("-b,--minbytes", f->min_bytes, "Smallest size of the command's own sweep (K M G)")
          ->capture_default_str();
      sub.add_option("-f,--stepfactor", f->step_factor, "Multiplicative step of the command's own sweep")
          ->capture_default_str();
      sub.add_option("--coll", f->coll,
                     "Collectives of the command's own sweep (the workload model uses these)")
          ->capture_default_str();
      sub.add_option("-J,--json,--out", f->json, "Write the JSON report here (atomically)");
      return [f](const RunContext& ctx) { return run_scaling_cmd(ctx, *f); };
    }}};

}  // namespace
}  // namespace fabcheck::app
