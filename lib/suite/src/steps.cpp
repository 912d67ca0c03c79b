// Step kind -> probe adapter (steps.hpp), from the probe rows.
#include "steps.hpp"
#include "fabcheck/suite/probe_spec.hpp"

namespace fabcheck::suite::detail {

const ProbeAdapter* adapter_for(StepKind k) {
  const auto& spec = probe_spec(k);
  return spec.adapter ? spec.adapter() : nullptr;
}

}  // namespace fabcheck::suite::detail
