// The inspect step's option table.
#include "fabcheck/model/option_tables.hpp"

namespace fabcheck::model {

namespace {

OptionTable<InventoryOptions> make_inventory_table() {
  using K = OptKind;
  using O = InventoryOptions;
  OptionTable<O> t;
  t.probe = "inspect";
  t.options = {
      field({"sysfs_root", "--sysfs-root", K::kString, 0, 0, "", "Read sysfs under DIR (a host model tree)"},
            &O::sysfs_root),
      field({"etc_root", "--etc-root", K::kString, 0, 0, "",
             "Read Open MPI's openmpi/openmpi-mca-params.conf under DIR"},
            &O::etc_root),
      field({"proc_root", "--proc-root", K::kString, 0, 0, "",
             "Read net/fib_trie and net/route (interface addresses) under DIR (default: /proc with the real "
             "/sys)"},
            &O::proc_root),
      field({"nccl_version", "--nccl-version", K::kString, 0, 0, "",
             "NCCL version to judge GPUDirect peer-memory visibility against (e.g. 2.18.5)"},
            &O::nccl_version),
      field(
          {"verbs", "--verbs,!--no-verbs", K::kBool, 0, 0, "", "Ask libibverbs too (--no-verbs: sysfs only)"},
          &O::use_verbs),
      field({"nvidia_smi", "--nvidia-smi,!--no-nvidia-smi", K::kBool, 0, 0, "",
             "Run nvidia-smi topo -m when on PATH (only with the real /sys)"},
            &O::run_nvidia_smi),
  };
  t.cli_only = {
      {"json", "the report file of the standalone command (run: --json)"},
      {"out", "alias of --json"},
      {"quiet", "no console output (run: --quiet)"},
      {"nccl-log", "offline mode: read NCCL logs instead of the hosts (run --backend nccl reads them)"},
      {"no-signature",
       "the standalone command's own MPI signature (run: the latency and pairs steps measure it)"}};
  return t;
}

}  // namespace

const OptionTable<InventoryOptions>& inventory_option_table() {
  static const OptionTable<InventoryOptions> t = make_inventory_table();
  return t;
}

}  // namespace fabcheck::model
