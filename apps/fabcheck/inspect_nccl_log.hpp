#pragma once
// `fabcheck inspect --nccl-log FILE...`: offline (no MPI) transport verdict from NCCL debug logs.
#include <string>
#include <vector>

#include "fabcheck/probes/inventory.hpp"
#include "option_cli.hpp"

namespace fabcheck::app {

/// Parses every log in `files`, draws the transport verdict (DESIGN §5), prints it (verdict on top) to stdout
/// unless `quiet`, and writes the report (transport section + findings) atomically to `json_path` when not
/// empty, and its page and JUnit file to `outputs` (`--html`, `--junit`). Each of `sysfs_roots`
/// (`--sysfs-root host=DIR`, or one plain `DIR` for a log of one host) is a recorded host's sysfs tree (its
/// Open MPI files under DIR/etc): its inventory joins the report and the logs' lines of that host are judged
/// against it (report/log_host.hpp). All inputs are checked before anything is written.
/// @returns exit code: 0, or 1 when a `fail` finding exists.
/// @throws UsageError (exit 2, one line) when a file is missing/unreadable, `json_path` cannot be written, a
/// root is not a directory, names a host that no log line has, or is unnamed beside other hosts.
int run_inspect_nccl_logs(const std::vector<std::string>& files, const std::vector<std::string>& sysfs_roots,
                          const std::string& json_path, const ReportOutputs& outputs, bool quiet);

/// The same under MPI with the live inventory (`mpirun ... fabcheck inspect --nccl-log FILE...` without
/// --sysfs-root): the host leaders read their hosts as `inspect` does, rank 0 judges the logs against them
/// (log lines matched by host name) with the launcher's NCCL_*/UCX_*/OMPI_MCA_* environment. Inputs are
/// checked on rank 0 and every rank leaves with its verdict (UsageError: exit 2 on all).
/// @returns the same exit code on every rank.
int run_inspect_nccl_logs_live(const std::vector<std::string>& files, const probes::InventoryOptions& opts,
                               const std::vector<std::string>& argv, const std::string& json_path,
                               const ReportOutputs& outputs, bool quiet);

}  // namespace fabcheck::app
