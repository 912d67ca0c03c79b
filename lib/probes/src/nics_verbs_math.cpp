// The result maths of the nics probe's verbs part (probes/nics_verbs_math.hpp). No verbs headers.
#include "fabcheck/probes/nics_verbs_math.hpp"

#include <algorithm>
#include <vector>

namespace fabcheck::probes::rdma {

std::optional<double> write_bw_gbps(std::uint64_t msg_bytes, std::uint64_t iters, double seconds) {
  if (!(seconds > 0) || iters == 0) return std::nullopt;
  return static_cast<double>(msg_bytes) * static_cast<double>(iters) / seconds / 1e9;
}

core::Summary write_lat_half_us(std::span<const double> rtt_ns) {
  std::vector<double> half_us;
  half_us.reserve(rtt_ns.size());
  for (double t : rtt_ns) half_us.push_back(t / 2.0 / 1e3);
  return core::summarize(half_us);
}

std::uint64_t WriteWindow::can_post() const {
  const std::uint64_t in_flight = posted - completed;
  const std::uint64_t room = depth > in_flight ? depth - in_flight : 0;
  return std::min(room, iters - std::min(iters, posted));
}

void WriteWindow::post(std::uint64_t n) {
  posted += std::min(n, can_post());
}

void WriteWindow::complete(std::uint64_t n) {
  completed += std::min(n, posted - completed);
}

}  // namespace fabcheck::probes::rdma
