#include "fabcheck/comm/agree.hpp"

#include <cstdint>

#include "fabcheck/core/error.hpp"

namespace fabcheck::comm {

std::string agree_on_root_value(const Communicator& comm, const std::function<std::string()>& fn) {
  // One broadcast: a leading '1' + the value, or '0' + the error message.
  std::string payload;
  if (comm.rank() == 0) {
    try {
      payload = "1" + fn();
    } catch (const UsageError& e) {
      payload = std::string("0") + e.what();
    }
  }
  comm.bcast(payload, 0);
  if (payload.empty() || payload[0] != '1') throw UsageError(payload.empty() ? "" : payload.substr(1));
  return payload.substr(1);
}

void agree_on_root(const Communicator& comm, const std::function<void()>& check) {
  agree_on_root_value(comm, [&] {
    check();
    return std::string();
  });
}

void agree_on_all(const Communicator& comm, const std::function<void()>& check) {
  std::string error;
  try {
    check();
  } catch (const UsageError& e) {
    error = e.what();
  }
  const std::int64_t first_bad =
      comm.allreduce(static_cast<std::int64_t>(error.empty() ? comm.size() : comm.rank()), ScalarOp::kMin);
  if (first_bad == comm.size()) return;
  comm.bcast(error, static_cast<int>(first_bad));
  throw UsageError(error);
}

}  // namespace fabcheck::comm
