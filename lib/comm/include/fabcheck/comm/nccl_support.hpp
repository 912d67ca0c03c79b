#pragma once
/// @file Pure parts of the NCCL backend (no CUDA or NCCL types; built and unit-tested in every
/// configuration): the dtype/redop → NCCL enum table, the NCCL debug-log capture set-up (environment
/// decisions and file names), and the one-line error messages. nccl_backend.cpp checks the tables against
/// nccl.h at compile time (static_assert), so a mismatch cannot build.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/enum_table.hpp"

namespace fabcheck::comm::nccl {

/// ncclDataType_t value of a dtype (nccl.h since 2.10: ncclInt8 0, ncclUint8 1, ncclInt32 2, ncclUint32 3,
/// ncclInt64 4, ncclUint64 5, ncclFloat16 6, ncclFloat32 7, ncclFloat64 8, ncclBfloat16 9; since 2.24
/// ncclFloat8e4m3 10, ncclFloat8e5m2 11).
constexpr int dtype_code(core::Dtype d) {
  // In Dtype order (core::enum_lookup): half is 6, float 7.
  constexpr std::array<int, 12> kCodes = {0, 1, 2, 3, 4, 5, 7, 8, 6, 9, 10, 11};
  return core::enum_lookup(kCodes, d, -1);
}

/// ncclRedOp_t value of a redop (nccl.h: ncclSum 0, ncclProd 1, ncclMax 2, ncclMin 3 — max before min —,
/// ncclAvg 4 from NCCL 2.10); −1 for mulsum, which has no fixed code (ncclRedOpCreatePreMulSum makes one per
/// communicator).
constexpr int redop_code(core::RedOp o) {
  // In RedOp order (core::enum_lookup): min before max here.
  constexpr std::array<int, 6> kCodes = {0, 1, 3, 2, 4, -1};
  return core::enum_lookup(kCodes, o, -1);
}

/// The scalar this rank multiplies its input by under `-o mulsum` (ncclRedOpCreatePreMulSum with
/// ncclScalarHostImmediate): 1 on even ranks, 2 on odd ones, as nccl-tests' ncclVerifiablePremulScalar
/// (verifiable/verifiable.h), so the expected result of the data check is Σ_r scalar(r)·x_r.
constexpr int premul_scalar(int rank) {
  return rank % 2 == 0 ? 1 : 2;
}

/// Name of an ncclResult_t value ("ncclSystemError"); "ncclResult(<n>)" when unknown.
std::string result_name(int result);

/// The subsystems fabcheck asks NCCL to log: what the transport verdict reads (DESIGN §5).
inline constexpr std::string_view kDebugSubsys = "INIT,NET,GRAPH,ENV,BOOTSTRAP";
/// File name pattern of fabcheck's own per-rank NCCL logs (NCCL expands %h and %p).
inline constexpr std::string_view kDebugFileName = "fabcheck-nccl.%h.%p.log";

/// Reads one environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

/// How this process captures NCCL's own log (decided before the communicator is created).
struct LogCapture {
  std::vector<std::pair<std::string, std::string>> set_env;  ///< variables to set, in order (setenv)
  std::string pattern;     ///< NCCL_DEBUG_FILE in effect ("" = NCCL writes to stdout: no file to read)
  std::string path;        ///< this process's file: `pattern` expanded as NCCL does
  bool user_file = false;  ///< the user set NCCL_DEBUG_FILE: fabcheck changed nothing and reads that file
  std::string note;        ///< why the log may hold little or nothing ("" when nothing to say)
};

/// The host name as NCCL prints and expands it: cut at the first '.', '%' and '/' replaced by '-'.
std::string log_hostname(std::string_view hostname);

/// Expands an NCCL_DEBUG_FILE pattern as NCCL's ncclDebugInit does: %h → host (log_hostname), %p → pid,
/// %% → %, any other %x stays as it is.
std::string expand_debug_file(std::string_view pattern, std::string_view hostname, long long pid);

/// Decides the log capture of one process. Rules:
/// - the user set NCCL_DEBUG_FILE (non-empty): change nothing, read that file (expanded); `note` says so when
///   NCCL_DEBUG is not INFO or TRACE (NCCL then writes no INFO lines, or no file at all);
/// - otherwise set NCCL_DEBUG=INFO (TRACE, if the user set it, stays), NCCL_DEBUG_SUBSYS = kDebugSubsys (a
///   user list is extended with the missing ones; ALL or a ^exclusion list is kept as it is), and
///   NCCL_DEBUG_FILE = `dir`/kDebugFileName, read back at `path`.
/// Pure: reads the environment only through `env`.
LogCapture plan_log_capture(const EnvLookup& env, std::string_view dir, std::string_view hostname,
                            long long pid);

/// One line for a failed CUDA or NCCL call: "nccl backend: rank R (host H, GPU D): CALL failed: ERROR
/// [: DETAIL]". Line breaks in `error`/`detail` become spaces; empty detail is left out; device < 0 is left
/// out.
std::string format_call_error(std::string_view host, int rank, int device, std::string_view call,
                              std::string_view error, std::string_view detail = {});

/// The one line of `--backend nccl` when some rank has no usable GPU (exit 2):
/// "--backend nccl: no usable CUDA device on K of N ranks (first: rank R on host H: REASON); run on GPU
/// nodes with one rank per GPU, or use --backend mpi".
std::string no_device_message(int failing_ranks, int nranks, int first_rank, std::string_view first_host,
                              std::string_view reason);

/// What a sweep asks of the nccl backend beyond plain collectives: nccl-tests' NCCL-only flags (nccl-tests
/// src/common.cu).
struct Tuning {
  int local_register = 0;  ///< -R: 0 none, 1 ncclCommRegister, 2 symmetric window (ncclCommWindowRegister)
  int cta_policy = -1;     ///< -x: ncclConfig_t.CTAPolicy 0/1/2; −1 = not set
  int cudagraph_launches = 0;  ///< -G: launches of the captured graph (0 = no graph)
  bool mulsum = false;         ///< -o mulsum is among the ops (ncclRedOpCreatePreMulSum)
  bool stream_null = false;    ///< -y: calls on the NULL stream instead of one non-blocking stream
  bool fp8 = false;            ///< -d names f8e4m3 or f8e5m2 (ncclFloat8e4m3 / ncclFloat8e5m2)
};

/// "2.28.9" from an NCCL version code (ncclGetVersion / NCCL_VERSION_CODE: major·10000 + minor·100 + patch
/// from 2.9 on, major·1000 + minor·100 + patch before).
std::string version_text(int code);

/// Why this NCCL (runtime version code) and CUDA runtime (cudaRuntimeGetVersion, e.g. 13000) cannot do what
/// `t` asks, as one line naming the flag and the fix; "" when they can. The version rules are nccl-tests'
/// (src/common.cu): -R 1 needs NCCL >= 2.19 (ncclCommRegister), -R 2 >= 2.27 (symmetric windows), -x >= 2.27
/// (-x 2, NCCL_CTA_POLICY_ZERO, >= 2.28), -G NCCL >= 2.9 and CUDA >= 11.3, mulsum NCCL >= 2.11, the fp8
/// types NCCL >= 2.24 (src/common.cu: `NCCL_VERSION_CODE >= NCCL_VERSION(2,24,0)` adds them). nccl-tests
/// prints a note and runs without the flag; fabcheck refuses instead (exit 2), so a table never claims a
/// setting it did not run with.
std::string tuning_refusal(const Tuning& t, int nccl_version_code, int cudart_version);

/// Why this rank's GPU cannot run the fp8 types, as one line; "" when it can or `t` asks for none.
/// `cuda_arch` = 100·major + 10·minor of the compute capability (nccl-tests' minCudaArch). nccl-tests filters
/// f8e4m3/f8e5m2 out below sm90 (src/common.cu: `if (minCudaArch < 900)`, "Filter out fp8 on pre-Hopper
/// hardware"); fabcheck refuses a `-d` that names them instead, so a table never lacks a type it was asked
/// for.
std::string fp8_arch_refusal(const Tuning& t, int cuda_arch, int rank, const std::string& host);

}  // namespace fabcheck::comm::nccl
