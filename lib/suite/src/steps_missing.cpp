// Adapters of probes that have not landed in this build yet: each returns nullptr, so the step is `skipped`
// with the reason "the <probe> probe is not built into this version". Replace one by its steps_<probe>.cpp
// when it lands.
#include "steps.hpp"

namespace fabcheck::suite::detail {

const ProbeAdapter* inspect_adapter() {
  return nullptr;
}
const ProbeAdapter* latency_adapter() {
  return nullptr;
}
const ProbeAdapter* incast_adapter() {
  return nullptr;
}
const ProbeAdapter* pairs_adapter() {
  return nullptr;
}
const ProbeAdapter* scaling_adapter() {
  return nullptr;
}

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
    case StepKind::kScaling:
      return scaling_adapter();
    case StepKind::kGate:
      return nullptr;
  }
  return nullptr;
}

}  // namespace fabcheck::suite::detail
