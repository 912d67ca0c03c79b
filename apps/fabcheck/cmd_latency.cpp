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

namespace fabcheck::app {
namespace {

struct LatencyFlags {
  std::string pattern = "ring";
  std::string sizes;
  bool sweep = false;
  std::int64_t iters = 0;  // signed so that "-3" is refused by us, not wrapped
  double duration_s = 0;
  std::int64_t warmup = 100;
  std::string kind = "both";
  bool serial = false;
  std::vector<int> pin_cpus;
  int passes = 10;
  std::string json;
};

/// Turns the flags into validated options. @throws UsageError naming the flag.
probes::LatencyOptions to_options(const LatencyFlags& f, const CLI::App& sub) {
  probes::LatencyOptions o;
  o.pattern = f.pattern == "all-pairs" ? probes::LatencyPattern::kAllPairs : probes::LatencyPattern::kRing;
  const bool sizes_given = sub.count("--sizes") > 0;
  if (sizes_given && f.sweep) throw UsageError("--sizes/--sweep: give one of them (--sweep is 1 B … 4M)");
  if (sizes_given) o.sizes = core::parse_size_list(f.sizes, "--sizes");
  if (f.sweep) o.sizes = probes::sweep_sizes();
  if (sub.count("--iters") > 0 && f.iters == 0)
    throw UsageError("--iters: must be at least 1 (e.g. --iters 10000)");
  if (sub.count("--duration") > 0 && !(f.duration_s > 0)) {
    throw UsageError("--duration: must be a positive number of seconds (e.g. --duration 2)");
  }
  o.iters = static_cast<std::uint64_t>(f.iters);
  o.duration_s = f.duration_s;
  o.warmup = static_cast<std::uint64_t>(f.warmup);
  o.serial_pairs = f.serial;
  o.pin_cpus = f.pin_cpus;
  o.passes = f.passes;
  o.p2p = f.kind != "collective";
  o.collective = f.kind != "p2p";
  probes::validate(o);
  return o;
}

int run_latency_command(const RunContext& ctx, const LatencyFlags& f, const CLI::App& sub) {
  const double t0 = comm::now_us();
  const auto opts = to_options(f, sub);
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
  doc.json()["run"]["config"] = {
      {"pattern", f.pattern},
      {"sizes", opts.sizes},
      {"iters", opts.iters == 0 ? nlohmann::json(nullptr) : nlohmann::json(opts.iters)},
      {"duration_s", opts.duration_s > 0 ? nlohmann::json(opts.duration_s) : nlohmann::json(nullptr)},
      {"warmup", opts.warmup},
      {"kind", f.kind}};
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
      sub.add_option("--pattern", f->pattern,
                     "Pairs: ring (each host with the next) or all-pairs (every host pair)")
          ->check(CLI::IsMember({"ring", "all-pairs"}))
          ->capture_default_str();
      sub.add_option("--sizes", f->sizes,
                     "Message sizes, comma-separated, binary suffixes (default 8,4K,64K)");
      sub.add_flag("--sweep", f->sweep, "Sizes 1 B … 4M in powers of two (like osu_latency)");
      sub.add_option("--iters", f->iters,
                     "Timed iterations per size and pair (default 10000 for sizes <= 8K, 1000 above)");
      sub.add_option("--duration", f->duration_s,
                     "Seconds per size and pair (with --iters: whichever ends first)");
      sub.add_option("--warmup", f->warmup, "Untimed iterations before each measurement")
          ->capture_default_str();
      sub.add_option("--kind", f->kind, "What to measure: p2p, collective (allreduce 8 B … 64K) or both")
          ->check(CLI::IsMember({"p2p", "collective", "both"}))
          ->capture_default_str();
      sub.add_flag("--serial", f->serial,
                   "Measure the pairs of a round one at a time (oversubscribed machines, virtual fabrics)");
      sub.add_option("--passes", f->passes,
                     "Measure every pair in N passes over the schedule (1: each pair in one go)")
          ->capture_default_str();
      sub.add_option("--pin-cpus", f->pin_cpus,
                     "While a pair is measured: initiator on CPU I, responder on CPU R (one value: both), "
                     "e.g. the NIC's CPU; 0,1 on a virtual fabric")
          ->delimiter(',')
          ->expected(1, 2);
      sub.add_option("--json,-J,--out", f->json, "Write the JSON report (DESIGN §6) to FILE");
      CLI::App* self = &sub;
      return [f, self](const RunContext& ctx) { return run_latency_command(ctx, *f, *self); };
    }}};

}  // namespace
}  // namespace fabcheck::app
