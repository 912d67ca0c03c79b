// Adapter: config section "inspect" -> probes::InventoryOptions -> run_inventory -> add_inventory + the
// transport verdict (report::analyze_transport) -> add_transport / render_transport. Its input stays in the
// SuiteState so that latency and pairs can redraw the verdict with their MPI signature.
#include "fabcheck/probes/inventory.hpp"

#include <fmt/format.h>

#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/report/inventory.hpp"
#include "fabcheck/report/transport.hpp"
#include "steps.hpp"

namespace fabcheck::suite::detail {
namespace {

void run_inspect_step(StepContext& ctx, const probes::InventoryOptions& o) {
  const auto inv = probes::run_inventory(ctx.world, o);
  if (ctx.doc) {
    report::add_inventory(*ctx.doc, inv);
    const auto env = probes::filter_transport_env(probes::process_environment());
    if (ctx.state) {
      ctx.state->transport_evidence.add_inventories(inv, env);
      redraw_transport(ctx);
      ctx.console = report::render_transport(*ctx.state->transport);
    } else {
      report::TransportAccumulator acc;
      acc.add_inventories(inv, env);
      const auto tr = acc.result();
      report::add_transport(*ctx.doc, tr);
      ctx.console = report::render_transport(tr);
    }
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
