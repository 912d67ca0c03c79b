// The pipeline-parallel bubble of 1F1B and GPipe.
#include "fabcheck/core/pipeline_math.hpp"

#include <cmath>

namespace fabcheck::core {

std::optional<PipelineStep> pipeline_step(PipelineSchedule /*schedule: the same bubble, see the header*/,
                                          int stages, int micro_batches, double forward_s, double backward_s,
                                          double p2p_s, std::string* why) {
  auto refuse = [&](const char* w) -> std::optional<PipelineStep> {
    if (why) *why = w;
    return std::nullopt;
  };
  if (stages < 1) return refuse("stages must be >= 1");
  if (micro_batches < 1) return refuse("micro_batches must be >= 1");
  for (double t : {forward_s, backward_s, p2p_s}) {
    if (!(t >= 0) || !std::isfinite(t)) return refuse("times must be finite and >= 0");
  }
  if (forward_s + backward_s <= 0) return refuse("forward_s + backward_s must be > 0");
  PipelineStep s;
  s.t_ideal_s = micro_batches * (forward_s + backward_s);
  s.t_bubble_s = (stages - 1) * (forward_s + backward_s + 2 * p2p_s);
  s.t_step_s = s.t_ideal_s + s.t_bubble_s;
  s.bubble_fraction = s.t_bubble_s / s.t_step_s;
  s.efficiency = s.t_ideal_s / s.t_step_s;
  return s;
}

}  // namespace fabcheck::core
