// The nics probe's verbs part in builds without libibverbs (FABCHECK_WITH_IBVERBS=OFF or not found): skipped.
#include "nics_verbs.hpp"

namespace fabcheck::probes::detail {

std::optional<std::string> verbs_build_skip_reason() {
  return std::string("built without libibverbs");
}

model::NicsVerbs run_nics_verbs(const comm::Communicator&, const model::NicsOptions&,
                                const std::vector<core::PairRound>&,
                                const std::map<std::string, std::string>&) {
  model::NicsVerbs v;
  v.skipped = *verbs_build_skip_reason();
  return v;
}

}  // namespace fabcheck::probes::detail
