// The MPI signature of latency/pairs fed back into the transport verdict drawn by the inspect step
// (steps.hpp).
#include <fmt/format.h>

#include "steps.hpp"

namespace fabcheck::suite::detail {

void add_signatures(StepContext& ctx, const char* probe, std::vector<report::MpiSignature> sigs) {
  if (!ctx.doc || !ctx.state || !ctx.state->transport_in || !ctx.state->transport || sigs.empty()) return;
  auto& in = *ctx.state->transport_in;
  for (auto& s : sigs) in.signatures.push_back(std::move(s));
  report::TransportResult next = report::analyze_transport(in);
  report::update_transport(*ctx.doc, *ctx.state->transport, next);
  ctx.console += fmt::format("# transport verdict with the MPI signature of {}: {} (was {})\n", probe,
                             next.run.verdict, ctx.state->transport->run.verdict);
  ctx.state->transport = std::move(next);
}

}  // namespace fabcheck::suite::detail
