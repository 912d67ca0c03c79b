// Adapter: config section "sweep" -> probes::SweepOptions -> run_sweep -> add_sweep / render_sweep.
#include "steps.hpp"

#include "fabcheck/core/collective.hpp"
#include "fabcheck/probes/sweep.hpp"
#include "fabcheck/report/sweep.hpp"

namespace fabcheck::suite::detail {
namespace {

probes::SweepOptions to_options(const Step& st) {
  probes::SweepOptions o;
  // Defaults of the suite (not nccl-tests'): 8 B -> 64 MiB, factor 2, allreduce/allgather/reducescatter.
  o.collectives = {core::Collective::kAllReduce, core::Collective::kAllGather,
                   core::Collective::kReduceScatter};
  o.min_bytes = 8;
  o.max_bytes = 64u << 20;
  o.step_factor = 2;
  const auto& j = st.options;
  if (j.contains("collectives")) {
    o.collectives.clear();
    if (j["collectives"].is_string()) {
      o.collectives = core::all_collectives();
    } else {
      for (const auto& c : j["collectives"])
        o.collectives.push_back(*core::parse_collective(c.get<std::string>()));
    }
  }
  if (j.contains("min_bytes")) o.min_bytes = j["min_bytes"].get<std::uint64_t>();
  if (j.contains("max_bytes")) o.max_bytes = j["max_bytes"].get<std::uint64_t>();
  if (j.contains("step_factor")) o.step_factor = j["step_factor"].get<std::uint64_t>();
  if (j.contains("step_bytes")) {
    o.step_bytes = j["step_bytes"].get<std::uint64_t>();
    o.step_factor = 1;
  }
  if (j.contains("iters")) o.iters = j["iters"].get<int>();
  if (j.contains("warmup_iters")) o.warmup_iters = j["warmup_iters"].get<int>();
  if (j.contains("per_iter_iters")) o.per_iter_iters = j["per_iter_iters"].get<int>();
  if (j.contains("per_iter_rounds")) o.per_iter_rounds = j["per_iter_rounds"].get<int>();
  if (j.contains("check")) o.check = j["check"].get<bool>() ? 1 : 0;
  if (j.contains("dtype")) o.dtypes = {*core::parse_dtype(j["dtype"].get<std::string>())};
  if (j.contains("op")) o.redops = {*core::parse_redop(j["op"].get<std::string>())};
  if (j.contains("average")) o.average = j["average"].get<int>();
  if (j.contains("backend")) o.backend = j["backend"].get<std::string>();
  return o;
}

void validate_sweep(const Step& st) {
  probes::validate(to_options(st));
}

void run_sweep_step(StepContext& ctx) {
  const auto r = probes::run_sweep(ctx.world, to_options(ctx.step));
  if (ctx.doc) {
    report::add_sweep(*ctx.doc, r);
    ctx.console = report::render_sweep(r);
    // nccl backend: NCCL's own log is direct evidence of the transport; it replaces the inventory's verdict.
    if (const auto t = report::sweep_transport(r)) {
      report::add_transport(*ctx.doc, *t);
      ctx.console += "# Transport, from NCCL's own log\n" + report::render_transport(*t);
    }
  }
}

const ProbeAdapter kSweep{"sweep", validate_sweep, run_sweep_step};

}  // namespace

const ProbeAdapter* sweep_adapter() {
  return &kSweep;
}

}  // namespace fabcheck::suite::detail
