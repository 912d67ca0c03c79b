#pragma once
// Collective agreement on checks that only rank 0 can make (its file system, its report path), so that every
// rank throws the same UsageError and none is left waiting.
#include <functional>
#include <string>

#include "fabcheck/comm/communicator.hpp"

namespace fabcheck::app {

/// Runs `check` on rank 0; if it throws UsageError, every rank throws a UsageError with the same message.
/// Collective over `comm`.
void agree_on_root_check(const comm::Communicator& comm, const std::function<void()>& check);

/// Runs `check` on every rank; if any rank throws UsageError, every rank throws the lowest failing rank's
/// message. Collective over `comm`.
void agree_on_all_check(const comm::Communicator& comm, const std::function<void()>& check);

}  // namespace fabcheck::app
