#pragma once
// Private to lib/comm: factories of the optional backends. nccl_backend.cpp defines them when NCCL was found,
// nccl_stub.cpp otherwise (lib/comm/CMakeLists.txt builds exactly one of the two).
#include <memory>

#include "fabcheck/comm/backend.hpp"

namespace fabcheck::comm::detail {

/// The NCCL backend on `comm` (collective). Throws UsageError when no rank can use it.
std::unique_ptr<CollBackend> make_nccl_backend(const Communicator& comm);

}  // namespace fabcheck::comm::detail
