// The pure rules of the nccl backend's nccl-tests flags: which NCCL and CUDA versions have them,
// unit-tested without NCCL (tests/unit/comm/test_nccl_tuning.cpp).
#include <fmt/format.h>

#include "fabcheck/comm/nccl_support.hpp"

namespace fabcheck::comm::nccl {

namespace {

/// NCCL_VERSION(X,Y,Z) of nccl.h for 2.9 and later.
constexpr int code(int major, int minor, int patch) {
  return major * 10000 + minor * 100 + patch;
}

}  // namespace

std::string version_text(int c) {
  if (c >= 10000) return fmt::format("{}.{}.{}", c / 10000, (c % 10000) / 100, c % 100);
  return fmt::format("{}.{}.{}", c / 1000, (c % 1000) / 100, c % 100);
}

std::string tuning_refusal(const Tuning& t, int nccl_version_code, int cudart_version) {
  const std::string have = fmt::format("this NCCL is {}", version_text(nccl_version_code));
  if (t.local_register == 1 && nccl_version_code < code(2, 19, 0)) {
    return fmt::format("-R/--local_register 1: ncclCommRegister needs NCCL >= 2.19; {} (drop -R)", have);
  }
  if (t.local_register == 2 && nccl_version_code < code(2, 27, 0)) {
    return fmt::format(
        "-R/--local_register 2: symmetric windows (ncclCommWindowRegister) need NCCL >= 2.27; {} (use -R 1 "
        "or drop -R)",
        have);
  }
  if (t.cta_policy >= 0 && nccl_version_code < code(2, 27, 0)) {
    return fmt::format("-x/--cta_policy: ncclConfig_t.CTAPolicy needs NCCL >= 2.27; {} (drop -x)", have);
  }
  if (t.cta_policy == 2 && nccl_version_code < code(2, 28, 0)) {
    return fmt::format("-x/--cta_policy 2: NCCL_CTA_POLICY_ZERO needs NCCL >= 2.28; {} (use -x 0 or 1)",
                       have);
  }
  if (t.cudagraph_launches > 0 && nccl_version_code < code(2, 9, 0)) {
    return fmt::format("-G/--cudagraph: capturing NCCL calls in a CUDA graph needs NCCL >= 2.9; {} (drop -G)",
                       have);
  }
  if (t.cudagraph_launches > 0 && cudart_version < 11030) {
    return fmt::format(
        "-G/--cudagraph: CUDA graph capture of NCCL calls needs the CUDA runtime >= 11.3; this runtime is "
        "{}.{} (drop -G)",
        cudart_version / 1000, (cudart_version % 1000) / 10);
  }
  if (t.mulsum && nccl_version_code < code(2, 11, 0)) {
    return fmt::format("-o/--op mulsum: ncclRedOpCreatePreMulSum needs NCCL >= 2.11; {} (drop mulsum)", have);
  }
  if (t.fp8 && nccl_version_code < code(2, 24, 0)) {
    return fmt::format(
        "-d/--datatype f8e4m3/f8e5m2: ncclFloat8e4m3 and ncclFloat8e5m2 need NCCL >= 2.24; {} (drop the fp8 "
        "types)",
        have);
  }
  return {};
}

std::string fp8_arch_refusal(const Tuning& t, int cuda_arch, int rank, const std::string& host) {
  if (!t.fp8 || cuda_arch >= 900) return {};
  return fmt::format(
      "-d/--datatype f8e4m3/f8e5m2: fp8 reductions need an sm90 (Hopper) or newer GPU; rank {} on {} has "
      "sm{} (nccl-tests leaves fp8 out below sm90; drop the fp8 types)",
      rank, host, cuda_arch / 10);
}

}  // namespace fabcheck::comm::nccl
