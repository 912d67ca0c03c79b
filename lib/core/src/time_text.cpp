#include "fabcheck/core/time_text.hpp"

#include <ctime>

namespace fabcheck::core {

std::string local_time_text(std::int64_t unix_s) {
  const std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

}  // namespace fabcheck::core
