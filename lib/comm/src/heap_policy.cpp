#include "fabcheck/comm/heap_policy.hpp"

#include <cstdlib>
#include <mutex>
#include <string_view>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace fabcheck::comm {
namespace {

// 1 GiB: every temporary of the largest default sweep stays in the heap.
constexpr int kMmapThresholdBytes = 1 << 30;
constexpr int kTrimThresholdBytes = 0x7fffffff;

HeapPolicy g_policy{std::nullopt, "defaults"};
std::once_flag g_once;

bool set_in_environment() {
  if (std::getenv("MALLOC_MMAP_THRESHOLD_")) return true;
  const char* t = std::getenv("GLIBC_TUNABLES");
  return t && std::string_view(t).find("glibc.malloc.mmap_threshold") != std::string_view::npos;
}

void apply() {
  const char* off = std::getenv("FABCHECK_MALLOC_DEFAULTS");
  if (off && std::string_view(off) == "1") return;
  if (set_in_environment()) {
    g_policy.set_by = "environment";
    return;
  }
#if defined(__GLIBC__)
  if (mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes) == 1 &&
      mallopt(M_TRIM_THRESHOLD, kTrimThresholdBytes) == 1)
    g_policy = {kMmapThresholdBytes, "fabcheck"};
#endif
}

}  // namespace

HeapPolicy keep_freed_memory() {
  std::call_once(g_once, apply);
  return g_policy;
}

HeapPolicy heap_policy() {
  return g_policy;
}

}  // namespace fabcheck::comm
