#pragma once
/// @file Test-only fault injection, read from the environment variable FABCHECK_TEST_FAULT (never set it in
/// production). Forms:
///   corrupt:rank=R:elems=K        rank R corrupts K received elements after each checked op, before the
///   check delay:rank=R:us=U:every=E     rank R enters late by U µs every E-th iteration of the per-iteration
///   pass hang:rank=R:after=N           rank R stops (sleeps forever) when it reaches its N-th watched
///   operation; freeze:rank=R:after=N  the whole process of rank R stops there (SIGSTOP to itself: its
///   watchdog thread stops too, as on a frozen or unreachable host); crash:rank=R:after=N  rank R's process
///   dies there (SIGKILL to itself, as a segmentation fault ends it: no goodbye, its sockets closed by the
///   kernel)
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fabcheck::core {

/// A parsed FABCHECK_TEST_FAULT value.
struct Fault {
  enum class Kind { kCorrupt, kDelay, kHang, kFreeze, kCrash };
  Kind kind = Kind::kCorrupt;  ///< which fault
  int rank = -1;               ///< the rank that misbehaves
  std::uint64_t elems = 1;     ///< corrupt: elements to corrupt
  std::uint64_t us = 0;        ///< delay: microseconds
  std::uint64_t every = 1;     ///< delay: every E-th iteration (1 = all)
  std::uint64_t after = 0;     ///< hang, freeze, crash: operation number at which to stop
};

/// Parses a fault spec. @throws UsageError naming FABCHECK_TEST_FAULT on a malformed value.
Fault parse_fault(std::string_view spec);

/// The fault from the environment (FABCHECK_TEST_FAULT), or nullopt when unset/empty.
/// @throws UsageError on a malformed value.
std::optional<Fault> fault_from_env();

}  // namespace fabcheck::core
