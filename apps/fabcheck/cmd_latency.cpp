// fabcheck latency: point-to-point ping-pong between host leaders and per-iteration small allreduces, with
// the p99 tail analysis (issue 5; DESIGN §4, §5, §6). Thin: options → probes::run_latency →
// report::add/render_latency.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "agree.hpp"
#include "command.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/probes/latency.hpp"
#include "fabcheck/probes/topology.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/latency.hpp"
#include "fabcheck/report/topology.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct LatencyFlags {
  std::shared_ptr<BoundOptions<probes::LatencyOptions>> opts;
  std::string json;
};

int run_latency_command(const RunContext& ctx, const LatencyFlags& f) {
  const double t0 = comm::now_us();
  const auto opts = f.opts->options();
  probes::validate(opts);
  auto comm = comm::Communicator::world();
  if (comm.size() < 2) {
    throw UsageError(
        "latency: needs at least 2 ranks, got 1 (launch with mpirun -np 2 or more, one rank per host across "
        "hosts)");
  }
  // check_writable on rank 0, outcome shared so that every rank stops together.
  if (!f.json.empty()) agree_on_root_check(comm, [&] { report::check_writable(f.json, "--json"); });

  const auto result = probes::run_latency(comm, opts);
  if (comm.rank() != 0) return 0;

  std::fputs(report::render_latency(result).c_str(), stdout);
  std::fflush(stdout);
  report::Document doc(ctx.argv);
  doc.json()["run"]["config"] = {{"latency", model::latency_option_table().to_json(opts)}};
  comm::ClockAlignment clocks;
  clocks.max_error_us = result.clock_error_us;
  clocks.max_abs_offset_us = result.clock_offset_us_max;
  report::add_topology(doc, probes::describe_topology(comm, "mpi", clocks));
  report::add_latency(doc, result);
  const int code = doc.has_fail() ? static_cast<int>(ExitCode::kFail) : static_cast<int>(ExitCode::kOk);
  doc.finish("complete", code, (comm::now_us() - t0) / 1e6);
  if (!f.json.empty()) {
    doc.write_atomic(f.json);
    std::fprintf(stderr, "fabcheck: report written to %s\n", f.json.c_str());
  }
  return code;
}

const Registrar kLatency{CommandSpec{
    "latency",
    "Point-to-point and small-collective latency with p99 tail analysis (histogram, stragglers, tail cost)",
    true, 30, [](CLI::App& sub) -> std::function<int(const RunContext&)> {
      auto f = std::make_shared<LatencyFlags>();
      f->opts = bind_options(sub, model::latency_option_table());
      sub.add_option("--json,-J,--out", f->json, "Write the JSON report (DESIGN §6) to FILE");
      return [f](const RunContext& ctx) { return run_latency_command(ctx, *f); };
    }}};

}  // namespace
}  // namespace fabcheck::app
