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

std::vector<PairRound> ring_rounds(int n) {
  std::vector<PairRound> rounds;
  if (n < 2) return rounds;
  const int edges = n == 2 ? 1 : n;
  std::vector<std::vector<bool>> busy;
  for (int i = 0; i < edges; ++i) {
    const int a = i, b = (i + 1) % n;
    std::size_t r = 0;
    for (; r < rounds.size(); ++r) {
      if (!busy[r][static_cast<std::size_t>(a)] && !busy[r][static_cast<std::size_t>(b)]) break;
    }
    if (r == rounds.size()) {
      rounds.emplace_back();
      busy.emplace_back(static_cast<std::size_t>(n), false);
    }
    rounds[r].emplace_back(std::min(a, b), std::max(a, b));
    busy[r][static_cast<std::size_t>(a)] = busy[r][static_cast<std::size_t>(b)] = true;
  }
  return rounds;
}

}  // namespace fabcheck::core
