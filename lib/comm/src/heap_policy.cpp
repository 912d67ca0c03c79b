#include "fabcheck/comm/heap_policy.hpp"

#include <cstdlib>
#include <string_view>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace fabcheck::comm {
namespace {

constexpr int kMmapThresholdBytes = 1
                                    << 30;  // 1 GiB: the largest default sweep's temporaries stay in the heap
constexpr int kTrimThresholdBytes = 0x7fffffff;

HeapPolicy& current() {
  static HeapPolicy p{std::nullopt, "defaults"};
  return p;
}

bool set_in_environment() {
  if (std::getenv("MALLOC_MMAP_THRESHOLD_")) return true;
  const char* t = std::getenv("GLIBC_TUNABLES");
  return t && std::string_view(t).find("glibc.malloc.mmap_threshold") != std::string_view::npos;
}

}  // namespace

HeapPolicy keep_freed_memory() {
  static const bool once = [] {
    const char* off = std::getenv("FABCHECK_MALLOC_DEFAULTS");
    if (off && std::string_view(off) == "1") return true;
    if (set_in_environment()) {
      current().set_by = "environment";
      return true;
    }
#if defined(__GLIBC__)
    if (mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes) == 1 &&
        mallopt(M_TRIM_THRESHOLD, kTrimThresholdBytes) == 1)
      current() = {kMmapThresholdBytes, "fabcheck"};
#endif
    return true;
  }();
  (void)once;
  return current();
}

HeapPolicy heap_policy() {
  return current();
}

}  // namespace fabcheck::comm
