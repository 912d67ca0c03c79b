// The counters window around a step (counters_record.hpp).
#include "counters_record.hpp"

#include "fabcheck/probes/counters.hpp"
#include "fabcheck/report/counters.hpp"

namespace fabcheck::suite::detail {

CounterWindow::CounterWindow(const comm::Communicator& world, bool enabled)
    : enabled_(enabled), leader_(world.local_rank() == 0) {
  if (enabled_ && leader_) before_ = probes::read_counters();
}

nlohmann::json CounterWindow::finish(const comm::Communicator& world, double duration_s) {
  if (!enabled_) return nullptr;  // every rank runs the same step: none gathers
  std::string mine;
  if (leader_) {
    const auto after = probes::read_counters();
    mine = model::to_line(before_) + "\n" + model::to_line(after);
  }
  const auto lines = world.gather(mine, 0);
  if (world.rank() != 0) return nullptr;
  model::StepCounters sc;
  sc.duration_s = duration_s;
  for (std::size_t r = 0; r < lines.size(); ++r) {
    if (lines[r].empty()) continue;
    const auto nl = lines[r].find('\n');
    const auto before = model::counter_snapshot_from_line(lines[r].substr(0, nl));
    const auto after =
        model::counter_snapshot_from_line(nl == std::string::npos ? std::string() : lines[r].substr(nl + 1));
    sc.hosts.push_back(model::counter_delta(world.hosts_of_ranks()[r], before, after));
  }
  if (sc.hosts.empty()) return nullptr;
  return report::counters_json(sc);
}

}  // namespace fabcheck::suite::detail
