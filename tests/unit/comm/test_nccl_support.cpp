// Unit tests of the NCCL backend's pure parts (built in every configuration, no GPU needed): the dtype/redop
// table against NCCL's enum values, the NCCL log-capture set-up, and the error lines.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "fabcheck/comm/nccl_support.hpp"

using namespace fabcheck;
using core::Dtype;
using core::RedOp;
namespace nccl = fabcheck::comm::nccl;

namespace {

nccl::EnvLookup env_of(std::map<std::string, std::string> m) {
  return [m](std::string_view name) -> std::optional<std::string> {
    auto it = m.find(std::string(name));
    if (it == m.end()) return std::nullopt;
    return it->second;
  };
}

std::map<std::string, std::string> as_map(const nccl::LogCapture& c) {
  return {c.set_env.begin(), c.set_env.end()};
}

}  // namespace

TEST(NcclMapping, DtypesMatchNcclEnumValues) {
  // nccl.h: ncclInt8 0, ncclUint8 1, ncclInt32 2, ncclUint32 3, ncclInt64 4, ncclUint64 5, ncclFloat16 6,
  // ncclFloat32 7, ncclFloat64 8, ncclBfloat16 9 (nccl_backend.cpp static_asserts the same against nccl.h).
  EXPECT_EQ(nccl::dtype_code(Dtype::kInt8), 0);
  EXPECT_EQ(nccl::dtype_code(Dtype::kUint8), 1);
  EXPECT_EQ(nccl::dtype_code(Dtype::kInt32), 2);
  EXPECT_EQ(nccl::dtype_code(Dtype::kUint32), 3);
  EXPECT_EQ(nccl::dtype_code(Dtype::kInt64), 4);
  EXPECT_EQ(nccl::dtype_code(Dtype::kUint64), 5);
  EXPECT_EQ(nccl::dtype_code(Dtype::kHalf), 6);
  EXPECT_EQ(nccl::dtype_code(Dtype::kFloat), 7);
  EXPECT_EQ(nccl::dtype_code(Dtype::kDouble), 8);
  EXPECT_EQ(nccl::dtype_code(Dtype::kBfloat16), 9);
  EXPECT_EQ(nccl::dtype_code(Dtype::kF8e4m3), 10);  // ncclFloat8e4m3, NCCL >= 2.24
  EXPECT_EQ(nccl::dtype_code(Dtype::kF8e5m2), 11);  // ncclFloat8e5m2
  // every dtype has a code, and no two share one
  std::map<int, int> seen;
  for (Dtype d : core::all_dtypes()) EXPECT_EQ(seen[nccl::dtype_code(d)]++, 0) << core::name(d);
  for (Dtype d : core::fp8_dtypes()) EXPECT_EQ(seen[nccl::dtype_code(d)]++, 0) << core::name(d);
}

TEST(NcclMapping, RedopsMatchNcclEnumValuesMaxBeforeMin) {
  EXPECT_EQ(nccl::redop_code(RedOp::kSum), 0);
  EXPECT_EQ(nccl::redop_code(RedOp::kProd), 1);
  EXPECT_EQ(nccl::redop_code(RedOp::kMax), 2);
  EXPECT_EQ(nccl::redop_code(RedOp::kMin), 3);
  EXPECT_EQ(nccl::result_name(2), "ncclSystemError");
  EXPECT_EQ(nccl::result_name(6), "ncclRemoteError");
  EXPECT_EQ(nccl::result_name(42), "ncclResult(42)");
}

TEST(NcclLogCapture, DefaultSetsInfoSubsysAndPerRankFile) {
  const auto c = nccl::plan_log_capture(env_of({}), "/scratch/tmp/", "gpu07.cluster.local", 4242);
  ASSERT_EQ(c.set_env.size(), 3u);
  EXPECT_EQ(c.set_env[0].first, "NCCL_DEBUG");  // order: the level first, the file last
  const auto m = as_map(c);
  EXPECT_EQ(m.at("NCCL_DEBUG"), "INFO");
  EXPECT_EQ(m.at("NCCL_DEBUG_SUBSYS"), "INIT,NET,GRAPH,ENV,BOOTSTRAP");
  EXPECT_EQ(m.at("NCCL_DEBUG_FILE"), "/scratch/tmp/fabcheck-nccl.%h.%p.log");
  EXPECT_EQ(c.pattern, "/scratch/tmp/fabcheck-nccl.%h.%p.log");
  EXPECT_EQ(c.path, "/scratch/tmp/fabcheck-nccl.gpu07.4242.log");  // host cut at '.' as NCCL does
  EXPECT_FALSE(c.user_file);
  EXPECT_TRUE(c.note.empty());
  EXPECT_EQ(nccl::plan_log_capture(env_of({}), "", "h", 1).path, "/tmp/fabcheck-nccl.h.1.log");
}

TEST(NcclLogCapture, UserFileIsReadAndNothingIsChanged) {
  const auto c = nccl::plan_log_capture(
      env_of({{"NCCL_DEBUG", "info"}, {"NCCL_DEBUG_FILE", "/logs/nccl.%h.%p.%%.%x"}}), "/tmp", "n1", 77);
  EXPECT_TRUE(c.user_file);
  EXPECT_TRUE(c.set_env.empty());
  EXPECT_EQ(c.path, "/logs/nccl.n1.77.%.%x");  // %% → %, unknown %x kept, as ncclDebugInit
  EXPECT_TRUE(c.note.empty());
  const auto warn =
      nccl::plan_log_capture(env_of({{"NCCL_DEBUG", "WARN"}, {"NCCL_DEBUG_FILE", "/l/x"}}), "/tmp", "n1", 77);
  EXPECT_TRUE(warn.set_env.empty());
  EXPECT_NE(warn.note.find("NCCL_DEBUG is \"WARN\""), std::string::npos) << warn.note;
  const auto unset = nccl::plan_log_capture(env_of({{"NCCL_DEBUG_FILE", "/l/x"}}), "/tmp", "n1", 77);
  EXPECT_NE(unset.note.find("NCCL_DEBUG is unset"), std::string::npos) << unset.note;
  // an empty NCCL_DEBUG_FILE counts as unset
  EXPECT_FALSE(nccl::plan_log_capture(env_of({{"NCCL_DEBUG_FILE", ""}}), "/tmp", "n1", 77).user_file);
}

TEST(NcclLogCapture, UserLevelAndSubsystemsAreRespected) {
  auto m = as_map(nccl::plan_log_capture(env_of({{"NCCL_DEBUG", "TRACE"}}), "/tmp", "h", 1));
  EXPECT_EQ(m.at("NCCL_DEBUG"), "TRACE");  // more verbose than INFO: kept
  m = as_map(nccl::plan_log_capture(env_of({{"NCCL_DEBUG", "WARN"}}), "/tmp", "h", 1));
  EXPECT_EQ(m.at("NCCL_DEBUG"), "INFO");  // it goes to our file, not the console
  m = as_map(nccl::plan_log_capture(env_of({{"NCCL_DEBUG_SUBSYS", "COLL,net"}}), "/tmp", "h", 1));
  EXPECT_EQ(m.at("NCCL_DEBUG_SUBSYS"), "COLL,net,INIT,GRAPH,ENV,BOOTSTRAP");  // extended, case-insensitive
  m = as_map(nccl::plan_log_capture(env_of({{"NCCL_DEBUG_SUBSYS", "ALL"}}), "/tmp", "h", 1));
  EXPECT_EQ(m.at("NCCL_DEBUG_SUBSYS"), "ALL");
  m = as_map(nccl::plan_log_capture(env_of({{"NCCL_DEBUG_SUBSYS", "^COLL"}}), "/tmp", "h", 1));
  EXPECT_EQ(m.at("NCCL_DEBUG_SUBSYS"), "^COLL");
}

TEST(NcclLogCapture, HostnameAndPatternExpansionFollowNccl) {
  EXPECT_EQ(nccl::log_hostname("node%1/a.example.org"), "node-1-a");
  EXPECT_EQ(nccl::expand_debug_file("/d/%h-%p.log", "a.b", 12), "/d/a-12.log");
  EXPECT_EQ(nccl::expand_debug_file("/d/x%", "a", 1), "/d/x%");  // a trailing % stays
}

TEST(NcclErrors, OneLineNamingHostRankGpuAndCall) {
  const auto m =
      nccl::format_call_error("gpu07", 3, 1, "ncclAllReduce", "unhandled system error [ncclSystemError]",
                              "\nNET/IB : Got completion with error 12\n");
  EXPECT_EQ(m,
            "nccl backend: rank 3 (host gpu07, GPU 1): ncclAllReduce failed: unhandled system error "
            "[ncclSystemError]: NET/IB : Got completion with error 12");
  EXPECT_EQ(m.find('\n'), std::string::npos);
  EXPECT_EQ(nccl::format_call_error("h", 0, -1, "cudaSetDevice", "invalid device ordinal"),
            "nccl backend: rank 0 (host h): cudaSetDevice failed: invalid device ordinal");
  const auto nd = nccl::no_device_message(
      2, 2, 0, "ci1", "cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version");
  EXPECT_EQ(
      nd,
      "--backend nccl: no usable CUDA device on 2 of 2 ranks (first: rank 0 on host ci1: cudaGetDeviceCount: "
      "CUDA driver version is insufficient for CUDA runtime version); run on GPU nodes with one rank per "
      "GPU, or use --backend mpi");
}
