// The probe commands: `sweep`, `latency`, `incast`, `pairs`, `nics`, `overlap`, `step`, `scaling`. Each is a
// one-step plan (scaling: its own sweep, then the scaling step) through the driver of `run`
// (suite::run_single); its flags are its option table's, `--json` and the report outputs, and the few flags
// of its own (sweep's nccl-tests -J/-T, latency --verbose, pairs --exclude-hostfile, scaling's own sweep) add
// to the plan through hooks. `inspect` keeps its file: it also runs offline, without MPI.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "fabcheck/comm/agree.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/fault.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/probes/incast.hpp"
#include "fabcheck/probes/latency.hpp"
#include "fabcheck/probes/nics.hpp"
#include "fabcheck/probes/overlap.hpp"
#include "fabcheck/probes/pairs.hpp"
#include "fabcheck/probes/scaling.hpp"
#include "fabcheck/probes/sweep.hpp"
#include "fabcheck/probes/train_step.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/gate.hpp"
#include "fabcheck/report/scaling.hpp"
#include "fabcheck/suite/single.hpp"
#include "nccl_tests_json_output.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

/// What a command's run is made of: its steps and how the driver writes and prints.
struct Launch {
  std::vector<suite::Step> steps;
  suite::SingleOptions so;
};

/// A command's own flags at work: `before` completes the launch on every rank before anything is measured
/// (its checks throw UsageError alike everywhere); `after` writes the command's own outputs (rank 0).
template <class O>
struct Hooks {
  std::function<void(const comm::Communicator&, const O&, Launch&)> before;
  std::function<void(const comm::Communicator&, const suite::SingleOutcome&)> after;
};

/// One probe command.
template <class O>
struct ProbeCommand {
  suite::StepKind kind;
  const model::OptionTable<O>& (*table)();
  void (*validate)(const O&);
  /// Why the probe cannot run on these ranks with these options (a usage error, exit 2), or nothing.
  std::function<std::optional<std::string>(const comm::Communicator&, const O&)> skip;
  /// Adds the command's own flags (storage captured by the hooks it returns).
  std::function<Hooks<O>(CLI::App&)> own_flags;
  /// The spellings of the report flag (`sweep` leaves -J to nccl-tests' file).
  const char* json_flags = "--json,-J,--out";
};

template <class O>
CommandSpec make_command(ProbeCommand<O> def) {
  return probe_command(def.kind, [def](CLI::App& sub) -> std::function<int(const RunContext&)> {
    struct Flags {
      std::shared_ptr<BoundOptions<O>> opts;
      std::string json;
      ReportOutputs out;
      double timeout_s = suite::SingleOptions{}.timeout_s;
      Hooks<O> hooks;
    };
    auto f = std::make_shared<Flags>();
    f->opts = bind_options(sub, def.table());
    sub.add_option(def.json_flags, f->json, "Write the JSON report to FILE (atomically)");
    add_report_outputs(sub, f->out);
    add_timeout(sub, f->timeout_s);
    if (def.own_flags) f->hooks = def.own_flags(sub);
    return [f, def](const RunContext& ctx) {
      const O opts = f->opts->options();  // errors name the flag
      def.validate(opts);
      const auto world = comm::Communicator::world();
      Launch l{{suite::make_single_step(def.kind, f->opts->given_json())},
               suite::SingleOptions::of(ctx.argv, f->json)
                   .with_counters(!f->out.no_counters)
                   .with_outputs(f->out.html, f->out.junit)};
      l.so.timeout_s = checked_timeout(f->timeout_s);
      if (f->hooks.before) f->hooks.before(world, opts, l);
      if (def.skip) {
        if (auto why = def.skip(world, opts)) throw UsageError(*why);
      }
      const auto outcome = suite::run_single(world, l.steps, l.so);
      if (f->hooks.after) f->hooks.after(world, outcome);
      return outcome.exit_code;
    };
  });
}

// `sweep -J FILE`: nccl-tests' JSON file.
Hooks<probes::SweepOptions> sweep_flags(CLI::App& sub) {
  struct Own {
    std::string output_file;
  };
  auto own = std::make_shared<Own>();
  sub.add_option("-J,--output_file", own->output_file,
                 "Write nccl-tests' JSON (its -J layout) here; FILE.0, FILE.1, ... when FILE exists");
  return {[own](const comm::Communicator& world, const probes::SweepOptions& o, Launch& l) {
            (void)core::fault_from_env();  // a malformed test hook is a usage error before anything runs
            l.so.other_outputs = {{"-J/--output_file", own->output_file}};
            // Held by the launch: a file the sweep never wrote is removed when the command ends.
            std::shared_ptr<NcclTestsJsonOutput> jout =
                NcclTestsJsonOutput::open(world.rank() == 0, own->output_file, l.so.argv, o);
            if (jout) l.so.on_sweep = [jout](const model::SweepResult& r) { jout->write(r); };
          },
          {}};
}

Hooks<probes::LatencyOptions> latency_flags(CLI::App& sub) {
  auto verbose = std::make_shared<bool>(false);
  sub.add_flag("--verbose", *verbose, "Also print the latency histograms (non-empty buckets)");
  return {[verbose](const comm::Communicator&, const probes::LatencyOptions&, Launch& l) {
            l.so.verbose = *verbose;
          },
          {}};
}

// `pairs --exclude-hostfile FILE`: the hosts that passed, for the next job's hostfile (rank 0 writes; every
// rank stops together when it cannot).
Hooks<probes::PairsOptions> pairs_flags(CLI::App& sub) {
  auto path = std::make_shared<std::string>();
  sub.add_option("--exclude-hostfile", *path,
                 "Write the hosts that passed (one per line) for the next job's hostfile");
  return {[path](const comm::Communicator& world, const probes::PairsOptions&, Launch& l) {
            if (!path->empty())
              comm::agree_on_root(world, [&] { report::check_writable(*path, "--exclude-hostfile"); });
            l.so.other_outputs = {{"--exclude-hostfile", *path}};
          },
          [path](const comm::Communicator& world, const suite::SingleOutcome& out) {
            if (world.rank() != 0 || path->empty()) return;
            report::write_text_atomic(*path, report::good_hosts_text("", out.pairs_passed_hosts, {}),
                                      "--exclude-hostfile");
            std::fprintf(stderr, "fabcheck pairs: %zu of %zu hosts passed, written to %s\n",
                         out.pairs_passed_hosts.size(), out.pairs_hosts, path->c_str());
          }};
}

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

// `scaling` measures its own sweep first (in `run` the sweep step provides it): flags of the command only.
Hooks<probes::ScalingOptions> scaling_flags(CLI::App& sub) {
  struct Own {
    std::string min_bytes = "1M", coll = "allreduce,allgather,reducescatter";
    long long step_factor = 2;
    int sweep_iters = 5;
  };
  auto own = std::make_shared<Own>();
  sub.add_option("-b,--minbytes", own->min_bytes, "Smallest size of the command's own sweep (K M G)")
      ->capture_default_str();
  sub.add_option("-f,--stepfactor", own->step_factor, "Multiplicative step of the command's own sweep")
      ->capture_default_str();
  sub.add_option("-n,--sweep-iters", own->sweep_iters, "Timed ops per size of the command's own sweep")
      ->capture_default_str();
  sub.add_option("--coll", own->coll,
                 "Collectives of the command's own sweep (the workload model uses these)")
      ->capture_default_str();
  return {[own](const comm::Communicator&, const probes::ScalingOptions& o, Launch& l) {
            const nlohmann::json colls = ring_collectives(own->coll);
            if (own->step_factor < 1) throw UsageError("-f/--stepfactor: must be >= 1");
            const nlohmann::json sweep = {
                {"collectives", colls},      {"min_bytes", core::parse_size(own->min_bytes, "-b/--minbytes")},
                {"max_bytes", o.size_bytes}, {"step_factor", own->step_factor},
                {"iters", own->sweep_iters}, {"warmup_iters", o.warmup_iters},
                {"per_iter_iters", 0},  // the score needs the table times only
                {"backend", o.backend}};
            l.steps.insert(l.steps.begin(), suite::make_single_step(suite::StepKind::kSweep, sweep));
            l.so.silent = {suite::StepKind::kSweep};
          },
          {}};
}

const Registrar kSweep{make_command<probes::SweepOptions>(
    {suite::StepKind::kSweep, model::sweep_option_table, probes::validate, {}, sweep_flags, "--json,--out"})};

const Registrar kLatency{make_command<probes::LatencyOptions>(
    {suite::StepKind::kLatency, model::latency_option_table, probes::validate,
     [](const comm::Communicator& c, const probes::LatencyOptions&) -> std::optional<std::string> {
       if (c.size() >= 2) return std::nullopt;
       return "latency: needs at least 2 ranks, got 1 (launch with mpirun -np 2 or more, one rank per host "
              "across hosts)";
     },
     latency_flags})};

const Registrar kIncast{make_command<probes::IncastOptions>(
    {suite::StepKind::kIncast, model::incast_option_table, probes::validate, {}, {}})};

const Registrar kPairs{make_command<probes::PairsOptions>(
    {suite::StepKind::kPairs, model::pairs_option_table, probes::validate,
     [](const comm::Communicator& c, const probes::PairsOptions&) { return probes::pairs_skip_reason(c); },
     pairs_flags})};

const Registrar kNics{make_command<probes::NicsOptions>(
    {suite::StepKind::kNics,
     model::nics_option_table,
     probes::validate,
     [](const comm::Communicator& c, const probes::NicsOptions&) { return probes::nics_skip_reason(c); },
     {}})};

const Registrar kOverlap{
    make_command<probes::OverlapOptions>({suite::StepKind::kOverlap,
                                          model::overlap_option_table,
                                          probes::validate,
                                          [](const comm::Communicator& c, const probes::OverlapOptions& o) {
                                            return probes::overlap_skip_reason(c, o.backend);
                                          },
                                          {}})};

const Registrar kStep{make_command<probes::TrainStepOptions>(
    {suite::StepKind::kStep,
     model::step_option_table,
     probes::validate,
     [](const comm::Communicator& c, const probes::TrainStepOptions&) { return probes::step_skip_reason(c); },
     {}})};

const Registrar kScaling{make_command<probes::ScalingOptions>({suite::StepKind::kScaling,
                                                               model::scaling_option_table,
                                                               probes::validate,
                                                               {},
                                                               scaling_flags,
                                                               "-J,--json,--out"})};

}  // namespace
}  // namespace fabcheck::app
