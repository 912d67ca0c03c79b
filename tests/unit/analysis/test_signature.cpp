// The MPI signature (DESIGN §5, report/signature.hpp): classification of synthetic figures against the
// documented thresholds, its place in the evidence order (NCCL log > inventory > signature), extraction from
// pairs and latency results, and the redraw of the transport section once the signature is known.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/signature.hpp"
#include "fabcheck/report/signature_sources.hpp"
#include "fabcheck/report/transport.hpp"
#include "transport_fixtures.hpp"

using namespace fabcheck;
using report::SignatureClass;

namespace {

report::MpiSignature sig(std::optional<double> lat_us, std::optional<double> bw_gbps, std::string a = "h1",
                         std::string b = "h2") {
  report::MpiSignature s;
  s.from_host = std::move(a);
  s.to_host = std::move(b);
  s.p2p_8b_latency_us = lat_us;
  s.large_msg_bw_gbps = bw_gbps;
  s.source = "pairs";
  return s;
}

SignatureClass cls(std::optional<double> lat, std::optional<double> bw, std::optional<double> link = {}) {
  return report::classify_signature(sig(lat, bw), link).cls;
}

using testing_fixtures::host_without_rdma;

report::HostRdmaEvidence ib_host(const std::string& h, double rate_gbit) {
  auto e = testing_fixtures::active_port_host(h, "InfiniBand");
  e.link_rate_gbit = rate_gbit;
  return e;
}

// The transport analysis of `hosts` with one signature, h1 to h2.
report::TransportResult analyze_h1_h2(std::vector<report::HostRdmaEvidence> hosts,
                                      std::optional<double> lat_us, std::optional<double> bw_gbps) {
  report::TransportInput in;
  in.hosts = std::move(hosts);
  in.signatures = {sig(lat_us, bw_gbps, "h1", "h2")};
  return report::analyze_transport(in);
}

bool has_evidence(const report::TransportResult& r, const std::string& src, const std::string& part) {
  for (const auto& e : r.evidence)
    if (e.source == src && e.message.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

// ---------------------------------------------------------------- classification of synthetic figures

TEST(SignatureClassify, LatencyThresholds) {
  EXPECT_EQ(cls(1.1, {}), SignatureClass::kRdmaLike);      // osu_latency 8 B over IB
  EXPECT_EQ(cls(2.8, {}), SignatureClass::kRdmaLike);      // RoCE
  EXPECT_EQ(cls(5.0, {}), SignatureClass::kRdmaLike);      // the bound itself
  EXPECT_EQ(cls(6.5, {}), SignatureClass::kInconclusive);  // between the classes
  EXPECT_EQ(cls(8.0, {}), SignatureClass::kSocketsLike);   // the bound itself
  EXPECT_EQ(cls(17.0, {}), SignatureClass::kSocketsLike);  // veth/TCP (DESIGN §8)
  EXPECT_EQ(cls(45.0, {}), SignatureClass::kSocketsLike);
}

TEST(SignatureClassify, NothingMeasuredOrGarbageIsInconclusive) {
  EXPECT_EQ(cls({}, {}), SignatureClass::kInconclusive);
  EXPECT_EQ(cls(0.0, {}), SignatureClass::kInconclusive);
  EXPECT_EQ(cls(std::nan(""), {}), SignatureClass::kInconclusive);
  EXPECT_EQ(cls(-3.0, {}), SignatureClass::kInconclusive);
}

TEST(SignatureClassify, BandwidthJudgedOnlyAgainstAFastKnownLink) {
  // 22 GB/s = 176 Gbit/s = 88 % of HDR 200: RDMA-class on its own.
  auto j = report::classify_signature(sig({}, 22.0), 200.0);
  EXPECT_EQ(j.cls, SignatureClass::kRdmaLike);
  ASSERT_TRUE(j.bw_link_fraction);
  EXPECT_NEAR(*j.bw_link_fraction, 0.88, 1e-9);
  // 70 % exactly of 100 Gbit/s (8.75 GB/s) is RDMA-class; just below is no class.
  EXPECT_EQ(cls({}, 8.75, 100.0), SignatureClass::kRdmaLike);
  EXPECT_EQ(cls({}, 8.7, 100.0), SignatureClass::kInconclusive);
  // Unknown link rate: reported, not judged.
  j = report::classify_signature(sig({}, 22.0), std::nullopt);
  EXPECT_EQ(j.cls, SignatureClass::kInconclusive);
  EXPECT_FALSE(j.bw_link_fraction);
  EXPECT_NE(j.reason.find("link rate unknown"), std::string::npos);
  // A slow link (one TCP stream can fill 25 GbE): not judged, though the fraction is reported.
  j = report::classify_signature(sig({}, 2.9), 25.0);
  EXPECT_EQ(j.cls, SignatureClass::kInconclusive);
  ASSERT_TRUE(j.bw_link_fraction);
  // A low share of a fast link says nothing on its own (a down-trained link looks the same over RDMA).
  EXPECT_EQ(cls({}, 1.0, 400.0), SignatureClass::kInconclusive);
}

TEST(SignatureClassify, LatencyAndBandwidthTogether) {
  EXPECT_EQ(cls(1.2, 23.0, 200.0), SignatureClass::kRdmaLike);     // both RDMA-class
  EXPECT_EQ(cls(17.0, 0.9, {}), SignatureClass::kSocketsLike);     // veth fabric: bandwidth not judged
  EXPECT_EQ(cls(20.0, 3.0, 200.0), SignatureClass::kSocketsLike);  // TCP latency, low share: still sockets
  EXPECT_EQ(cls(1.5, 3.0, 200.0), SignatureClass::kRdmaLike);      // RDMA latency on a degraded link
  // TCP-class latency but RDMA-class bandwidth: the figures disagree.
  auto j = report::classify_signature(sig(20.0, 23.0), 200.0);
  EXPECT_EQ(j.cls, SignatureClass::kInconclusive);
  EXPECT_NE(j.reason.find("disagree"), std::string::npos);
}

TEST(SignatureClassify, OneHostNeverCounts) {
  auto j = report::classify_signature(sig(0.4, 10.0, "h1", "h1"), 200.0);
  EXPECT_EQ(j.cls, SignatureClass::kInconclusive);
  EXPECT_NE(j.reason.find("one host"), std::string::npos);
}

TEST(SignatureClassify, Names) {
  EXPECT_EQ(report::name(SignatureClass::kRdmaLike), "rdma_like");
  EXPECT_EQ(report::name(SignatureClass::kSocketsLike), "sockets_like");
  EXPECT_EQ(report::name(SignatureClass::kInconclusive), "inconclusive");
}

// ---------------------------------------------------------------- precedence: log > inventory > signature

TEST(SignaturePrecedence, SocketsLikeWithoutRdmaHardwareIsNoRdmaHardware) {
  // The virtual fabric: no RDMA device anywhere, MPI over TCP.
  report::TransportInput in;
  for (const char* h : {"h1", "h2", "h3"}) in.hosts.push_back(host_without_rdma(h));
  in.signatures = {sig(17.0, 0.9, "h1", "h2"), sig(18.0, 0.8, "h1", "h3"), sig(16.5, 0.9, "h2", "h3")};
  auto r = report::analyze_transport(in);
  EXPECT_EQ(r.run.verdict, "no_rdma_hardware");
  EXPECT_EQ(r.run.network, "socket");
  EXPECT_EQ(r.run.network_source, "signature");
  EXPECT_EQ(r.inter_node, true);
  EXPECT_TRUE(has_evidence(r, "signature", "sockets_like"));
  for (const auto& h : r.per_host) EXPECT_EQ(h.assessment.verdict, "no_rdma_hardware") << h.host;
}

TEST(SignaturePrecedence, SocketsLikeWithActivePortsIsFallbackNamingMpi) {
  auto r = analyze_h1_h2({ib_host("h1", 200), ib_host("h2", 200)}, 19.0, 2.5);
  EXPECT_EQ(r.run.verdict, "socket_fallback");
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].code, "RDMA_FALLBACK_SOCKET");
  EXPECT_NE(r.findings[0].message.find("MPI"), std::string::npos);
  EXPECT_EQ(r.findings[0].evidence["network_source"], "signature");
}

TEST(SignaturePrecedence, RdmaLikeNeverOutweighsAnInventoryWithoutRdma) {
  auto r = analyze_h1_h2({host_without_rdma("h1"), host_without_rdma("h2")}, 1.1, {});
  EXPECT_EQ(r.run.verdict, "no_rdma_hardware");
  EXPECT_EQ(r.run.network, "none");
  EXPECT_TRUE(has_evidence(r, "signature", "inventory outranks the signature"));
}

TEST(SignaturePrecedence, RdmaLikeWithActivePortsIsRdma) {
  auto r = analyze_h1_h2({ib_host("h1", 200), ib_host("h2", 200)}, 1.2, 23.0);
  EXPECT_EQ(r.run.network, "ib_verbs");
  EXPECT_EQ(r.run.network_source, "signature");
  EXPECT_EQ(r.run.verdict, "rdma");
  EXPECT_EQ(r.run.link_layer, "InfiniBand");
}

TEST(SignaturePrecedence, RdmaLikeAloneNamesNoNetwork) {
  auto r = analyze_h1_h2({}, 1.2, {});
  EXPECT_EQ(r.run.network, "none");
  EXPECT_EQ(r.run.verdict, "unknown");
}

TEST(SignaturePrecedence, NcclLogBeatsTheSignature) {
  // NCCL ran over IB verbs while MPI's own traffic is TCP-class (Debian's Open MPI excludes UCX): the log is
  // the direct evidence for the NCCL transport.
  report::TransportInput in;
  in.nccl_logs.push_back(
      parse::parse_nccl_log("h1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:192.0.2.1<0>\n"
                            "h1:1:1 [0] NCCL INFO Using network IB\n"
                            "h2:2:2 [0] NCCL INFO Using network IB\n"));
  in.hosts = {ib_host("h1", 200), ib_host("h2", 200)};
  in.signatures = {sig(18.0, 2.0, "h1", "h2")};
  auto r = report::analyze_transport(in);
  EXPECT_EQ(r.run.network, "ib_verbs");
  EXPECT_EQ(r.run.network_source, "nccl_log");
  EXPECT_NE(r.run.verdict, "socket_fallback");
  EXPECT_TRUE(has_evidence(r, "signature", "sockets_like"));  // still shown, just outranked
}

TEST(SignaturePrecedence, OneTcpPairLimitsTheJob) {
  report::TransportInput in;
  in.hosts = {ib_host("h1", 200), ib_host("h2", 200), ib_host("h3", 200)};
  in.signatures = {sig(1.2, 23.0, "h1", "h2"), sig(1.3, 23.0, "h1", "h3"), sig(21.0, 1.0, "h2", "h3")};
  auto r = report::analyze_transport(in);
  EXPECT_EQ(r.run.verdict, "socket_fallback");
  // Per host: h1's pairs are RDMA-class, h2 and h3 each have the TCP pair.
  for (const auto& h : r.per_host)
    EXPECT_EQ(h.assessment.verdict, h.host == "h1" ? "rdma" : "socket_fallback") << h.host;
}

TEST(SignaturePrecedence, BandwidthJudgedAgainstTheSlowerEnd) {
  // h2's port is 25 Gbit/s: the pair's link rate is 25, below the judged minimum, so 20 GB/s proves nothing.
  auto r = analyze_h1_h2({ib_host("h1", 200), ib_host("h2", 25)}, {}, 20.0);
  EXPECT_EQ(r.run.network, "none");
  EXPECT_TRUE(has_evidence(r, "signature", "inconclusive"));
}

// ---------------------------------------------------------------- sources

TEST(SignatureSources, FromPairsTakesLeaderMatrices) {
  model::PairsResult p;
  p.hosts = {"a", "b", "c"};
  model::PairsRail rail;
  rail.bw_gbps = {{std::nullopt, 0.9, 0.8}, {0.7, std::nullopt, std::nullopt}, {0.85, 0.95, std::nullopt}};
  rail.lat_p50_us = {
      {std::nullopt, 17.0, 18.0}, {17.0, std::nullopt, std::nullopt}, {18.0, std::nullopt, std::nullopt}};
  p.rails.push_back(rail);
  auto s = report::signatures_from_pairs(p);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].from_host, "a");
  EXPECT_EQ(s[0].to_host, "b");
  EXPECT_EQ(s[0].large_msg_bw_gbps, 0.7);  // slower direction
  EXPECT_EQ(s[0].p2p_8b_latency_us, 17.0);
  EXPECT_EQ(s[1].to_host, "c");
  EXPECT_EQ(s[1].large_msg_bw_gbps, 0.8);
  EXPECT_EQ(s[2].from_host, "b");  // b-c: one direction measured, no latency
  EXPECT_EQ(s[2].large_msg_bw_gbps, 0.95);
  EXPECT_FALSE(s[2].p2p_8b_latency_us);
  EXPECT_EQ(s[2].source, "pairs");
  EXPECT_TRUE(report::signatures_from_pairs(model::PairsResult{}).empty());
}

TEST(SignatureSources, FromLatencyTakesCrossHost8BytePairs) {
  model::LatencyResult l;
  l.fabric_crossed = true;
  model::LatencySection s8;
  s8.kind = "p2p";
  s8.size_bytes = 8;
  model::LatencyPair p;
  p.a_host = "a";
  p.b_host = "b";
  p.summary.samples = 100;
  p.summary.p50 = 16.0;
  s8.per_pair.push_back(p);
  model::LatencySection s4k = s8;
  s4k.size_bytes = 4096;
  s4k.per_pair[0].summary.p50 = 40.0;
  l.sections = {s4k, s8};
  auto sigs = report::signatures_from_latency(l);
  ASSERT_EQ(sigs.size(), 1u);
  EXPECT_EQ(sigs[0].p2p_8b_latency_us, 16.0);
  EXPECT_FALSE(sigs[0].large_msg_bw_gbps);
  EXPECT_EQ(sigs[0].source, "latency");
  l.fabric_crossed = false;  // local ranks of one host: shared memory, no signature
  EXPECT_TRUE(report::signatures_from_latency(l).empty());
}

// ---------------------------------------------------------------- redraw of the section

TEST(SignatureRedraw, UpdateTransportReplacesSectionAndItsFindings) {
  report::TransportInput in;
  in.hosts = {ib_host("h1", 200), ib_host("h2", 200)};
  in.env["NCCL_SOCKET_IFNAME"] = "docker0";  // a SOCKET_IFNAME_MGMT finding present before and after
  report::Document doc;
  report::Finding other;
  other.code = "SOMETHING_ELSE";
  doc.add_finding(other);
  auto before = report::analyze_transport(in);
  report::add_transport(doc, before);
  EXPECT_EQ(doc.json()["transport"]["verdict"], "unknown");
  in.signatures = {sig(19.0, 2.0, "h1", "h2")};
  auto after = report::analyze_transport(in);
  report::update_transport(doc, before, after);
  EXPECT_EQ(doc.json()["transport"]["verdict"], "socket_fallback");
  EXPECT_EQ(doc.json()["transport"]["network_source"], "signature");
  int mgmt = 0, fallback = 0, others = 0;
  for (const auto& f : doc.json()["findings"]) {
    mgmt += f["code"] == "SOCKET_IFNAME_MGMT";
    fallback += f["code"] == "RDMA_FALLBACK_SOCKET";
    others += f["code"] == "SOMETHING_ELSE";
  }
  EXPECT_EQ(mgmt, 1);  // not duplicated
  EXPECT_EQ(fallback, 1);
  EXPECT_EQ(others, 1);  // another section's finding stays
  bool sig_line = false;
  for (const auto& e : doc.json()["transport"]["evidence"]) sig_line = sig_line || e["source"] == "signature";
  EXPECT_TRUE(sig_line);
}

TEST(SignatureEvidence, ManyPairsAreCappedRarestClassFirst) {
  // 6 hosts = 15 pairs: at most 8 pair lines, the one TCP-class pair among them, then a count line.
  report::TransportInput in;
  const char* hs[] = {"h1", "h2", "h3", "h4", "h5", "h6"};
  for (const char* h : hs) in.hosts.push_back(ib_host(h, 400));
  for (int a = 0; a < 6; ++a)
    for (int b = a + 1; b < 6; ++b)
      in.signatures.push_back(sig(a == 4 && b == 5 ? 25.0 : 1.3, {}, hs[a], hs[b]));
  auto r = report::analyze_transport(in);
  std::size_t pair_lines = 0;
  for (const auto& e : r.evidence)
    if (e.source == "signature" && e.message.rfind("MPI point-to-point", 0) == 0) ++pair_lines;
  EXPECT_EQ(pair_lines, 8u);
  bool tcp_pair_listed = false;
  for (const auto& e : r.evidence) tcp_pair_listed = tcp_pair_listed || e.host == "h5<->h6";
  EXPECT_TRUE(tcp_pair_listed);
  EXPECT_TRUE(has_evidence(r, "signature", "15 host pairs in all: 1 sockets_like, 14 rdma_like"));
  EXPECT_EQ(r.run.verdict, "socket_fallback");
}
