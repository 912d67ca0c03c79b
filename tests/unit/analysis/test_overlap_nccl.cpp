// The overlap probe's nccl backend, its pure parts (issue 23): --backend, the GPU kernel's calibration on a
// simulated device, compute_slowdown from device times, the nccl JSON fields, finding and console text.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "fabcheck/core/error.hpp"
#include "fabcheck/core/overlap_math.hpp"
#include "fabcheck/model/option_tables.hpp"
#include "fabcheck/probes/overlap.hpp"
#include "fabcheck/report/overlap.hpp"

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

core::Summary at(double p50) {
  core::Summary s;
  s.samples = 10;
  s.min = s.p50 = s.p90 = s.p99 = s.max = s.mean = p50;
  return s;
}

/// A nccl point: host-timed t_comm/t_compute/t_both, the kernel's device time alone and beside NCCL.
model::OverlapPoint gpu_point(std::uint64_t size, double comm, double compute, double both,
                              double device_alone, double device_during) {
  model::OverlapPoint p;
  p.coll = core::Collective::kAllReduce;
  p.size_bytes = size;
  p.t_comm = at(comm);
  p.t_compute = at(compute);
  p.t_both = at(both);
  p.t_compute_device = at(device_alone);
  p.compute_during = at(device_during);
  p.overlap = *core::overlap_fraction(comm, compute, both);
  p.have_overlap = true;
  return p;
}

model::OverlapResult gpu_result(std::vector<model::OverlapPoint> pts) {
  model::OverlapResult r;
  r.nranks = 1;
  r.hosts = {"g0"};
  r.backend = "nccl";
  r.library_version = "NCCL 2.28.3";
  r.device = "[0000:1b:00] NVIDIA H200";
  r.options.collectives = {core::Collective::kAllReduce};
  r.options.backend = "nccl";
  r.points = std::move(pts);
  return r;
}

TEST(OverlapNcclReport, SlowdownFromDeviceTimesAndFields) {
  // Host-timed compute 1010 us (launch and sync included), the kernel 1000 us alone and 1300 us beside NCCL.
  const auto p = gpu_point(64 << 20, 1000, 1010, 1400, 1000, 1300);
  EXPECT_DOUBLE_EQ(report::compute_slowdown(p), 1.3);  // device/device, not 1300/1010
  auto mpi = p;
  mpi.t_compute_device = {};  // mpi: the host-timed kernel is the base
  EXPECT_DOUBLE_EQ(report::compute_slowdown(mpi), 1300.0 / 1010.0);
  const auto j = report::overlap_json(gpu_result({p}));
  EXPECT_EQ(j["backend"], "nccl");
  EXPECT_EQ(j["library_version"], "NCCL 2.28.3");
  EXPECT_EQ(j["device"], "[0000:1b:00] NVIDIA H200");
  const auto& jp = j["points"][0];
  EXPECT_DOUBLE_EQ(jp["t_compute_device_us"]["p50"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(jp["compute_slowdown"].get<double>(), 1.3);
  EXPECT_NEAR(jp["overlap"].get<double>(), 1 - (1400.0 - 1010.0) / 1000.0, 1e-12);  // 0.61
  EXPECT_TRUE(jp["t_both_poll_us"].is_null());
  EXPECT_TRUE(jp["overlap_poll"].is_null());
  EXPECT_NE(j["definition"].get<std::string>().find("compute_slowdown"), std::string::npos);
  // mpi: no device fields.
  auto r_mpi = gpu_result({mpi});
  r_mpi.backend = "mpi";
  r_mpi.library_version.clear();
  r_mpi.device.clear();
  const auto jm = report::overlap_json(r_mpi);
  EXPECT_TRUE(jm["library_version"].is_null());
  EXPECT_TRUE(jm["points"][0]["t_compute_device_us"].is_null());
}

TEST(OverlapNcclReport, LowOverlapIsAGpuFindingWithTheSlowdown) {
  // 64M: overlap 1 − (1900 − 1000)/1000 = 0.10; the kernel 1.45x as long beside NCCL.
  const auto r = gpu_result({gpu_point(64 << 20, 1000, 1000, 1900, 990, 1435.5)});
  const auto f = report::overlap_findings(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "OVERLAP_GPU_LOW");
  EXPECT_EQ(f[0].severity, report::Severity::kWarn);
  EXPECT_NE(f[0].message.find("allreduce 64M"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("0.10"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("1.45x"), std::string::npos) << f[0].message;
  EXPECT_EQ(f[0].message.find("MPI"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].remedy.find("priority"), std::string::npos);
  EXPECT_DOUBLE_EQ(f[0].evidence["judged"][0]["compute_slowdown"].get<double>(), 1435.5 / 990);
  // Hidden: no finding.
  EXPECT_TRUE(
      report::overlap_findings(gpu_result({gpu_point(64 << 20, 1000, 1000, 1050, 990, 1000)})).empty());
}

TEST(OverlapNcclReport, ConsoleNamesNcclAndTheSlowdown) {
  const auto text = report::render_overlap(gpu_result({gpu_point(8 << 20, 200, 210, 260, 200, 230)}));
  EXPECT_NE(text.find("nccl (NCCL 2.28.3, [0000:1b:00] NVIDIA H200)"), std::string::npos) << text;
  EXPECT_NE(text.find("no polled variant"), std::string::npos) << text;
  EXPECT_NE(text.find("slowdown = the GPU kernel's time"), std::string::npos) << text;
  EXPECT_NE(text.find("1.15"), std::string::npos) << text;  // 230 / 200
  EXPECT_EQ(text.find("MPI_Test"), std::string::npos) << text;
}

}  // namespace
}  // namespace fabcheck
