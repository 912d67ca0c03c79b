// Stub verbs backend for builds without libibverbs (FABCHECK_WITH_IBVERBS=OFF or not found).
#include "fabcheck/probes/inventory.hpp"

namespace fabcheck::probes {

namespace {
class NoVerbs final : public VerbsBackend {
 public:
  model::VerbsListing list() const override {
    model::VerbsListing l;
    l.status = "not_compiled";
    l.error_text = "built without libibverbs (FABCHECK_WITH_IBVERBS)";
    return l;
  }
};
}  // namespace

std::unique_ptr<VerbsBackend> make_system_verbs() {
  return std::make_unique<NoVerbs>();
}

}  // namespace fabcheck::probes
