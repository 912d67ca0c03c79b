#pragma once
/// @file Operation markers for the watchdog (issue "fabcheck run": no hangs, ever). Probes call enter_phase()
/// at each operation they are about to start (one per size/step/pair round, not per iteration); a watchdog
/// thread reads current_phase() and reports arrivals to rank 0. Thread-safe and cheap (one mutex, no MPI).
#include <cstdint>
#include <string>
#include <string_view>

namespace fabcheck::comm {

/// What this rank is doing now.
struct PhaseSnapshot {
  std::uint64_t seq = 0;  ///< number of enter_phase() calls so far on this rank (0 = none yet)
  std::string name;       ///< the operation, e.g. "sweep allreduce 1048576 B out_of_place"
  double since_us = 0;    ///< now_us() when it was entered
};

/// Marks arrival at operation `name`. With FABCHECK_TEST_FAULT=hang:rank=R:after=N, rank R (world rank) stops
/// here forever at its N-th call (test hook for the watchdog).
void enter_phase(std::string_view name);

/// The latest phase of this rank.
PhaseSnapshot current_phase();

/// Sets the world rank used by the hang fault (called once after MPI init).
void set_phase_rank(int world_rank);

}  // namespace fabcheck::comm
