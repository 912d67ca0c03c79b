// The overlap probe's nccl backend, its pure parts: --backend (default, config key, refusal) and the GPU
// kernel's calibration on a simulated device. The section, finding and console text:
// tests/unit/analysis/test_overlap_nccl.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fabcheck/core/error.hpp"
#include "fabcheck/core/overlap_math.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/probes/overlap.hpp"

namespace fabcheck {
namespace {

model::OverlapOptions overlap_defaults() {
  return model::overlap_option_table().make(nlohmann::json::object(),
                                            [](std::string_view k) { return std::string(k); });
}

TEST(OverlapNcclOptions, BackendDefaultsToMpiAndIsChecked) {
  auto o = overlap_defaults();
  EXPECT_EQ(o.backend, "mpi");
  o.backend = "nccl";
  EXPECT_NO_THROW(probes::validate(o));
  o.backend = "gloo";
  try {
    probes::validate(o);
    FAIL() << "gloo accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--backend"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("gloo"), std::string::npos) << e.what();
  }
  const auto from_config = model::overlap_option_table().make(
      nlohmann::json{{"backend", "nccl"}}, [](std::string_view k) { return std::string(k); });
  EXPECT_EQ(from_config.backend, "nccl");
}

/// A device whose kernel takes `launch_us` + `us_per_unit` × units (cudaEvent time), recording the launches.
class FakeDevice final : public comm::DeviceCompute {
 public:
  FakeDevice(double us_per_unit, double launch_us) : per_unit_(us_per_unit), launch_(launch_us) {}
  void launch(std::uint64_t units) override { launched.push_back(units); }
  void synchronize() override { synced = launched.size(); }
  double last_kernel_us() override {
    EXPECT_EQ(synced, launched.size()) << "read before synchronize()";
    return launch_ + per_unit_ * static_cast<double>(launched.back());
  }
  std::string description() const override { return "fake"; }
  std::vector<std::uint64_t> launched;
  std::size_t synced = 0;

 private:
  double per_unit_;
  double launch_;
};

TEST(OverlapNcclCalibration, DoublesToTwoMillisecondsThenMedianOfThree) {
  FakeDevice gpu(0.5, 4.0);  // 0.5 us per unit, 4 us fixed per launch
  const double per_unit = probes::calibrate_us_per_unit(gpu);
  // 16, 32, … doubled until 4 + 0.5·u ≥ 2000: u = 4096 (2052 us; 2048 units give 1028 us).
  ASSERT_GE(gpu.launched.size(), 5u);
  EXPECT_EQ(gpu.launched.front(), 1u);  // the untimed JIT launch
  EXPECT_EQ(gpu.launched[1], 16u);
  EXPECT_EQ(gpu.launched.back(), 4096u);
  EXPECT_EQ(gpu.launched[gpu.launched.size() - 2], 4096u);
  EXPECT_EQ(gpu.launched[gpu.launched.size() - 3], 4096u);
  EXPECT_NEAR(per_unit, (4.0 + 0.5 * 4096) / 4096, 1e-12);  // the launch cost amortized: 0.50098
  // Sized to a 1 ms collective: the kernel lasts ≈ 1 ms on this device.
  const auto units = core::compute_units_for(1000, per_unit);
  EXPECT_NEAR(4.0 + 0.5 * static_cast<double>(units), 1000, 5);
}

}  // namespace
}  // namespace fabcheck
