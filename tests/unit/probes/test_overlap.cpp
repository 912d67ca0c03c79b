// The overlap probe's compute kernel (deterministic, every unit does work) and its option checks (the
// collectives and sizes it accepts). The overlap arithmetic and the section's findings:
// tests/unit/analysis/test_overlap.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <string_view>

#include "fabcheck/core/error.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/probes/overlap.hpp"

namespace fabcheck {
namespace {

TEST(OverlapKernel, DeterministicAndBounded) {
  const double a = probes::overlap_compute_kernel(100, 1.0);
  EXPECT_DOUBLE_EQ(a, probes::overlap_compute_kernel(100, 1.0));
  EXPECT_TRUE(std::isfinite(a));
  EXPECT_NE(a, probes::overlap_compute_kernel(101, 1.0));                  // every unit does work
  EXPECT_DOUBLE_EQ(probes::overlap_compute_kernel(0, 1.0), 1.0 * 8 + 28);  // seeds 1..8 untouched
}

TEST(OverlapOptions, DefaultsAndValidation) {
  const auto o = model::overlap_option_table().make(nlohmann::json::object(),
                                                    [](std::string_view k) { return std::string(k); });
  ASSERT_EQ(o.collectives.size(), 3u);
  EXPECT_EQ(o.sizes_bytes.front(), 1u << 20);
  EXPECT_EQ(o.sizes_bytes.back(), 64u << 20);
  EXPECT_NO_THROW(probes::validate(o));
  auto bad = o;
  bad.collectives = {core::Collective::kBroadcast};
  try {
    probes::validate(bad);
    FAIL() << "broadcast accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--coll"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("broadcast"), std::string::npos);
  }
  bad = o;
  bad.sizes_bytes = {16ull << 30};
  EXPECT_THROW(probes::validate(bad), UsageError);
}

}  // namespace
}  // namespace fabcheck
