// The comparison's data (model/compare.hpp): verdict names and row counts, read by analysis and render alike.
#include "fabcheck/model/compare.hpp"

namespace fabcheck::report {

std::string_view name(CompareVerdict v) {
  switch (v) {
    case CompareVerdict::kWorse:
      return "worse";
    case CompareVerdict::kBetter:
      return "better";
    case CompareVerdict::kWithinNoise:
      return "within_noise";
    case CompareVerdict::kNoiseUnknown:
      return "noise_unknown";
    case CompareVerdict::kNotTestable:
      return "not_testable";
    case CompareVerdict::kInconclusive:
      return "inconclusive";
  }
  return "noise_unknown";
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
