// The CPU load and loss counters around one step (step_watch.hpp).
#include "step_watch.hpp"

#include "cpu_load_record.hpp"
#include "fabcheck/report/counters.hpp"

namespace fabcheck::suite::detail {

StepWatch::StepWatch(const comm::Communicator& world, StepKind kind, bool counters)
    : cpu_window_(start_cpu_window(world)),
      load_sampler_(world.local_rank() == 0),  // one sampler per host (cpu_load.hpp)
      counter_window_(world, counters && kind != StepKind::kInspect) {}

std::string StepWatch::finish(const comm::Communicator& world, double elapsed_s, report::Document* doc,
                              const std::string& section, std::string_view step) {
  const nlohmann::json cpu_load = gather_cpu_load(world, load_sampler_.stop(), cpu_window_);
  const nlohmann::json counters = counter_window_.finish(world, elapsed_s);
  if (!doc) return {};
  auto& sections = doc->json()["run"]["sections"];
  if (!sections.contains(section) || !sections[section].is_object()) return {};
  if (!cpu_load.is_null()) sections[section]["cpu_load"] = cpu_load;
  if (counters.is_null()) return {};
  sections[section]["counters"] = counters;
  report::add_counter_findings(*doc, section);
  return report::render_counters(counters, step);
}

}  // namespace fabcheck::suite::detail
