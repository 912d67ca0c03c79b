// Built instead of nccl_backend.cpp when NCCL or the CUDA runtime was not found at configure time.
#include "backend_factories.hpp"
#include "fabcheck/core/error.hpp"

namespace fabcheck::comm {

bool nccl_backend_compiled() {
  return false;
}

std::string nccl_unusable_reason(const Communicator& /*comm*/) {
  return "--backend nccl: not compiled in (rebuild with NCCL and CUDA found: -DFABCHECK_WITH_NCCL=ON, "
         "NCCL_HOME, CUDA_HOME), or use --backend mpi";
}

namespace detail {

std::unique_ptr<CollBackend> make_nccl_backend(const Communicator& comm, const nccl::Tuning& /*tuning*/) {
  throw UsageError(nccl_unusable_reason(comm));
}

}  // namespace detail
}  // namespace fabcheck::comm
