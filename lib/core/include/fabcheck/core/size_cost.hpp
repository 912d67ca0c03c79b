#pragma once
/// @file What a sweep's next size will cost, from the sizes measured before it (the time-limit rule of a
/// sweep inside a plan). Pure, no I/O.
#include <cstdint>

namespace fabcheck::core {

/// The time one size of a sweep series will take, predicted from what the series' sizes so far took (the
/// sweep's time-limit rule, DESIGN §5 Budgets): the latency-bandwidth model t(B) = α + β·B, α = the cheapest
/// size measured so far in the series (`min_cost_s`: its small sizes move next to no data), β = what the
/// previous size cost beyond α per byte, max(0, prev_cost_s − α) / prev_bytes. At least prev_cost_s: a larger
/// size never costs less. Exact for a cost of the form α + β·B (a ring: latency term + size / bandwidth);
/// where the previous size still cost α alone it predicts α, and the size after it is predicted from what
/// that one cost. A previous size of 0 B (allgather of 32 B over 12 ranks moves nothing) predicts
/// prev_cost_s: the byte ratio to it, 384 B over "1 B", once predicted 35 s for a size that took
/// milliseconds.
/// @return seconds; 0 when an input is negative or not finite.
double predict_size_cost_s(double prev_cost_s, double min_cost_s, std::uint64_t prev_bytes,
                           std::uint64_t bytes);

}  // namespace fabcheck::core
