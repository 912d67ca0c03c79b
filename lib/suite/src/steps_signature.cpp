// The MPI signature of latency/pairs fed back into the transport verdict drawn by the inspect step
// (steps.hpp).
#include <fmt/format.h>

#include "steps.hpp"

namespace fabcheck::suite::detail {

std::string redraw_transport(StepContext& ctx) {
  if (!ctx.doc || !ctx.state) return "";
  report::TransportResult next = ctx.state->transport_evidence.result();
  std::string was = ctx.state->transport ? ctx.state->transport->run.verdict : "";
  if (ctx.state->transport) {
    report::update_transport(*ctx.doc, *ctx.state->transport, next);
  } else {
    report::add_transport(*ctx.doc, next);
  }
  std::string line = was.empty() ? next.run.verdict : fmt::format("{} (was {})", next.run.verdict, was);
  ctx.state->transport = std::move(next);
  return line;
}

void add_signatures(StepContext& ctx, const char* probe, std::vector<report::MpiSignature> sigs) {
  if (!ctx.doc || !ctx.state || !ctx.state->transport || sigs.empty()) return;
  ctx.state->transport_evidence.add_signatures(std::move(sigs));
  ctx.console +=
      fmt::format("# transport verdict with the MPI signature of {}: {}\n", probe, redraw_transport(ctx));
}

}  // namespace fabcheck::suite::detail
