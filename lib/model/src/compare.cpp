// The comparison's data (model/compare.hpp): verdict names and row counts, read by analysis and render alike.
#include "fabcheck/model/compare.hpp"

namespace fabcheck::report {

std::string_view name(CompareVerdict v) {
  static constexpr std::string_view kNames[] = {
      "worse", "better", "within_noise", "noise_unknown", "not_testable", "inconclusive"};  // enum order
  return kNames[static_cast<std::size_t>(v)];
}

std::size_t CompareResult::count(CompareVerdict v) const {
  std::size_t n = 0;
  for (const auto& r : rows) n += r.verdict == v;
  return n;
}

std::size_t CompareResult::count_within_run_spread() const {
  std::size_t n = 0;
  for (const auto& r : rows) n += r.within_run_spread;
  return n;
}

}  // namespace fabcheck::report
