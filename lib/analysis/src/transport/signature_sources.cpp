// MPI signatures from probe results (report/signature_sources.hpp).
#include "fabcheck/report/signature_sources.hpp"

#include <algorithm>

namespace fabcheck::report {

std::vector<MpiSignature> signatures_from_pairs(const model::PairsResult& r) {
  std::vector<MpiSignature> out;
  if (r.rails.empty()) return out;
  const auto& rail = r.rails.front();
  const std::size_t n = r.hosts.size();
  auto cell = [n](const core::LinkMatrix& m, std::size_t a, std::size_t b) -> std::optional<double> {
    if (m.size() != n || a >= m.size() || b >= m[a].size()) return std::nullopt;
    return m[a][b];
  };
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b) {
      MpiSignature s;
      s.from_host = r.hosts[a];
      s.to_host = r.hosts[b];
      s.source = "pairs";
      s.p2p_8b_latency_us = cell(rail.lat_p50_us, a, b);
      if (!s.p2p_8b_latency_us) s.p2p_8b_latency_us = cell(rail.lat_p50_us, b, a);
      const auto ab = cell(rail.bw_gbps, a, b), ba = cell(rail.bw_gbps, b, a);
      if (ab && ba)
        s.large_msg_bw_gbps = std::min(*ab, *ba);
      else
        s.large_msg_bw_gbps = ab ? ab : ba;
      if (s.p2p_8b_latency_us || s.large_msg_bw_gbps) out.push_back(std::move(s));
    }
  return out;
}

std::vector<MpiSignature> signatures_from_latency(const model::LatencyResult& r) {
  std::vector<MpiSignature> out;
  if (!r.fabric_crossed) return out;
  for (const auto& sec : r.sections) {
    if (sec.kind != "p2p" || sec.size_bytes != 8) continue;
    for (const auto& p : sec.per_pair) {
      if (p.a_host == p.b_host || p.summary.samples == 0) continue;
      MpiSignature s;
      s.from_host = p.a_host;
      s.to_host = p.b_host;
      s.source = "latency";
      s.p2p_8b_latency_us = p.summary.p50;
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace fabcheck::report
