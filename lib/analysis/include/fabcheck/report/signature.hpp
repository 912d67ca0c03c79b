#pragma once
/// @file The transport "signature" of DESIGN §5: MPI point-to-point 8 B latency and large-message bandwidth
/// between two hosts, judged against what RDMA gives. The weakest of the three kinds of transport evidence
/// (NCCL log > inventory > signature): it can only say "rdma-like" or "sockets-like", never which network.
///
/// Thresholds and where they come from:
/// - 8 B half round trip. MPI over IB verbs / RoCE measures ~1–3 µs with osu_latency (the QLogic/InfiniPath
///   OFED user guide's sample osu_latency output shows 1.05 µs at 8 B; MVAPICH2/UCX on EDR..NDR report
///   ~1–2 µs, RoCE ~1.5–3 µs). MPI over kernel TCP sockets measures ~10–30 µs and more (two kernel stacks and
///   an interrupt each way; DESIGN §8 measured ~17 µs on this repository's veth fabric). So ≤ 5 µs is
///   rdma-like, ≥ 8 µs is sockets-like; between the two nothing is concluded (a tuned TCP path, or RDMA
///   through a loaded switch, can land there).
/// - Large-message bandwidth, only against a known link rate (the ACTIVE RDMA ports of both hosts) of at
/// least
///   100 Gbit/s: ≥ 70 % of it is rdma-like (osu_bw over RDMA reaches ~90 %+ of the data rate; on 25–100 GbE
///   one kernel TCP stream plateaus far below line rate unless the host is heavily tuned — ESnet fasterdata
///   "Linux host tuning" / "100G benchmarking"). A low fraction concludes nothing: a down-trained link,
///   congestion or a slow peer give the same figure over RDMA (pairs reports those).
/// - When latency and bandwidth point different ways the signature is inconclusive. A pair on one host
///   (shared memory) never counts.
#include <optional>
#include <string>
#include <string_view>

namespace fabcheck::report {

/// MPI point-to-point signature between two hosts (from the latency or pairs probe).
struct MpiSignature {
  std::string from_host;                    ///< one end
  std::string to_host;                      ///< other end
  std::optional<double> p2p_8b_latency_us;  ///< 8 B half round trip (p50), microseconds
  std::optional<double> large_msg_bw_gbps;  ///< large-message bandwidth, GB/s (1e9 B/s)
  std::string source;                       ///< probe that measured it: "pairs" | "latency" | "inspect"
};

/// 8 B MPI half-round-trip latency at or below which the path is RDMA-class (verbs/UCX: ~1–3 µs).
inline constexpr double kRdmaClassLatencyUs = 5.0;
/// 8 B MPI half-round-trip latency at or above which the path is TCP-class (kernel sockets: ~10–30 µs).
inline constexpr double kTcpClassLatencyUs = 8.0;
/// Share of the link rate at or above which large-message bandwidth is RDMA-class (osu_bw over RDMA: 90 %+).
inline constexpr double kRdmaClassBwFraction = 0.70;
/// Slowest link rate (Gbit/s) on which bandwidth is judged at all (below it one TCP stream can fill the
/// link).
inline constexpr double kBwJudgeMinLinkGbit = 100.0;

/// What a signature supports.
enum class SignatureClass {
  kRdmaLike,     ///< RDMA-class latency (and bandwidth not against it), or RDMA-class bandwidth alone
  kSocketsLike,  ///< TCP-class latency (and bandwidth not against it)
  kInconclusive  ///< no figure decides, the figures disagree, or both ends are one host
};

/// "rdma_like" | "sockets_like" | "inconclusive".
std::string_view name(SignatureClass c);

/// The judgement of one signature, with the reason in words (for the evidence line).
struct SignatureJudgement {
  SignatureClass cls = SignatureClass::kInconclusive;  ///< what the figures support
  std::optional<double> bw_link_fraction;              ///< large_msg_bw × 8 / link rate, when both known
  std::string
      reason;  ///< e.g. "8 B latency 17.2 us >= 8 us (TCP-class); bandwidth not judged: link rate unknown"
};

/// Judges one signature by the thresholds above. Pure; never throws.
/// @param link_rate_gbit the slower end's ACTIVE RDMA port rate in Gbit/s, nullopt when unknown (no RDMA
///        port, or not inspected): bandwidth is then reported but not judged.
SignatureJudgement classify_signature(const MpiSignature& s, std::optional<double> link_rate_gbit);

}  // namespace fabcheck::report
