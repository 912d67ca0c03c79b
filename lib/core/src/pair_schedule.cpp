#include "fabcheck/core/pair_schedule.hpp"

#include <algorithm>

namespace fabcheck::core {

std::vector<PairRound> circle_schedule(int n) {
  std::vector<PairRound> rounds;
  if (n < 2) return rounds;
  // Slots: n for even n, n + 1 for odd n (slot n is the bye). Slot `fixed` stays put, m = slots − 1 rotate.
  const int slots = n % 2 == 0 ? n : n + 1;
  const int m = slots - 1;
  const int fixed = slots - 1;
  rounds.reserve(static_cast<std::size_t>(m));
  for (int r = 0; r < m; ++r) {
    PairRound round;
    round.reserve(static_cast<std::size_t>(slots / 2));
    auto add = [&](int a, int b) {
      if (a >= n || b >= n) return;  // one of them is the bye slot
      round.emplace_back(std::min(a, b), std::max(a, b));
    };
    add(r, fixed);
    for (int k = 1; k < slots / 2; ++k) add((r + k) % m, (r - k + m) % m);
    std::sort(round.begin(), round.end());
    rounds.push_back(std::move(round));
  }
  return rounds;
}

}  // namespace fabcheck::core
