// The pure parts of nccl-tests' NCCL-only flags — the version rules of -R, -x, -G and mulsum
// (nccl-tests src/common.cu), the `-M` memory line (src/util.cu getMemString / writeMemInfo), and the mulsum
// data pattern that keeps Σ scalar·x exact in every dtype.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "fabcheck/comm/nccl_support.hpp"
#include "fabcheck/core/collective.hpp"
#include "fabcheck/probes/sweep.hpp"
#include "fabcheck/report/nccl_tests_memory.hpp"

using namespace fabcheck;
namespace nccl = fabcheck::comm::nccl;

namespace {

constexpr int kCuda13 = 13000;

std::string refusal(nccl::Tuning t, int nccl_code, int cudart = kCuda13) {
  return nccl::tuning_refusal(t, nccl_code, cudart);
}

// `t` runs from NCCL `first_ok` on and is refused with `text` by the older `too_old`.
void expect_needs(const nccl::Tuning& t, int first_ok, int too_old, const std::string& text) {
  EXPECT_EQ(refusal(t, first_ok), "");
  EXPECT_EQ(refusal(t, too_old), text);
}

}  // namespace

TEST(NcclTuning, VersionTextOfOldAndNewCodes) {
  EXPECT_EQ(nccl::version_text(22809), "2.28.9");
  EXPECT_EQ(nccl::version_text(21903), "2.19.3");
  EXPECT_EQ(nccl::version_text(2804), "2.8.4");  // before 2.9: major*1000 + minor*100 + patch
}

TEST(NcclTuning, NothingAskedNothingRefused) {
  EXPECT_EQ(refusal({}, 2804, 10000), "");
}

TEST(NcclTuning, RegistrationNeeds219AndSymmetricWindows227) {
  nccl::Tuning r1;
  r1.local_register = 1;
  expect_needs(r1, 21900, 21809,
               "-R/--local_register 1: ncclCommRegister needs NCCL >= 2.19; this NCCL is 2.18.9 (drop -R)");
  nccl::Tuning r2;
  r2.local_register = 2;
  expect_needs(
      r2, 22700, 22605,
      "-R/--local_register 2: symmetric windows (ncclCommWindowRegister) need NCCL >= 2.27; this NCCL is "
      "2.26.5 (use -R 1 or drop -R)");
}

TEST(NcclTuning, CtaPolicyNeeds227AndZero228) {
  nccl::Tuning x;
  x.cta_policy = 1;
  EXPECT_EQ(refusal(x, 22700), "");
  EXPECT_EQ(refusal(x, 22603).rfind("-x/--cta_policy: ncclConfig_t.CTAPolicy needs NCCL >= 2.27", 0), 0u);
  x.cta_policy = 2;
  expect_needs(
      x, 22800, 22703,
      "-x/--cta_policy 2: NCCL_CTA_POLICY_ZERO needs NCCL >= 2.28; this NCCL is 2.27.3 (use -x 0 or 1)");
  x.cta_policy = 0;  // 0 is a policy (NCCL_CTA_POLICY_DEFAULT), not "unset" (-1)
  EXPECT_NE(refusal(x, 22603), "");
}

TEST(NcclTuning, GraphsNeedNccl29AndCuda113) {
  nccl::Tuning g;
  g.cudagraph_launches = 100;
  EXPECT_EQ(refusal(g, 20900, 11030), "");
  EXPECT_EQ(refusal(g, 2804, 11030)
                .rfind("-G/--cudagraph: capturing NCCL calls in a CUDA graph needs NCCL >= 2.9", 0),
            0u);
  EXPECT_EQ(
      refusal(g, 21100, 11020),
      "-G/--cudagraph: CUDA graph capture of NCCL calls needs the CUDA runtime >= 11.3; this runtime is 11.2 "
      "(drop -G)");
}

TEST(NcclTuning, MulsumNeeds211) {
  nccl::Tuning m;
  m.mulsum = true;
  expect_needs(
      m, 21100, 21003,
      "-o/--op mulsum: ncclRedOpCreatePreMulSum needs NCCL >= 2.11; this NCCL is 2.10.3 (drop mulsum)");
}

TEST(NcclTuning, Fp8Needs224AndSm90) {
  nccl::Tuning f;
  f.fp8 = true;
  expect_needs(
      f, 22400, 22303,
      "-d/--datatype f8e4m3/f8e5m2: ncclFloat8e4m3 and ncclFloat8e5m2 need NCCL >= 2.24; this NCCL is "
      "2.23.3 (drop the fp8 types)");
  // nccl-tests' minCudaArch: 100·major + 10·minor; fp8 from 900 (Hopper) on
  EXPECT_EQ(nccl::fp8_arch_refusal(f, 900, 0, "h1"), "");
  EXPECT_EQ(nccl::fp8_arch_refusal(f, 1000, 3, "h1"), "");
  EXPECT_EQ(
      nccl::fp8_arch_refusal(f, 890, 5, "gpu7"),
      "-d/--datatype f8e4m3/f8e5m2: fp8 reductions need an sm90 (Hopper) or newer GPU; rank 5 on gpu7 has "
      "sm89 (nccl-tests leaves fp8 out below sm90; drop the fp8 types)");
  EXPECT_EQ(nccl::fp8_arch_refusal(nccl::Tuning{}, 700, 0, "h1"), "");  // no fp8 asked: nothing refused
}

TEST(NcclTuning, PremulScalarIsNcclTestsOneOnEvenTwoOnOdd) {
  EXPECT_EQ(nccl::premul_scalar(0), 1);
  EXPECT_EQ(nccl::premul_scalar(1), 2);
  EXPECT_EQ(nccl::premul_scalar(6), 1);
  EXPECT_EQ(nccl::premul_scalar(7), 2);
  EXPECT_EQ(nccl::redop_code(core::RedOp::kMulSum), -1);
  EXPECT_EQ(core::parse_redop("mulsum"), core::RedOp::kMulSum);
  EXPECT_EQ(core::name(core::RedOp::kMulSum), "mulsum");
  for (core::RedOp o : core::all_redops()) EXPECT_NE(o, core::RedOp::kMulSum);  // asked for by name only
}

// nccl-tests util.cu getMemString: powers of 1024, 2 decimals below 10, 1 below 100, else 0.
TEST(NcclTestsMemory, MemStringFollowsGetMemString) {
  EXPECT_EQ(report::mem_string(0), "0.00 B");
  EXPECT_EQ(report::mem_string(512), "512 B");
  EXPECT_EQ(report::mem_string(1536), "1.50 KB");
  EXPECT_EQ(report::mem_string(std::int64_t{20} << 20), "20.0 MB");
  EXPECT_EQ(report::mem_string(std::int64_t{512} << 20), "512 MB");
  EXPECT_EQ(report::mem_string((std::int64_t{3} << 30) / 2), "1.50 GB");
  EXPECT_EQ(report::mem_string(-(std::int64_t{2} << 20)), "-2.00 MB");  // free memory can grow meanwhile
}

TEST(NcclTestsMemory, LineIsWriteMemInfosLayout) {
  EXPECT_EQ(
      report::memory_usage_line(std::int64_t{600} << 20, std::int64_t{2} << 30, 0),
      "# GPU memory usage     : Initialization 600 MB | User-Allocated 2.00 GB | Collective 0.00 B | Total  "
      "2.59 GB");
}

// Σ_r scalar(r)·x_r must be exact in every partial sum: at most exact_integer_limit for the floating types.
TEST(MulsumPattern, WeightedSumStaysExactInEveryDtypeAndRankCount) {
  for (core::Dtype d : core::all_dtypes()) {
    const std::uint64_t limit = core::exact_integer_limit(d);
    if (limit == 0) continue;  // integers wrap exactly (modulo 2^bits), as NCCL's do
    for (int n : {2, 3, 4, 8, 9, 64, 100, 127, 128, 129, 1000, 1024, 4096, 5000}) {
      const auto pat = probes::pattern_for(d, core::RedOp::kMulSum, n);
      for (std::uint64_t i = 0; i < pat.period(); ++i) {
        std::uint64_t sum = 0;
        for (int r = 0; r < n; ++r)
          sum += static_cast<std::uint64_t>(nccl::premul_scalar(r)) * pat.value(r, i);
        ASSERT_LE(sum, limit) << core::name(d) << " nranks " << n << " index " << i;
      }
    }
  }
}

TEST(MulsumPattern, OtherOpsKeepTheirPatterns) {
  const auto sum = probes::pattern_for(core::Dtype::kHalf, core::RedOp::kSum, 100);
  const auto direct = probes::data_pattern(core::Dtype::kHalf, false, 100);
  EXPECT_EQ(sum.modulus, direct.modulus);
  EXPECT_EQ(sum.stride, direct.stride);
  EXPECT_TRUE(probes::pattern_for(core::Dtype::kFloat, core::RedOp::kProd, 4).prod);
  EXPECT_TRUE(probes::pattern_for(core::Dtype::kFloat, core::RedOp::kAvg, 4).avg);
  EXPECT_FALSE(probes::pattern_for(core::Dtype::kFloat, std::nullopt, 4).prod);
}
