#pragma once
/// @file Agreement on checks that fail alike on every rank (one home for "rank 0 checks, every rank
/// throws"). A usage error found by one rank becomes the same UsageError on every rank, so that every rank
/// exits 2 with one line and none is left waiting in a collective.
#include <functional>
#include <string>

#include "fabcheck/comm/communicator.hpp"

namespace fabcheck::comm {

/// Runs `fn` on rank 0 and shares its outcome: the text it returned on every rank, or, when it threw
/// UsageError, that UsageError on every rank. Collective over `comm`.
std::string agree_on_root_value(const Communicator& comm, const std::function<std::string()>& fn);

/// Runs `check` on rank 0; if it throws UsageError, every rank throws it. Collective over `comm`.
void agree_on_root(const Communicator& comm, const std::function<void()>& check);

/// Runs `check` on every rank; if any rank throws UsageError, every rank throws the lowest failing rank's
/// message. Collective over `comm`.
void agree_on_all(const Communicator& comm, const std::function<void()>& check);

}  // namespace fabcheck::comm
