// The overlap section of the nccl backend: compute_slowdown from device times, the nccl JSON fields, the
// finding and the console text. The probe's --backend check and the GPU kernel's calibration:
// tests/unit/probes/test_overlap_nccl.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "../support/overlap_point.hpp"
#include "../support/text.hpp"
#include "fabcheck/core/overlap_math.hpp"
#include "fabcheck/report/overlap.hpp"

namespace fabcheck {
namespace {

/// A nccl point: host-timed t_comm/t_compute/t_both, the kernel's device time alone and beside NCCL.
model::OverlapPoint gpu_point(std::uint64_t size, double comm, double compute, double both,
                              double device_alone, double device_during) {
  auto p = testing_fixtures::overlap_point(core::Collective::kAllReduce, size, comm, compute, both, 0);
  p.t_compute_device = testing_fixtures::flat_summary(device_alone, 10);
  p.compute_during = testing_fixtures::flat_summary(device_during, 10);
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
  testing_fixtures::expect_contains(f[0].message, {"allreduce 64M", "0.10", "1.45x"});
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
