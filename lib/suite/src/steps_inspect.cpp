// Adapter: config section "inspect" -> probes::InventoryOptions -> run_inventory -> add_inventory + the
// transport verdict (report::analyze_transport) -> add_transport / render_transport. Its input stays in the
// SuiteState so that latency and pairs can redraw the verdict with their MPI signature.
#include "fabcheck/probes/inventory.hpp"

#include "fabcheck/report/inventory.hpp"
#include "fabcheck/report/transport.hpp"
#include "steps.hpp"

namespace fabcheck::suite::detail {
namespace {

probes::InventoryOptions to_options(const Step& st) {
  probes::InventoryOptions o;
  const auto& j = st.options;
  if (j.contains("sysfs_root")) o.sysfs_root = j["sysfs_root"].get<std::string>();
  if (j.contains("etc_root")) o.etc_root = j["etc_root"].get<std::string>();
  if (j.contains("nvidia_smi")) o.run_nvidia_smi = j["nvidia_smi"].get<bool>();
  if (j.contains("nccl_version")) o.nccl_version = j["nccl_version"].get<std::string>();
  return o;
}

void validate_inspect(const Step& st) {
  probes::validate(to_options(st));
}

void run_inspect_step(StepContext& ctx) {
  const auto inv = probes::run_inventory(ctx.world, to_options(ctx.step));
  if (ctx.doc) {
    report::add_inventory(*ctx.doc, inv);
    report::TransportInput in;
    in.hosts = report::rdma_evidence(inv);
    in.env = probes::filter_transport_env(probes::process_environment());
    auto tr = report::analyze_transport(in);
    report::add_transport(*ctx.doc, tr);
    ctx.console = report::render_transport(tr) + "\ninventory:\n" + report::render_inventory(inv);
    if (ctx.state) {
      ctx.state->transport_in = std::move(in);
      ctx.state->transport = std::move(tr);
    }
  }
}

const ProbeAdapter kInspect{"inspect", validate_inspect, run_inspect_step};

}  // namespace

const ProbeAdapter* inspect_adapter() {
  return &kInspect;
}

}  // namespace fabcheck::suite::detail
