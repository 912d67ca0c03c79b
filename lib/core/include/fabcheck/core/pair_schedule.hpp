#pragma once
/// @file Round-robin ("circle method") schedule of all host pairs (DESIGN §5, Pairs). Pure, no I/O.
#include <utility>
#include <vector>

namespace fabcheck::core {

/// One round: disjoint pairs (a, b) of host indices with a < b, measured at the same time.
using PairRound = std::vector<std::pair<int, int>>;

/// Circle-method schedule of every unordered pair of `n` hosts (indices 0…n−1).
/// Even n: n−1 rounds of n/2 disjoint pairs. Odd n: n rounds of (n−1)/2 pairs, each host sitting out (bye)
/// once. Construction: host n−1 (or the bye slot for odd n) stays fixed while the others rotate one place per
/// round; in round r the fixed slot meets r and the hosts r±k (mod m, m = slots − 1) meet each other. Every
/// unordered pair appears in exactly one round, so the wall time grows linearly with the number of hosts.
/// @param n number of hosts (n < 2 gives no rounds).
/// @return the rounds in order; pairs within a round sorted by their first index.
std::vector<PairRound> circle_schedule(int n);

/// The ring (each member with the next: (i, i+1 mod n), pairs stored as (min, max)) packed greedily, in ring
/// order, into rounds of disjoint pairs: n = 2 gives one pair; even n ≥ 4 two rounds; odd n ≥ 3 three rounds
/// (used by `latency --pattern ring`).
/// @param n number of members (n < 2 gives no rounds).
std::vector<PairRound> ring_rounds(int n);

}  // namespace fabcheck::core
