#include "fabcheck/core/input_limits.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "fabcheck/core/error.hpp"

namespace fabcheck::core {

namespace {
std::uint64_t g_cap_mib = 0;  // --max-input-mb; set once by main before any input is read
}  // namespace

void set_input_cap_mib(std::uint64_t mib) {
  g_cap_mib = mib;
}

std::uint64_t input_cap_bytes(std::uint64_t default_mib) {
  std::uint64_t mib = default_mib;
  if (g_cap_mib != 0) return g_cap_mib << 20;
  if (const char* e = std::getenv("FABCHECK_MAX_INPUT_MB"); e && *e) {  // set but empty = unset
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(e, &end, 10);
    if (*e == '-' || errno != 0 || !end || *end != '\0' || v == 0 || v > kMaxInputCapMiB)
      throw UsageError(
          fmt::format("FABCHECK_MAX_INPUT_MB: \"{}\" is not a size in MiB (give an integer from 1 to "
                      "16777216, or unset it)",
                      std::string(e).substr(0, 40)));
    mib = v;
  }
  return mib << 20;
}

std::string cap_text(std::uint64_t cap_bytes, std::string_view kind) {
  return fmt::format("the {} MiB cap for a {} (raise it with --max-input-mb N or FABCHECK_MAX_INPUT_MB=N)",
                     cap_bytes >> 20, kind);
}

void check_json_depth(std::string_view text, std::string_view origin) {
  int depth = 0;
  std::size_t line = 1;
  bool in_string = false, escape = false;
  for (char c : text) {
    if (c == '\n') ++line;
    if (in_string) {
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw UsageError(
            fmt::format("{}: JSON nested deeper than {} levels at line {} (not a file fabcheck "
                        "wrote; give a report or config without such nesting)",
                        origin, kMaxJsonDepth, line));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

}  // namespace fabcheck::core
