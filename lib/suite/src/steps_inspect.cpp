// Adapter: config section "inspect" -> probes::InventoryOptions -> run_inventory -> add_inventory + the
// transport verdict (report::analyze_transport) -> add_transport / render_transport. Its input stays in the
// SuiteState so that latency and pairs can redraw the verdict with their MPI signature.
#include "fabcheck/probes/inventory.hpp"

#include <fmt/format.h>

#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/probes/pairs.hpp"
#include "fabcheck/report/inventory.hpp"
#include "fabcheck/report/signature_sources.hpp"
#include "fabcheck/report/transport.hpp"
#include "steps.hpp"

namespace fabcheck::suite::detail {
namespace {

// The MPI signature (DESIGN §5) between host leaders: a short pairs run (8 B ping-pong and 4 MiB windows in
// each direction, no retest; well under a second per host pair on TCP). None on one host (the same decision
// on every rank). Rank 0 gets the signatures.
std::vector<report::MpiSignature> quick_signature(const comm::Communicator& world) {
  if (probes::pairs_skip_reason(world)) return {};
  probes::PairsOptions o;
  o.size_bytes = 4ull << 20;
  o.window = 16;
  o.warmup = 1;
  o.iters = 3;
  o.budget_ms = 100;
  o.lat_iters = 200;
  o.lat_warmup = 20;
  o.retest = false;
  auto sigs = report::signatures_from_pairs(probes::run_pairs(world, o));
  for (auto& s : sigs) s.source = "inspect";
  return sigs;
}

void run_inspect_step(StepContext& ctx, const probes::InventoryOptions& o) {
  const auto inv = probes::run_inventory(ctx.world, o);
  auto sigs = ctx.inspect_signature ? quick_signature(ctx.world) : std::vector<report::MpiSignature>{};
  if (ctx.doc) {
    report::add_inventory(*ctx.doc, inv);
    const auto env = probes::filter_transport_env(probes::process_environment());
    ctx.state->transport_evidence.add_inventories(inv, env);
    ctx.state->transport_evidence.add_signatures(std::move(sigs));
    redraw_transport(ctx);
    ctx.console = report::render_transport(*ctx.state->transport);
    if (ctx.detail == model::ConsoleDetail::kCompact) {
      ctx.console += fmt::format("# inventory: {} host(s) (per-host devices, GIDs, MPI and env: --verbose)\n",
                                 inv.hosts.size());
    } else {
      ctx.console += "\ninventory:\n" + report::render_inventory(inv);
    }
  }
}

}  // namespace

const ProbeAdapter* inspect_adapter() {
  return table_adapter<probes::InventoryOptions, model::inventory_option_table, probes::validate,
                       run_inspect_step>("inspect");
}

}  // namespace fabcheck::suite::detail
