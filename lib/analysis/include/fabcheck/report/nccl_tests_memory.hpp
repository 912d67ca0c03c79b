#pragma once
/// @file nccl-tests' `-M` GPU memory line, written under the sweep table's footer.
#include <cstdint>
#include <string>

namespace fabcheck::report {

/// nccl-tests' getMemString (src/util.cu): bytes as "B", "KB", "MB" or "GB" (powers of 1024), 2 decimals
/// below 10, 1 below 100, else 0 — e.g. "512 MB", "1.50 GB", "0.00 B".
std::string mem_string(std::int64_t bytes);

/// nccl-tests' `-M` footer line (src/util.cu writeMemInfo): "# GPU memory usage     : Initialization X |
/// User-Allocated Y | Collective Z | Total  T" with T = X + Y + Z (each the maximum over ranks).
std::string memory_usage_line(std::int64_t init_bytes, std::int64_t user_bytes,
                              std::int64_t collective_bytes);

}  // namespace fabcheck::report
