#pragma once
// Private to lib/comm: the MPI handle behind Communicator and Request.
#include <mpi.h>

#include <string>
#include <vector>

#include "fabcheck/comm/communicator.hpp"

namespace fabcheck::comm {

struct Communicator::State {
  MPI_Comm comm = MPI_COMM_NULL;
  bool owned = false;  // freed in the destructor when created by split
  int rank = 0;
  int size = 0;
  std::vector<std::string> host_of_rank;
  std::vector<std::string> hosts;
  std::vector<int> host_idx;
  std::vector<std::vector<int>> ranks_by_host;
  int local_rank = 0;
  ~State();
};

struct Request::Impl {
  MPI_Request req = MPI_REQUEST_NULL;
};

/// Throws RuntimeFailure with the MPI error string when rc != MPI_SUCCESS.
void check_mpi(int rc, const char* what);

/// The MPI_Comm of a communicator.
inline MPI_Comm mpi_comm(const Communicator& c) {
  return *static_cast<MPI_Comm*>(c.native_handle());
}

}  // namespace fabcheck::comm
