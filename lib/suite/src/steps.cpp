// Step kind -> probe adapter (steps.hpp).
#include "steps.hpp"

namespace fabcheck::suite::detail {

const ProbeAdapter* adapter_for(StepKind k) {
  switch (k) {
    case StepKind::kInspect:
      return inspect_adapter();
    case StepKind::kSweep:
      return sweep_adapter();
    case StepKind::kLatency:
      return latency_adapter();
    case StepKind::kIncast:
      return incast_adapter();
    case StepKind::kPairs:
      return pairs_adapter();
    case StepKind::kNics:
      return nics_adapter();
    case StepKind::kOverlap:
      return overlap_adapter();
    case StepKind::kStep:
      return step_adapter();
    case StepKind::kScaling:
      return scaling_adapter();
    case StepKind::kGate:
      return nullptr;
  }
  return nullptr;
}

}  // namespace fabcheck::suite::detail
