#include "fabcheck/report/sweep_json.hpp"

#include <utility>

#include "fabcheck/model/json_value.hpp"

namespace fabcheck::report {

using model::value_or_null;

nlohmann::json sweep_point_json(const SweepPointFields& p) {
  nlohmann::json j = {{"size_bytes", p.size_bytes},
                      {"count", value_or_null(p.count)},
                      {"cycle", p.cycle},
                      {"placement", p.placement},
                      {"time_us", value_or_null(p.time_us)},
                      {"algbw_gbps", value_or_null(p.algbw_gbps)},
                      {"busbw_gbps", value_or_null(p.busbw_gbps)},
                      {"wrong", p.wrong},
                      {"per_iter", p.per_iter}};
  if (p.requested_bytes && *p.requested_bytes != p.size_bytes) j["requested_bytes"] = *p.requested_bytes;
  if (p.wrong.is_null()) j["wrong_reason"] = p.wrong_reason;
  if (p.per_iter.is_null()) j["per_iter_reason"] = p.per_iter_reason;
  return j;
}

nlohmann::json sweep_series_json(const SweepSeriesFields& s, nlohmann::json points) {
  return {{"collective", s.collective},
          {"dtype", s.dtype},
          {"redop", value_or_null(s.redop)},
          {"root", value_or_null(s.root)},
          {"nranks", value_or_null(s.nranks)},
          {"busbw_factor", value_or_null(s.busbw_factor)},
          {"avg_busbw_gbps", value_or_null(s.avg_busbw_gbps)},
          {"points", std::move(points)}};
}

void set_sweeps(Document& doc, nlohmann::json entries) {
  doc.json()["sweeps"] = std::move(entries);
  doc.set_section("sweeps", SectionStatus::kOk);
}

}  // namespace fabcheck::report
