// The probe rows (probe_spec.hpp).
#include "fabcheck/suite/probe_spec.hpp"

#include <stdexcept>

#include "fabcheck/model/option_tables.hpp"
#include "steps.hpp"

namespace fabcheck::suite {

namespace {

using nlohmann::json;

template <class O>
ProbeOptions erase(const model::OptionTable<O>& t) {
  ProbeOptions p;
  p.infos = t.infos();
  p.effective = [&t](const json& given, const model::KeyNamer& name) {
    return t.to_json(t.make(given, name));
  };
  p.describe = [&t] {
    json out = {{"step", t.probe}, {"options", json::array()}, {"cli_only", json::array()}};
    const json defaults = t.to_json(O{});
    for (const auto& s : t.options) {
      out["options"].push_back({{"key", s.info.key},
                                {"flags", s.info.flags},
                                {"long_flags", model::long_flags(s.info)},
                                {"negating_flags", model::negating_flags(s.info)},
                                {"default", defaults[s.info.key]}});
    }
    for (const auto& [f, why] : t.cli_only) out["cli_only"].push_back({{"flag", f}, {"why", why}});
    return out;
  };
  return p;
}

ProbeOptions no_options() {
  ProbeOptions p;
  p.effective = [](const json&, const model::KeyNamer&) { return json::object(); };
  p.describe = [] { return json::object(); };
  return p;
}

}  // namespace

const std::vector<ProbeSpec>& probe_specs() {
  using detail::ProbeAdapter;
  static const std::vector<ProbeSpec> specs = {
      {StepKind::kInspect, "inspect", "inventory", "inspect",
       "What the hosts have and what NCCL/MPI actually used (inventory + transport verdict)", 62,
       erase(model::inventory_option_table()), detail::inspect_adapter},
      {StepKind::kSweep, "sweep", "sweeps", "sweep",
       "nccl-tests-style collective sweep: algBw/busBw tables, exact data check, per-iteration tails", 20,
       erase(model::sweep_option_table()), detail::sweep_adapter},
      {StepKind::kLatency, "latency", "latency", "latency",
       "Point-to-point and small-collective latency with p99 tail analysis (histogram, stragglers, tail "
       "cost)",
       30, erase(model::latency_option_table()), detail::latency_adapter},
      {StepKind::kIncast, "incast", "incast", "incast",
       "Incast stress: k senders to one receiver, fairness, bystander congestion", 40,
       erase(model::incast_option_table()), detail::incast_adapter},
      {StepKind::kPairs, "pairs", "pairs", "pairs",
       "Every host pair: bandwidth and latency matrix, outliers, the slow link or bad host", 50,
       erase(model::pairs_option_table()), detail::pairs_adapter},
      {StepKind::kNics, "nics", "nics", "nics",
       "Every NIC pair of every host pair: rail-only fabrics, dead or slow NICs, the management NIC in use",
       55, erase(model::nics_option_table()), detail::nics_adapter},
      {StepKind::kOverlap, "overlap", "overlap", "overlap",
       "Compute/communication overlap of nonblocking collectives (OSU osu_iallreduce's definition)", 57,
       erase(model::overlap_option_table()), detail::overlap_adapter},
      {StepKind::kStep, "step", "step", "step",
       "One training step of a workload profile emulated on the fabric: measured vs projected efficiency", 58,
       erase(model::step_option_table()), detail::step_adapter},
      {StepKind::kScaling, "scaling", "scaling", "scaling",
       "Scaling-efficiency score: sweep, host-group busBw, training-workload projection", 60,
       erase(model::scaling_option_table()), detail::scaling_adapter},
      {StepKind::kGate, "gate", "gate", "", "", 100, no_options(), nullptr},
  };
  return specs;
}

const ProbeSpec& probe_spec(StepKind k) {
  for (const auto& s : probe_specs()) {
    if (s.kind == k) return s;
  }
  throw std::logic_error("probe_spec: a step kind without a row");
}

}  // namespace fabcheck::suite
