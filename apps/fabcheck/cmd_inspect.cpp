// `fabcheck inspect`: what the hosts have (inventory per host, under MPI: host leaders collect,
// rank 0 gathers) and the transport verdict drawn from it, with the MPI signature of a short pairs run
// between host leaders when there are several hosts; or, with --nccl-log FILE..., the offline verdict from
// NCCL debug logs (no MPI). Thin: the inventory is lib/probes, findings and text are lib/analysis.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "fabcheck/comm/agree.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/probes/inventory.hpp"
#include "fabcheck/probes/pairs.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/inventory.hpp"
#include "fabcheck/report/signature_sources.hpp"
#include "fabcheck/report/transport.hpp"
#include "fabcheck/report/transport_accumulator.hpp"
#include "inspect_nccl_log.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct InspectFlags {
  std::vector<std::string> nccl_logs;
  std::string json;
  bool quiet = false;
  std::shared_ptr<BoundOptions<probes::InventoryOptions>> opts;
  probes::InventoryOptions inv;  // from opts, after parsing
  bool no_signature = false;
  CLI::Option* sysfs_root = nullptr;  // the table's --sysfs-root; repeatable (host=DIR) with --nccl-log
  bool live = false;                  // --nccl-log under a launcher without --sysfs-root: live inventory
};

// One command per process: the flags live here so that `mpi_when` can look at them after parsing.
InspectFlags& flags() {
  static InspectFlags f;
  return f;
}

std::string findings_text(const std::vector<report::Finding>& fs) {
  std::string s;
  for (const auto& f : fs)
    s += fmt::format("  [{}] {}: {}\n         remedy: {}\n", report::name(f.severity), f.code, f.message,
                     f.remedy);
  return s;
}

// The MPI signature (DESIGN §5) between host leaders: a short pairs run (8 B ping-pong and 4 MiB windows in
// each direction, no retest; well under a second per host pair on TCP). None on one host or with
// --no-signature (the same decision on every rank). Rank 0 gets the signatures.
std::vector<report::MpiSignature> quick_signature(const comm::Communicator& world, bool skip) {
  if (skip || probes::pairs_skip_reason(world)) return {};
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

int run_inventory_mode(const RunContext& ctx) {
  auto t0 = std::chrono::steady_clock::now();
  auto& fl = flags();
  probes::validate(fl.inv);  // same flags on every rank: every rank throws alike, rank 0 prints once
  auto world = comm::Communicator::world();
  // --json is checked on rank 0 (it writes the report); the verdict is shared so no rank waits alone.
  if (!fl.json.empty()) comm::agree_on_root(world, [&] { report::check_writable(fl.json, "--json"); });

  probes::InventoryResult inv = probes::run_inventory(world, fl.inv);
  const auto sigs = quick_signature(world, fl.no_signature);
  int code = 0;
  if (world.rank() == 0) {
    report::Document doc(ctx.argv);
    report::add_inventory(doc, inv);
    report::TransportAccumulator acc;
    acc.add_inventories(inv, probes::filter_transport_env(probes::process_environment()));
    acc.add_signatures(sigs);
    const report::TransportResult tr = acc.result();
    report::add_transport(doc, tr);
    code = doc.exit_code();
    doc.finish("complete", code,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (!fl.quiet) {
      std::string out = report::render_transport(tr);
      out += "\ninventory:\n" + report::render_inventory(inv);
      auto fs = report::inventory_findings(inv);
      if (!fs.empty()) out += "inventory findings:\n" + findings_text(fs);
      std::fputs(out.c_str(), stdout);
      std::fflush(stdout);
    }
    if (!fl.json.empty()) doc.write_atomic(fl.json);
  }
  double c = world.allreduce(static_cast<double>(code), comm::ScalarOp::kMax);
  return static_cast<int>(c);
}

const Registrar kInspect{
    probe_command(suite::StepKind::kInspect, [](CLI::App& sub) -> std::function<int(const RunContext&)> {
      auto& fl = flags();
      fl.opts = bind_options(sub, model::inventory_option_table());
      // With --nccl-log the flag names one recorded host per use (host=DIR); its raw values are read below.
      fl.sysfs_root = sub.get_option("--sysfs-root");
      fl.sysfs_root->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
      sub.add_flag("--no-signature", fl.no_signature,
                   "Do not measure the MPI signature between hosts (8 B latency and 4 MiB bandwidth of each "
                   "host pair, judged against what RDMA gives)");
      sub.add_option("--nccl-log", fl.nccl_logs,
                     "NCCL_DEBUG=INFO log file(s): judged offline (against --sysfs-root host=DIR when "
                     "given), or under "
                     "mpirun/srun against the live inventory of the hosts")
          ->expected(1, -1);
      sub.add_option("--json,-J,--out", fl.json, "Write the JSON report to FILE");
      sub.add_flag("--quiet,-q", fl.quiet, "No console output");
      return [](const RunContext& ctx) {
        auto& f = flags();
        if (!f.nccl_logs.empty() && f.live)
          return run_inspect_nccl_logs_live(f.nccl_logs, f.inv, ctx.argv, f.json, f.quiet);
        if (!f.nccl_logs.empty())
          return run_inspect_nccl_logs(f.nccl_logs, f.sysfs_root->results(), f.json, f.quiet);
        return run_inventory_mode(ctx);
      };
    })};

// MPI unless --nccl-log (decided after parsing).
const bool kInspectMpi = [] {
  mpi_deciders()["inspect"] = [] {
    auto& f = flags();
    f.inv = f.opts->options();
    // Under a launcher without recorded hosts, the logs are judged against the live inventory (MPI).
    if (!f.nccl_logs.empty() && launched_by_mpi() && f.sysfs_root->count() == 0) {
      f.live = true;
      probes::validate(f.inv);
      return true;
    }
    if (!f.nccl_logs.empty()) {
      // Offline: the inventory flags would be silently ignored, so refuse them (usage error before MPI);
      // --sysfs-root (host=DIR, repeatable) names the recorded hosts the logs are judged against.
      if (f.opts->given("etc_root") || f.opts->given("verbs") || f.no_signature)
        throw UsageError(
            "--nccl-log: reads logs offline; --etc-root/--no-verbs/--no-signature belong to the live host "
            "inventory (run inspect without --nccl-log for that; --sysfs-root host=DIR is accepted)");
      return false;
    }
    if (f.sysfs_root->count() > 1)
      throw UsageError(
          fmt::format("--sysfs-root: given {} times; several recorded hosts (--sysfs-root host=DIR) go with "
                      "--nccl-log, the "
                      "live inventory reads one tree",
                      f.sysfs_root->count()));
    probes::validate(f.inv);  // bad --sysfs-root etc.: one line, exit 2, before MPI starts
    return true;
  };
  return true;
}();

}  // namespace
}  // namespace fabcheck::app
