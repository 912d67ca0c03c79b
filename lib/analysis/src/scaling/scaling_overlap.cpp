// The measured overlap replaces the profile's assumption.
#include "fabcheck/report/scaling_overlap.hpp"

#include <fmt/format.h>

#include <cmath>

#include "fabcheck/core/size.hpp"

namespace fabcheck::report {

using nlohmann::json;

namespace {

// The measured point of `coll` nearest `size_bytes` (log distance) that has an overlap.
std::optional<MeasuredOverlap> nearest_overlap(const json& section, const std::string& coll,
                                               double size_bytes) {
  if (!section.is_object() || !section.contains("points") || !(size_bytes > 0)) return std::nullopt;
  std::optional<MeasuredOverlap> best;
  double best_d = 0;
  for (const auto& p : section["points"]) {
    if (p.value("coll", "") != coll || !p.contains("size_bytes") || !p["size_bytes"].is_number()) continue;
    const bool polled = p.contains("overlap_poll") && p["overlap_poll"].is_number();
    const bool plain = p.contains("overlap") && p["overlap"].is_number();
    if (!polled && !plain) continue;
    const double s = p["size_bytes"].get<double>();
    if (!(s > 0)) continue;
    const double d = std::fabs(std::log(s / size_bytes));
    if (best && d >= best_d) continue;
    MeasuredOverlap m;
    m.value = polled ? p["overlap_poll"].get<double>() : p["overlap"].get<double>();
    m.coll = coll;
    m.size_bytes = p["size_bytes"].get<std::uint64_t>();
    m.variant = polled ? "polled" : "no_poll";
    m.poll_us = section.value("poll_us", 0.0);
    best = m;
    best_d = d;
  }
  return best;
}

}  // namespace

std::optional<MeasuredOverlap> measured_overlap_for(const json& section, const WorkloadProfile& p) {
  switch (p.parallelism) {
    case Parallelism::kDdp:
      return nearest_overlap(section, "allreduce", static_cast<double>(p.bucket_bytes));
    case Parallelism::kFsdp: {
      const double unit = p.parameters / std::max(1, p.fsdp_units);
      auto ag = nearest_overlap(section, "allgather", unit * p.bytes_per_param);
      auto rs = nearest_overlap(section, "reducescatter", unit * p.bytes_per_grad);
      if (ag && rs) return ag->value <= rs->value ? ag : rs;
      return ag ? ag : rs;
    }
    case Parallelism::kPp:
      return std::nullopt;
  }
  return std::nullopt;
}

WorkloadSet with_measured_overlap(const WorkloadSet& set, const json& section) {
  WorkloadSet out = set;
  for (auto& p : out.profiles) {
    const auto m = measured_overlap_for(section, p);
    if (!m) continue;
    const std::string why = fmt::format(
        "measured by the overlap step: {} {} {} (the profile assumed {})", m->coll,
        core::format_size(m->size_bytes),
        m->variant == "polled" ? fmt::format("with MPI_Test every {:g} us", m->poll_us) : "without MPI calls",
        p.overlap);
    p.overlap = m->value;
    bool found = false;
    for (auto& a : p.assumptions) {
      if (a.field == "overlap") {
        a.value = fmt::format("{}", m->value);
        a.why = why;
        found = true;
      }
    }
    if (!found) p.assumptions.push_back({"overlap", fmt::format("{}", m->value), why});
  }
  return out;
}

}  // namespace fabcheck::report
