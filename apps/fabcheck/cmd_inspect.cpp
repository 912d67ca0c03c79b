// `fabcheck inspect`: what the hosts have (inventory per host, under MPI: host leaders collect,
// rank 0 gathers) and the transport verdict drawn from it, with the MPI signature of a short pairs run
// between host leaders when there are several hosts (the inspect step of `run` through its driver); or, with
// --nccl-log FILE..., the verdict from NCCL debug logs, offline (no MPI) or against the live hosts.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/probes/inventory.hpp"
#include "fabcheck/suite/single.hpp"
#include "inspect_nccl_log.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {
namespace {

struct InspectFlags {
  std::vector<std::string> nccl_logs;
  std::string json;
  ReportOutputs out;  // --html, --junit (the live inventory)
  bool quiet = false;
  std::shared_ptr<BoundOptions<probes::InventoryOptions>> opts;
  probes::InventoryOptions inv;  // from opts, after parsing
  bool no_signature = false;
  CLI::Option* sysfs_root = nullptr;  // the table's --sysfs-root; repeatable (host=DIR) with --nccl-log
  bool live = false;                  // --nccl-log under a launcher without --sysfs-root: live inventory
  double timeout_s = suite::SingleOptions{}.timeout_s;  // -T: the watchdog over the live inventory
};

// One command per process: the flags live here so that `mpi_when` can look at them after parsing.
InspectFlags& flags() {
  static InspectFlags f;
  return f;
}

// The live inventory: a one-step plan through the driver of `run`, with the MPI signature between host
// leaders measured after it.
int run_inventory_mode(const RunContext& ctx) {
  auto& fl = flags();
  probes::validate(fl.inv);  // same flags on every rank: every rank throws alike, rank 0 prints once
  auto so = suite::SingleOptions::of(ctx.argv, fl.json)
                .with_outputs(fl.out.html, fl.out.junit)
                .with_counters(false);  // the inventory step reads none
  so.quiet = fl.quiet;
  so.timeout_s = checked_timeout(fl.timeout_s);
  so.inspect_signature = !fl.no_signature;
  const suite::Step step = suite::make_single_step(suite::StepKind::kInspect, fl.opts->given_json());
  return suite::run_single(comm::Communicator::world(), {step}, so).exit_code;
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
      add_report_outputs(sub, fl.out, /*counters=*/false);
      add_timeout(sub, fl.timeout_s);
      sub.add_flag("--quiet,-q", fl.quiet, "No console output");
      return [](const RunContext& ctx) {
        auto& f = flags();
        if (!f.nccl_logs.empty() && f.live)
          return run_inspect_nccl_logs_live(f.nccl_logs, f.inv, ctx.argv, f.json, f.out, f.quiet);
        if (!f.nccl_logs.empty())
          return run_inspect_nccl_logs(f.nccl_logs, f.sysfs_root->results(), f.json, f.out, f.quiet);
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
