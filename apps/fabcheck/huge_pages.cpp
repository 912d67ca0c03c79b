#include "huge_pages.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace fabcheck::app {
namespace {

constexpr const char* kTunable = "glibc.malloc.hugetlb=1";
constexpr off_t kLargeInputBytes = off_t{32} << 20;

bool launched_as_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE", "PMIX_RANK", "SLURM_PROCID"})
    if (std::getenv(v)) return true;
  return false;
}

bool names_large_file(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    struct stat st {};
    if (::stat(argv[i], &st) == 0 && S_ISREG(st.st_mode) && st.st_size > kLargeInputBytes) return true;
  }
  return false;
}

}  // namespace

void restart_on_huge_pages(int argc, char** argv) {
  if (const char* off = std::getenv("FABCHECK_NO_HUGE_PAGES"); off && std::string(off) == "1") return;
  const char* old = std::getenv("GLIBC_TUNABLES");
  const std::string tunables = old ? old : "";
  if (tunables.find("glibc.malloc.hugetlb") != std::string::npos) return;  // told already (also: restarted)
  if (launched_as_rank() || !names_large_file(argc, argv)) return;
  const std::string next = tunables.empty() ? kTunable : tunables + ":" + kTunable;
  if (::setenv("GLIBC_TUNABLES", next.c_str(), 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  // exec failed: run as we are, and leave the environment as it was
  if (old) {
    ::setenv("GLIBC_TUNABLES", old, 1);
  } else {
    ::unsetenv("GLIBC_TUNABLES");
  }
}

}  // namespace fabcheck::app
