// Benchmark (not a test): outlier detection and host attribution on a synthetic 1024-host link matrix
// (1 047 552 directed bandwidth links, 523 776 latency pairs) with one slow host and one slow link.
// Prints the time of core::analyze_links (median of 5 runs) against the target of < 1 s.
// Usage: bench_pairs_attribution [hosts] [runs]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <random>
#include <vector>

#include "fabcheck/core/link_outliers.hpp"

int main(int argc, char** argv) {
  using namespace fabcheck::core;
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  if (n < 3 || runs < 1) {
    fmt::print(stderr, "usage: bench_pairs_attribution [hosts >= 3] [runs >= 1]\n");
    return 2;
  }
  std::mt19937_64 rng(42);
  std::normal_distribution<double> bw_noise(24.0, 0.3), lat_noise(3.0, 0.05);
  LinkMatrix bw(static_cast<std::size_t>(n), std::vector<std::optional<double>>(static_cast<std::size_t>(n)));
  LinkMatrix lat = bw;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) {
        bw[i][j] = bw_noise(rng);
        lat[i][j] = lat_noise(rng);
      }
  const int slow_host = n / 3, a = 7 % n, b = (n - 5) % n;
  for (int j = 0; j < n; ++j)
    if (j != slow_host) bw[slow_host][j] = bw[j][slow_host] = 6.0;
  bw[a][b] = 2.0;

  std::vector<double> secs, cpu;
  LinkAnalysis res;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    res = analyze_links(bw, lat, 25.0);
    cpu.push_back(static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(secs.begin(), secs.end());
  std::sort(cpu.begin(), cpu.end());
  const bool found_host = res.suspects.size() == 1 && res.suspects[0].host == slow_host;
  bool found_link = false;
  for (const auto& o : res.outliers) found_link |= o.from == a && o.to == b;
  fmt::print(
      "hosts {}  bw links {}  lat pairs {}  outliers {}  suspects {}  (slow host found: {}, slow link found: "
      "{})\n",
      n, res.bw.values, res.lat.values, res.outliers.size(), res.suspects.size(), found_host ? "yes" : "no",
      found_link ? "yes" : "no");
  fmt::print("analyze_links: median {:.3f} s, min {:.3f} s, max {:.3f} s over {} runs (target < 1 s: {})\n",
             secs[secs.size() / 2], secs.front(), secs.back(), runs,
             secs[secs.size() / 2] < 1.0 ? "met" : "MISSED");
  fmt::print("analyze_links: median CPU time {:.3f} s (wall time counts other load on a shared machine)\n",
             cpu[cpu.size() / 2]);
  return found_host && found_link ? 0 : 1;
}
