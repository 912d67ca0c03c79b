#pragma once
/// @file Training profiles for the scaling score (configs/workloads.json, DESIGN §5). The file is
/// compiled into the binary; `--workloads FILE` reads another in the same format:
/// `{"default": NAME, "workloads": [{"name", "description", "parallelism": {value, why}, "parameters":
/// {value, why},
///   "bytes_per_grad", "bytes_per_param" (fsdp; default = bytes_per_grad), "bucket_bytes" (ddp; number or
///   size text such as "25M"), "fsdp_units" (fsdp), "compute_s", "overlap"}]}` — every number an object with
///   its `why`.
#include <string>
#include <string_view>
#include <vector>

#include "fabcheck/report/scaling_model.hpp"

namespace fabcheck::report {

/// A parsed workloads file.
struct WorkloadSet {
  std::string source;                     ///< file path, or "configs/workloads.json (built in)"
  std::string default_name;               ///< the profile `default` names (the reference workload)
  std::vector<WorkloadProfile> profiles;  ///< in file order
};

/// Parses a workloads file's text. Unknown keys, a number without its `why`, bad values and duplicate names
/// are errors naming the JSON pointer.
/// @param source named in errors (the path).
/// @throws UsageError "<source> <json pointer>: <problem> (<fix>)".
WorkloadSet parse_workloads(std::string_view text, const std::string& source);

/// The built-in configs/workloads.json (parsed once).
const WorkloadSet& builtin_workloads();

/// Reads a workloads file; an empty path gives builtin_workloads().
/// @param flag named when the file cannot be read ("--workloads").
/// @throws UsageError when the file cannot be read or parsed.
WorkloadSet load_workloads(const std::string& path, std::string_view flag = "--workloads");

/// The profile called `name` (an empty name selects the set's default).
/// @throws UsageError "<flag>: unknown workload 'x' (known: a, b, c)".
const WorkloadProfile& find_workload(const WorkloadSet& set, const std::string& name,
                                     std::string_view flag = "--workload");

}  // namespace fabcheck::report
