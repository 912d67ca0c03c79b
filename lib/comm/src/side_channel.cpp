#include "fabcheck/comm/side_channel.hpp"

#include <mpi.h>

namespace fabcheck::comm {

namespace {
constexpr int kTag = 7101;  // the side channel's tag on its own duplicated communicator
}

bool thread_multiple() {
  int provided = 0;
  MPI_Query_thread(&provided);
  return provided >= MPI_THREAD_MULTIPLE;
}

struct SideChannel::Impl {
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Request req = MPI_REQUEST_NULL;
};

SideChannel::SideChannel(const Communicator& c) : impl_(std::make_unique<Impl>()) {
  MPI_Comm base = *static_cast<MPI_Comm*>(c.native_handle());
  MPI_Comm_dup(base, &impl_->dup);
  MPI_Comm_set_errhandler(impl_->dup, MPI_ERRORS_RETURN);
}

SideChannel::~SideChannel() {
  cancel();
  if (impl_->dup != MPI_COMM_NULL) MPI_Comm_free(&impl_->dup);
}

void SideChannel::send_to_root(const void* data, std::size_t bytes) const {
  MPI_Send(data, static_cast<int>(bytes), MPI_BYTE, 0, kTag, impl_->dup);
}

void SideChannel::post_receive(void* buf, std::size_t bytes) {
  MPI_Irecv(buf, static_cast<int>(bytes), MPI_BYTE, MPI_ANY_SOURCE, kTag, impl_->dup, &impl_->req);
}

bool SideChannel::pending() const {
  return impl_->req != MPI_REQUEST_NULL;
}

bool SideChannel::test(int& source) {
  if (impl_->req == MPI_REQUEST_NULL) return false;
  int flag = 0;
  MPI_Status st;
  MPI_Test(&impl_->req, &flag, &st);
  if (!flag) return false;
  impl_->req = MPI_REQUEST_NULL;
  source = st.MPI_SOURCE;
  return true;
}

void SideChannel::cancel() {
  if (impl_->req == MPI_REQUEST_NULL) return;
  MPI_Cancel(&impl_->req);
  MPI_Request_free(&impl_->req);
}

}  // namespace fabcheck::comm
