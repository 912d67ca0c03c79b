#include "agree.hpp"

#include "fabcheck/core/error.hpp"

namespace fabcheck::app {

void agree_on_root_check(const comm::Communicator& comm, const std::function<void()>& check) {
  std::string error;
  if (comm.rank() == 0) {
    try {
      check();
    } catch (const UsageError& e) {
      error = e.what();
    }
  }
  comm.bcast(error, 0);
  if (!error.empty()) throw UsageError(error);
}

void agree_on_all_check(const comm::Communicator& comm, const std::function<void()>& check) {
  std::string error;
  try {
    check();
  } catch (const UsageError& e) {
    error = e.what();
  }
  const std::int64_t first_bad = comm.allreduce(
      static_cast<std::int64_t>(error.empty() ? comm.size() : comm.rank()), comm::ScalarOp::kMin);
  if (first_bad == comm.size()) return;
  comm.bcast(error, static_cast<int>(first_bad));
  throw UsageError(error);
}

}  // namespace fabcheck::app
