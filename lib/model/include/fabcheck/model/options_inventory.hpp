#pragma once
/// @file Options of the inventory probe (the model owns every probe's Options; its option table is
/// inventory_option_table() in model/option_tables.hpp, the one definition of every flag and config key).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/core/collective.hpp"

namespace fabcheck::model {

/// What to read and where.
struct InventoryOptions {
  std::string sysfs_root = "/sys";  ///< root of every sysfs read (`--sysfs-root`); must be a directory
  std::string etc_root = "/etc";    ///< root of Open MPI's `openmpi/openmpi-mca-params.conf` (`--etc-root`)
  /// Root of `net/fib_trie` and `net/route` (`--proc-root`), the interface addresses; empty = `/proc` when
  /// sysfs_root is "/sys", none with a model tree (the running host's addresses are not the model's).
  std::string proc_root;
  bool use_verbs = true;  ///< ask libibverbs too (only when compiled in)
  /// Run `nvidia-smi topo -m` when it is on PATH. Only honoured when sysfs_root is "/sys" (a fixture tree is
  /// not the machine nvidia-smi describes).
  bool run_nvidia_smi = true;
  /// NCCL version to judge GPUDirect visibility against ("2.18.5"); empty = unknown (then every range is
  /// reported).
  std::string nccl_version;
};

}  // namespace fabcheck::model
