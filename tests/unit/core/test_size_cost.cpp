#include "fabcheck/core/size_cost.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using fabcheck::core::predict_size_cost_s;

TEST(SizeCost, ExactForALatencyPlusBandwidthCost) {
  // t(B) = 2 ms + B / 1 GB/s: from the cheapest size (2 ms) and 1 MiB at 3.048576 ms, 4 MiB is predicted.
  const auto t = [](double b) { return 2e-3 + b / 1e9; };
  EXPECT_NEAR(predict_size_cost_s(t(1 << 20), t(0), 1 << 20, 4u << 20), t(4u << 20), 1e-12);
  // Where bandwidth dominates, four times the bytes is about four times the time.
  EXPECT_NEAR(predict_size_cost_s(1.0, 1e-3, 64u << 20, 256u << 20), 1e-3 + 4 * (1.0 - 1e-3), 1e-12);
}

TEST(SizeCost, ASizeOfNoBytesPredictsItsOwnCostNotAByteRatio) {
  // The clean 12-host fabric: allgather's 32 B rounds to 0 B over 12 ranks; the 384 B after it was predicted
  // at the byte ratio to "1 B" (35 s, the series stopped). Now: what the size before it cost.
  EXPECT_DOUBLE_EQ(predict_size_cost_s(0.02, 0.02, 0, 384), 0.02);
  // latency-bound small sizes: the next one costs the same, never less than the previous one
  EXPECT_DOUBLE_EQ(predict_size_cost_s(0.010, 0.010, 96, 384), 0.010);
  EXPECT_DOUBLE_EQ(predict_size_cost_s(0.010, 0.012, 96, 384), 0.010);  // a min above prev: prev is the min
}

TEST(SizeCost, BadInputsPredictNothing) {
  EXPECT_EQ(predict_size_cost_s(-1, 0, 8, 32), 0);
  EXPECT_EQ(predict_size_cost_s(std::numeric_limits<double>::quiet_NaN(), 0, 8, 32), 0);
  EXPECT_EQ(predict_size_cost_s(1, std::numeric_limits<double>::infinity(), 8, 32), 0);
}
