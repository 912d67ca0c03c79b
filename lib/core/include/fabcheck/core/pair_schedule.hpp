#pragma once
/// @file Schedules of disjoint pairs (DESIGN §5 "Pairs"): every round holds pairs that share no member, so
/// the pairs of one round can measure at the same time without contending for an endpoint.
#include <utility>
#include <vector>

namespace fabcheck::core {

/// One round: disjoint unordered pairs (first < second) of member indices 0..n−1.
using PairRound = std::vector<std::pair<int, int>>;

/// All n(n−1)/2 pairs by the circle method: n−1 rounds of n/2 disjoint pairs for even n; for odd n, n rounds
/// of (n−1)/2 pairs (each member sits out once: the bye). n < 2 gives no rounds.
std::vector<PairRound> circle_rounds(int n);

/// The ring (each member with the next: (i, i+1 mod n)) packed greedily into rounds of disjoint pairs, in
/// ring order: n = 2 gives one pair; even n ≥ 4 two rounds; odd n ≥ 3 three rounds. n < 2 gives no rounds.
std::vector<PairRound> ring_rounds(int n);

}  // namespace fabcheck::core
