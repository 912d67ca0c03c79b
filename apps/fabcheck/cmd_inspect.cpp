// `fabcheck inspect`: minimal registration with only the offline NCCL-log mode (--nccl-log, --json).
// The inventory helper extends this file with the host inventory (sysfs, verbs, MPI); see
// /work/NOTES-ncclog.md.
#include <string>
#include <vector>

#include "command.hpp"
#include "fabcheck/core/error.hpp"
#include "inspect_nccl_log.hpp"

namespace fabcheck::app {
namespace {

struct InspectFlags {
  std::vector<std::string> nccl_logs;
  std::string json;
  bool quiet = false;
};

const Registrar kInspect{CommandSpec{
    "inspect", "What the hosts have and what NCCL/MPI actually used (transport verdict)", false, 60,
    [](CLI::App& sub) -> std::function<int(const RunContext&)> {
      auto flags = std::make_shared<InspectFlags>();
      sub.add_option("--nccl-log", flags->nccl_logs, "NCCL_DEBUG=INFO log file(s) to read offline (no MPI)")
          ->expected(1, -1);
      sub.add_option("--json,-J,--out", flags->json, "Write the JSON report to FILE");
      sub.add_flag("--quiet,-q", flags->quiet, "No console output");
      return [flags](const RunContext&) {
        if (flags->nccl_logs.empty())
          throw UsageError("inspect: host inventory is not built yet here; use --nccl-log FILE...");
        return run_inspect_nccl_logs(flags->nccl_logs, flags->json, flags->quiet);
      };
    }}};

}  // namespace
}  // namespace fabcheck::app
