#pragma once
// `fabcheck inspect --nccl-log FILE...`: offline (no MPI) transport verdict from NCCL debug logs.
#include <string>
#include <vector>

namespace fabcheck::app {

/// Parses every log in `files`, draws the transport verdict (DESIGN §5), prints it (verdict on top) to stdout
/// unless `quiet`, and writes the report (transport section + findings) atomically to `json_path` when not
/// empty. All files are checked before anything is written.
/// @returns exit code: 0, or 1 when a `fail` finding exists.
/// @throws UsageError (exit 2, one line) when a file is missing/unreadable or `json_path` cannot be written.
int run_inspect_nccl_logs(const std::vector<std::string>& files, const std::string& json_path, bool quiet);

}  // namespace fabcheck::app
