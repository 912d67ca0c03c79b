#include "fabcheck/report/nccl_tests_memory.hpp"

#include <fmt/format.h>

#include <cmath>

namespace fabcheck::report {

std::string mem_string(std::int64_t bytes) {
  double amount = static_cast<double>(bytes);
  const char* postfix = " B";
  constexpr double kKiB = 1024.0, kMiB = kKiB * 1024.0, kGiB = kMiB * 1024.0;
  if (std::fabs(amount) >= kGiB) {
    postfix = " GB";
    amount /= kGiB;
  } else if (std::fabs(amount) >= kMiB) {
    postfix = " MB";
    amount /= kMiB;
  } else if (std::fabs(amount) >= kKiB) {
    postfix = " KB";
    amount /= kKiB;
  }
  const int precision = std::fabs(amount) < 10.0 ? 2 : std::fabs(amount) < 100.0 ? 1 : 0;
  return fmt::format("{:.{}f}{}", amount, precision, postfix);
}

std::string memory_usage_line(std::int64_t init_bytes, std::int64_t user_bytes,
                              std::int64_t collective_bytes) {
  return fmt::format("# {:<20} : Initialization {} | User-Allocated {} | Collective {} | Total  {}",
                     "GPU memory usage", mem_string(init_bytes), mem_string(user_bytes),
                     mem_string(collective_bytes), mem_string(init_bytes + user_bytes + collective_bytes));
}

}  // namespace fabcheck::report
