#include <gtest/gtest.h>

#include <vector>

#include "fabcheck/core/incast_math.hpp"

using namespace fabcheck::core;

TEST(IncastMath, GoodputUsesSlowestSender) {
  // 4 senders x 1 MB; slowest finishes at 8000 us -> 4e6 B / 8e-3 s = 5e8 B/s = 0.5 GB/s.
  std::vector<double> t = {2000, 4000, 6000, 8000};
  EXPECT_DOUBLE_EQ(incast_goodput_gbps(1000000, t), 0.5);
  EXPECT_EQ(incast_goodput_gbps(1000000, std::vector<double>{}), 0.0);
}

TEST(IncastMath, JainByHand) {
  // x = 1/t: t = {1, 2} -> x = {1, 0.5}; (1.5)^2 / (2 * 1.25) = 2.25/2.5 = 0.9.
  EXPECT_NEAR(*jain_fairness(std::vector<double>{1, 2}), 0.9, 1e-12);
  // equal shares -> 1
  EXPECT_NEAR(*jain_fairness(std::vector<double>{5, 5, 5}), 1.0, 1e-12);
  // one sender takes everything (others infinitely slow ~ 1e12): -> 1/k
  EXPECT_NEAR(*jain_fairness(std::vector<double>{1, 1e12, 1e12, 1e12}), 0.25, 1e-9);
  EXPECT_FALSE(jain_fairness(std::vector<double>{1, 0}).has_value());
}

TEST(IncastMath, EfficiencyAndImpact) {
  EXPECT_DOUBLE_EQ(*incast_efficiency(0.3, 1.2), 0.25);
  EXPECT_FALSE(incast_efficiency(0.3, 0.0).has_value());
  // GPCNeT: congested/isolated: 790 us vs 17 us -> 46.47...
  EXPECT_NEAR(*congestion_impact(790, 17), 46.470588235, 1e-6);
  EXPECT_FALSE(congestion_impact(1, 0).has_value());
}

TEST(IncastMath, OverlapShare) {
  std::vector<Window> w = {{100, 200}, {300, 400}};
  std::vector<double> s = {50, 100, 150, 199.9, 200, 350, 450, 399};
  // inside: 100,150,199.9,350,399 -> 5 of 8 (200 is outside: half-open)
  EXPECT_DOUBLE_EQ(overlap_share(s, w), 5.0 / 8.0);
  EXPECT_EQ(overlap_share(std::vector<double>{}, w), 0.0);
}
