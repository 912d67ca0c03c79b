// One step on every rank, as `run` and a probe command both run it (steps.hpp run_step).
#include <fmt/format.h>

#include <string>

#include "fabcheck/comm/phase.hpp"
#include "fabcheck/core/error.hpp"
#include "step_watch.hpp"
#include "steps.hpp"

namespace fabcheck::suite::detail {

namespace {

report::SectionStatus to_section(StepOutcome::Status s) {
  switch (s) {
    case StepOutcome::Status::kOk:
      return report::SectionStatus::kOk;
    case StepOutcome::Status::kSkipped:
      return report::SectionStatus::kSkipped;
    case StepOutcome::Status::kFailed:
      return report::SectionStatus::kFailed;
  }
  return report::SectionStatus::kFailed;
}

// All ranks agree on a step's outcome: the most severe status wins; the reason is the first rank's with that
// status (on rank 0).
StepOutcome agree(const comm::Communicator& world, const StepOutcome& mine, std::string_view step) {
  comm::enter_phase(fmt::format("run: agree on the outcome of {}", step));
  const auto worst = world.allreduce(static_cast<std::int64_t>(mine.status), comm::ScalarOp::kMax);
  StepOutcome out;
  out.status = static_cast<StepOutcome::Status>(worst);
  const std::string tagged = fmt::format("{}\n{}", static_cast<int>(mine.status), mine.reason);
  auto all = world.gather(tagged, 0);
  if (world.rank() == 0) {
    for (std::size_t r = 0; r < all.size(); ++r) {
      const auto nl = all[r].find('\n');
      if (std::stoi(all[r].substr(0, nl)) != static_cast<int>(worst)) continue;
      out.reason = all[r].substr(nl + 1);
      if (r != 0) {
        out.reason = fmt::format("rank {} ({}): {}", r, world.hosts_of_ranks()[r], out.reason);
      }
      break;
    }
  }
  return out;
}

// This rank's outcome of the step's adapter: a UsageError is a skip (the probe cannot apply here), any other
// exception a failure. Without containment the exception leaves (and the process with it).
StepOutcome run_adapter(const Step& st, StepContext& ctx, bool contain) {
  StepOutcome mine;
  const auto* adapter = adapter_for(st.kind);
  if (!adapter) {
    mine.status = StepOutcome::Status::kSkipped;
    mine.reason = fmt::format("the {} probe is not built into this version of fabcheck", config_key(st.kind));
    return mine;
  }
  if (!contain) {
    adapter->run(ctx);
    return mine;
  }
  try {
    adapter->run(ctx);
  } catch (const UsageError& e) {
    mine.status = StepOutcome::Status::kSkipped;
    mine.reason = e.what();
  } catch (const std::exception& e) {
    mine.status = StepOutcome::Status::kFailed;
    mine.reason = e.what();
  }
  return mine;
}

}  // namespace

StepRun run_step(const comm::Communicator& world, const Step& st, report::Document* doc, SuiteState* state,
                 const StepSettings& how) {
  const double start_us = comm::now_us();
  // A marker per step: the watchdog can name a rank that never started it.
  comm::enter_phase(fmt::format("run: start {}", config_key(st.kind)));
  StepWatch watch(world, st.kind, how.counters);  // the hosts' CPU load and loss counters around the step
  StepContext ctx{world, st, doc, {}, state, how.detail, how.inspect_signature};
  StepRun out;
  out.agreed = agree(world, run_adapter(st, ctx, how.contain), config_key(st.kind));
  out.elapsed_s = (comm::now_us() - start_us) / 1e6;
  const std::string sec(section_name(st.kind));
  if (doc) {
    // A probe command keeps the status its section writer gave (scaling on one rank: skipped, with why);
    // `run` records the agreed outcome.
    const auto& sections = doc->json()["run"]["sections"];
    const bool written = sections.is_object() && sections.contains(sec);
    if (how.contain || !written || out.agreed.status != StepOutcome::Status::kOk)
      doc->set_section(sec, to_section(out.agreed.status), out.agreed.reason);
    auto& entry = doc->json()["run"]["sections"][sec];
    entry["elapsed_s"] = out.elapsed_s;
    entry["budget_s"] = st.budget_s > 0 ? nlohmann::json(st.budget_s) : nlohmann::json(nullptr);
  }
  out.console = ctx.console + watch.finish(world, out.elapsed_s, doc, sec, config_key(st.kind));
  return out;
}

}  // namespace fabcheck::suite::detail
