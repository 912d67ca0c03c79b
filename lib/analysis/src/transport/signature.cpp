// The MPI signature judgement (report/signature.hpp): thresholds and their sources are in the header.
#include "fabcheck/report/signature.hpp"

#include <fmt/format.h>

#include <cmath>

namespace fabcheck::report {

std::string_view name(SignatureClass c) {
  switch (c) {
    case SignatureClass::kRdmaLike:
      return "rdma_like";
    case SignatureClass::kSocketsLike:
      return "sockets_like";
    case SignatureClass::kInconclusive:
      return "inconclusive";
  }
  return "inconclusive";
}

namespace {

bool usable(const std::optional<double>& v) {
  return v && std::isfinite(*v) && *v > 0;
}

}  // namespace

SignatureJudgement classify_signature(const MpiSignature& s, std::optional<double> link_rate_gbit) {
  SignatureJudgement j;
  if (!s.from_host.empty() && s.from_host == s.to_host) {
    j.reason = "both ends on one host (shared memory, not the fabric)";
    return j;
  }

  // Latency vote.
  std::optional<SignatureClass> lat_vote;
  std::string lat_text;
  if (usable(s.p2p_8b_latency_us)) {
    const double l = *s.p2p_8b_latency_us;
    if (l <= kRdmaClassLatencyUs) {
      lat_vote = SignatureClass::kRdmaLike;
      lat_text = fmt::format("8 B latency {:.2f} us <= {} us (RDMA-class)", l, kRdmaClassLatencyUs);
    } else if (l >= kTcpClassLatencyUs) {
      lat_vote = SignatureClass::kSocketsLike;
      lat_text = fmt::format("8 B latency {:.2f} us >= {} us (TCP-class)", l, kTcpClassLatencyUs);
    } else {
      lat_text = fmt::format("8 B latency {:.2f} us between {} and {} us (no class)", l, kRdmaClassLatencyUs,
                             kTcpClassLatencyUs);
    }
  } else {
    lat_text = "8 B latency not measured";
  }

  // Bandwidth vote: only an RDMA-class share of a fast link counts (a low share has other causes).
  std::optional<SignatureClass> bw_vote;
  std::string bw_text;
  if (!usable(s.large_msg_bw_gbps)) {
    bw_text = "bandwidth not measured";
  } else if (!usable(link_rate_gbit)) {
    bw_text = fmt::format("bandwidth {:.2f} GB/s not judged: link rate unknown (no ACTIVE RDMA port)",
                          *s.large_msg_bw_gbps);
  } else {
    j.bw_link_fraction = *s.large_msg_bw_gbps * 8.0 / *link_rate_gbit;
    const double pct = 100.0 * *j.bw_link_fraction;
    if (*link_rate_gbit < kBwJudgeMinLinkGbit) {
      bw_text =
          fmt::format("bandwidth {:.2f} GB/s = {:.0f}% of {:g} Gbit/s not judged: link below {:g} Gbit/s",
                      *s.large_msg_bw_gbps, pct, *link_rate_gbit, kBwJudgeMinLinkGbit);
    } else if (*j.bw_link_fraction >= kRdmaClassBwFraction) {
      bw_vote = SignatureClass::kRdmaLike;
      bw_text = fmt::format("bandwidth {:.2f} GB/s = {:.0f}% of {:g} Gbit/s >= {:.0f}% (RDMA-class)",
                            *s.large_msg_bw_gbps, pct, *link_rate_gbit, 100 * kRdmaClassBwFraction);
    } else {
      bw_text = fmt::format(
          "bandwidth {:.2f} GB/s = {:.0f}% of {:g} Gbit/s (below {:.0f}%: not a class on its own)",
          *s.large_msg_bw_gbps, pct, *link_rate_gbit, 100 * kRdmaClassBwFraction);
    }
  }

  if (lat_vote && bw_vote && *lat_vote != *bw_vote) {
    j.cls = SignatureClass::kInconclusive;
    j.reason = lat_text + "; " + bw_text + ": the figures disagree";
  } else if (lat_vote) {
    j.cls = *lat_vote;
    j.reason = lat_text + "; " + bw_text;
  } else if (bw_vote) {
    j.cls = *bw_vote;
    j.reason = lat_text + "; " + bw_text;
  } else {
    j.reason = lat_text + "; " + bw_text;
  }
  return j;
}

}  // namespace fabcheck::report
