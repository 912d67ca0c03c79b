#pragma once
/// @file Large-report commands on transparent huge pages: see restart_on_huge_pages().

namespace fabcheck::app {

/// When an argument names a regular file above 32 MiB, fabcheck is not started by a launcher (no MPI/Slurm
/// rank variables) and glibc's malloc was not already told, starts this same program again (execv of
/// /proc/self/exe, same arguments) with `glibc.malloc.hugetlb=1` added to GLIBC_TUNABLES: malloc then asks
/// for transparent huge pages (madvise MADV_HUGEPAGE; glibc manual, "Memory Allocation Tunables"), so the
/// hundreds of MB a 2048-host report is parsed into fault in 2 MiB at a time instead of 4 KiB. glibc reads
/// its tunables only at start, hence the restart. Measured on a 2-core VM (bench/scale_reports.sh, `compare`
/// of two 2048 × 8 reports of 171 MB): 5.16–6.04 s with FABCHECK_NO_HUGE_PAGES=1, 3.09–3.75 s without (5
/// interleaved pairs). Returns when it did not restart (or the exec failed: the command runs as it is).
/// FABCHECK_NO_HUGE_PAGES=1 turns it off.
void restart_on_huge_pages(int argc, char** argv);

}  // namespace fabcheck::app
