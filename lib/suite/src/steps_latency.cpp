// Adapter: config section "latency" -> probes::LatencyOptions -> run_latency -> add_latency / render_latency,
// then its 8 B pairs across hosts as MPI signature evidence for the transport verdict.
#include "fabcheck/probes/latency.hpp"

#include "fabcheck/report/latency.hpp"
#include "fabcheck/report/signature_sources.hpp"
#include "steps.hpp"

namespace fabcheck::suite::detail {
namespace {

probes::LatencyOptions to_options(const Step& st) {
  probes::LatencyOptions o;
  const auto& j = st.options;
  if (j.contains("pattern")) {
    o.pattern =
        j["pattern"] == "all-pairs" ? probes::LatencyPattern::kAllPairs : probes::LatencyPattern::kRing;
  }
  if (j.contains("sizes")) o.sizes = j["sizes"].get<std::vector<std::uint64_t>>();
  if (j.contains("iters")) o.iters = j["iters"].get<std::uint64_t>();
  if (j.contains("warmup_iters")) o.warmup = j["warmup_iters"].get<std::uint64_t>();
  if (j.contains("duration_s")) o.duration_s = j["duration_s"].get<double>();
  if (j.contains("collectives")) o.collective = j["collectives"].get<bool>();
  if (j.contains("passes")) o.passes = j["passes"].get<int>();
  return o;
}

void validate_latency(const Step& st) {
  probes::validate(to_options(st));
}

void run_latency_step(StepContext& ctx) {
  const auto r = probes::run_latency(ctx.world, to_options(ctx.step));
  if (ctx.doc) {
    report::add_latency(*ctx.doc, r);
    ctx.console = report::render_latency(r);
    add_signatures(ctx, "latency", report::signatures_from_latency(r));
  }
}

const ProbeAdapter kLatency{"latency", validate_latency, run_latency_step};

}  // namespace

const ProbeAdapter* latency_adapter() {
  return &kLatency;
}

}  // namespace fabcheck::suite::detail
