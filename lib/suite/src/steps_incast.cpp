// Adapter: config section "incast" -> probes::IncastOptions -> run_incast -> add_incast / render_incast.
#include "steps.hpp"

#include "fabcheck/probes/incast.hpp"
#include "fabcheck/report/incast.hpp"

namespace fabcheck::suite::detail {
namespace {

probes::IncastOptions to_options(const Step& st) {
  probes::IncastOptions o;
  const auto& j = st.options;
  if (j.contains("receiver")) o.receiver = j["receiver"].get<std::string>();
  if (j.contains("fan_in")) o.fan_in = j["fan_in"].get<std::vector<int>>();
  if (j.contains("sizes")) o.sizes_bytes = j["sizes"].get<std::vector<std::uint64_t>>();
  if (j.contains("rounds")) o.rounds = j["rounds"].get<int>();
  if (j.contains("duration_s")) o.duration_s = j["duration_s"].get<double>();
  if (j.contains("victim")) o.victim = j["victim"].get<bool>();
  if (j.contains("victim_iters")) o.victim_iters = j["victim_iters"].get<int>();
  if (j.contains("victim_interval_us")) o.victim_interval_us = j["victim_interval_us"].get<double>();
  return o;
}

void validate_incast(const Step& st) {
  probes::validate(to_options(st));
}

void run_incast_step(StepContext& ctx) {
  const auto o = to_options(ctx.step);
  // Options that do not fit this run (a receiver not in it, too large a fan-in) skip the section on every
  // rank.
  probes::validate(o, probes::incast_endpoints(ctx.world).names);
  const auto r = probes::run_incast(ctx.world, o);
  if (ctx.doc) {
    report::add_incast(*ctx.doc, r);
    ctx.console = report::render_incast(r);
  }
}

const ProbeAdapter kIncast{"incast", validate_incast, run_incast_step};

}  // namespace

const ProbeAdapter* incast_adapter() {
  return &kIncast;
}

}  // namespace fabcheck::suite::detail
