#pragma once
/// @file What a rank asks of the C library's allocator before MPI starts (DESIGN §3, "Freed memory stays in
/// the heap").
#include <cstdint>
#include <optional>
#include <string>

namespace fabcheck::comm {

/// The allocator policy a rank runs under, for `run.heap` of the report.
struct HeapPolicy {
  /// Allocations below this many bytes come from the heap and freed memory stays there; nullopt when fabcheck
  /// did not set it (the C library's defaults, where an allocation of 32 MiB or more is a fresh mapping every
  /// time, or what the environment says).
  std::optional<std::int64_t> mmap_threshold_bytes;
  std::string set_by;  ///< "fabcheck", "environment" (GLIBC_TUNABLES / MALLOC_MMAP_THRESHOLD_) or "defaults"
};

/// Keeps freed memory in the heap for this process (glibc mallopt M_MMAP_THRESHOLD 1 GiB, M_TRIM_THRESHOLD
/// 2 GiB - 1), unless FABCHECK_MALLOC_DEFAULTS=1 or the environment already sets the threshold. Call before
/// MPI_Init; later calls return the first call's policy.
///
/// Why: Open MPI's collectives allocate their temporaries per call (e.g. the Rabenseifner allreduce,
/// ompi_coll_base_allreduce_intra_redscat_allgather, mallocs the whole message each time). glibc serves an
/// allocation of 32 MiB or more (DEFAULT_MMAP_THRESHOLD_MAX, malloc/malloc.c) with a new mmap and unmaps it
/// on free, so every such collective first page-faults its temporary in. Measured on this project's 2-core
/// VMs: malloc + touch + free of 32 MiB 123-125 ms, of 31 MiB (reused from the heap) 1.4-1.9 ms; a 4-rank 32
/// MiB allreduce 348-466 ms against 50-54 ms at 16 MiB (busBw 0.13 vs 0.49 GB/s) on the virtual fabric, and
/// 120 ms with the threshold raised. That cost is the host's page faults, not the fabric's, and NCCL does not
/// allocate per call; fabcheck's sweeps measure the fabric.
HeapPolicy keep_freed_memory();

/// The policy keep_freed_memory() set (the defaults before it is called).
HeapPolicy heap_policy();

}  // namespace fabcheck::comm
