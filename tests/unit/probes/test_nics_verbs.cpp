// The pure parts of the nics probe's RDMA verbs path: NCCL's GID index choice, the RC queue-pair
// attributes, the QpInfo wire format, the ib_write_bw / ib_write_lat maths, and the report's verbs member.
#include <gtest/gtest.h>

#include <string>

#include "fabcheck/core/stats.hpp"
#include "fabcheck/model/gid_choice.hpp"
#include "fabcheck/model/nics.hpp"
#include "fabcheck/probes/nics_verbs_math.hpp"
#include "fabcheck/probes/nics_verbs_qp.hpp"
#include "fabcheck/probes/nics_verbs_wire.hpp"
#include "fabcheck/report/nics.hpp"

namespace fabcheck {
namespace {

using probes::rdma::Gid;

Gid ipv4_mapped(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  return {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d};
}
Gid link_local(std::uint8_t last) {
  return {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, last};
}
Gid ipv6_global(std::uint8_t last) {
  return {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, last};
}

// A RoCE port as mlx5 fills it for one netdev with an IPv6 link-local and an IPv4 address: each address once
// as RoCE v1 and once as RoCE v2.
model::RdmaPort roce_port() {
  model::RdmaPort p;
  p.link_layer = "Ethernet";
  p.gid_tbl_len = 256;
  p.gids = {model::gid_entry_of(0, link_local(1), "RoCE v1", "eth2"),
            model::gid_entry_of(1, link_local(1), "RoCE v2", "eth2"),
            model::gid_entry_of(2, ipv4_mapped(10, 0, 0, 1), "RoCE v1", "eth2"),
            model::gid_entry_of(3, ipv4_mapped(10, 0, 0, 1), "RoCE v2", "eth2")};
  return p;
}

TEST(NicsVerbsGid, EntryFromRawBytes) {
  const auto e = model::gid_entry_of(3, ipv4_mapped(192, 0, 2, 72), "RoCE v2", "eth2");
  EXPECT_EQ(e.index, 3);
  EXPECT_EQ(e.gid, "0000:0000:0000:0000:0000:ffff:c000:0248");  // as sysfs prints it
  EXPECT_EQ(e.ipv4, "192.0.2.72");
  EXPECT_FALSE(e.link_local);
  EXPECT_EQ(e.netdev, "eth2");
  const auto ll = model::gid_entry_of(0, link_local(7), "RoCE v1", "eth2");
  EXPECT_TRUE(ll.link_local);
  EXPECT_EQ(ll.ipv4, "");
  EXPECT_EQ(ll.gid.substr(0, 20), "fe80:0000:0000:0000:");
  EXPECT_FALSE(model::gid_entry_of(4, ipv6_global(1), "RoCE v2", "eth2").link_local);
  EXPECT_EQ(model::gid_entry_of(4, ipv6_global(1), "RoCE v2", "eth2").ipv4, "");
}

TEST(NicsVerbsGid, RoceAutomaticChoiceIsTheIpv4MappedRoceV2Gid) {
  const auto c = model::nccl_gid_index(roce_port(), {});
  EXPECT_EQ(c.index, 3);
  EXPECT_EQ(c.source, "nccl_auto");
  // NCCL_IB_ROCE_VERSION_NUM=1: the IPv4-mapped RoCE v1 slot.
  EXPECT_EQ(model::nccl_gid_index(roce_port(), {{"NCCL_IB_ROCE_VERSION_NUM", "1"}}).index, 2);
}

TEST(NicsVerbsGid, NcclIbGidIndexWinsOnRoceWhenNotNegative) {
  auto c = model::nccl_gid_index(roce_port(), {{"NCCL_IB_GID_INDEX", "1"}});
  EXPECT_EQ(c.index, 1);
  EXPECT_EQ(c.source, "NCCL_IB_GID_INDEX");
  c = model::nccl_gid_index(roce_port(), {{"NCCL_IB_GID_INDEX", "-1"}});  // NCCL's default: automatic
  EXPECT_EQ(c.index, 3);
  EXPECT_EQ(c.source, "nccl_auto");
  EXPECT_EQ(model::nccl_gid_index(roce_port(), {{"NCCL_IB_GID_INDEX", "x"}}).source, "nccl_auto");
}

TEST(NicsVerbsGid, Ipv6FamilyTakesTheGlobalIpv6RoceV2Gid) {
  auto p = roce_port();
  p.gids.push_back(model::gid_entry_of(4, ipv6_global(9), "RoCE v1", "eth2"));
  p.gids.push_back(model::gid_entry_of(5, ipv6_global(9), "RoCE v2", "eth2"));
  EXPECT_EQ(model::nccl_gid_index(p, {{"NCCL_IB_ADDR_FAMILY", "AF_INET6"}}).index, 5);
  EXPECT_EQ(model::nccl_gid_index(p, {}).index, 3);  // the default family stays IPv4
}

TEST(NicsVerbsGid, SparseTableAndNoIpv4Address) {
  model::RdmaPort p;
  p.link_layer = "Ethernet";
  p.gid_tbl_len = 16;
  p.gids = {model::gid_entry_of(0, link_local(1), "RoCE v1", "eth2"),
            model::gid_entry_of(11, ipv4_mapped(10, 1, 0, 5), "RoCE v2", "eth2.100")};
  EXPECT_EQ(model::nccl_gid_index(p, {}).index, 11);
  p.gids.pop_back();  // only the link-local slot: NCCL stays at 0
  EXPECT_EQ(model::nccl_gid_index(p, {}).index, 0);
}

TEST(NicsVerbsGid, InfinibandUsesGid0UnlessGid1CarriesAFlid) {
  model::RdmaPort p;
  p.link_layer = "InfiniBand";
  p.gid_tbl_len = 128;
  p.gids = {model::gid_entry_of(0, link_local(1), "IB", "")};
  auto c = model::nccl_gid_index(p, {{"NCCL_IB_GID_INDEX", "3"}});  // RoCE only: IB returns before reading it
  EXPECT_EQ(c.index, 0);
  EXPECT_EQ(c.source, "ib_gid0");
  // GID 1 with FLID 0x0012 in bytes 4-5 (NCCL's ncclIbExtractFlid): the routable index.
  p.gids.push_back(model::gid_entry_of(
      1, {0xfe, 0xc0, 0, 0, 0x00, 0x12, 0x00, 0x01, 2, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 1}, "IB", ""));
  c = model::nccl_gid_index(p, {});
  EXPECT_EQ(c.index, 1);
  EXPECT_EQ(c.source, "ib_routable_flid");
  EXPECT_EQ(model::nccl_gid_index(p, {{"NCCL_IB_ROUTABLE_FLID_GID_INDEX", "2"}}).index, 0);
}

probes::rdma::QpInfo remote_info(bool ethernet, int mtu, Gid gid) {
  probes::rdma::QpInfo q;
  q.qpn = 0x1a2b3c;
  q.psn = 0x00abcd;
  q.lid = ethernet ? 0 : 0x42;
  q.gid = gid;
  q.gid_index = 3;
  q.mtu_bytes = mtu;
  q.ethernet = ethernet;
  q.rkey = 0xdeadbeef;
  q.addr = 0x7f0012345000;
  q.buffer_bytes = 65600;
  return q;
}

TEST(NicsVerbsQp, RoceNeedsAGrhWithTheChosenGidAndTheSmallerMtu) {
  probes::rdma::LocalPort lp;
  lp.port_num = 1;
  lp.ethernet = true;
  lp.mtu_bytes = 4096;
  lp.gid_index = 3;
  lp.gid = ipv4_mapped(10, 0, 0, 1);
  const auto remote = remote_info(true, 1024, ipv4_mapped(10, 0, 0, 2));
  const auto cls = probes::rdma::qp_class_from_env({{"NCCL_IB_TC", "106"}, {"NCCL_IB_SL", "3"}});
  std::string why;
  const auto a = probes::rdma::rtr_attr(lp, remote, cls, why);
  ASSERT_TRUE(a) << why;
  EXPECT_EQ(a->path_mtu_bytes, 1024);
  EXPECT_EQ(a->dest_qpn, remote.qpn);
  EXPECT_EQ(a->rq_psn, remote.psn);
  EXPECT_TRUE(a->is_global);
  EXPECT_EQ(a->dgid, remote.gid);
  EXPECT_EQ(a->sgid_index, 3);  // ours, not the peer's
  EXPECT_EQ(a->hop_limit, 255);
  EXPECT_EQ(a->traffic_class, 106);
  EXPECT_EQ(a->sl, 3);
  EXPECT_EQ(a->dlid, 0);
  EXPECT_EQ(a->max_dest_rd_atomic, 1);
  EXPECT_EQ(a->min_rnr_timer, 12);
  EXPECT_EQ(a->port_num, 1);
}

TEST(NicsVerbsQp, InfinibandUsesTheLidWithinASubnetAndAGrhAcrossSubnets) {
  probes::rdma::LocalPort lp;
  lp.port_num = 2;
  lp.ethernet = false;
  lp.mtu_bytes = 4096;
  lp.gid = link_local(1);
  std::string why;
  const auto same = probes::rdma::rtr_attr(lp, remote_info(false, 4096, link_local(2)), {}, why);
  ASSERT_TRUE(same) << why;
  EXPECT_FALSE(same->is_global);
  EXPECT_EQ(same->dlid, 0x42);
  EXPECT_EQ(same->path_mtu_bytes, 4096);
  // Another subnet (bytes 6-7 of the prefix) with FLID 0x0012 (bytes 4-5): GRH, dlid = the FLID.
  Gid other{0xfe, 0xc0, 0, 0, 0x00, 0x12, 0x00, 0x07, 2, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 9};
  const auto cross = probes::rdma::rtr_attr(lp, remote_info(false, 4096, other), {}, why);
  ASSERT_TRUE(cross) << why;
  EXPECT_TRUE(cross->is_global);
  EXPECT_EQ(cross->dlid, 0x12);
  EXPECT_EQ(cross->dgid, other);
  EXPECT_EQ(cross->traffic_class, 0);
  lp.grh_required = true;
  const auto grh = probes::rdma::rtr_attr(lp, remote_info(false, 4096, link_local(2)), {}, why);
  ASSERT_TRUE(grh);
  EXPECT_TRUE(grh->is_global);
  EXPECT_EQ(grh->dlid, 0x42);
}

TEST(NicsVerbsQp, PairsThatCannotConnectSayWhy) {
  probes::rdma::LocalPort lp;
  lp.ethernet = true;
  lp.mtu_bytes = 4096;
  std::string why;
  EXPECT_FALSE(probes::rdma::rtr_attr(lp, remote_info(false, 4096, link_local(2)), {}, why));
  EXPECT_NE(why.find("link layers differ"), std::string::npos) << why;
  auto bad_mtu = remote_info(true, 4096, ipv4_mapped(10, 0, 0, 2));
  bad_mtu.mtu_bytes = 1500;  // a netdev MTU, not an IB MTU
  EXPECT_FALSE(probes::rdma::rtr_attr(lp, bad_mtu, {}, why));
  EXPECT_NE(why.find("1500"), std::string::npos) << why;
  probes::rdma::QpInfo err;
  err.error = "ibv_create_qp: Cannot allocate memory";
  EXPECT_FALSE(probes::rdma::rtr_attr(lp, err, {}, why));
  EXPECT_EQ(why, "peer: ibv_create_qp: Cannot allocate memory");
}

TEST(NicsVerbsQp, RtsValuesAndTheirFailureTime) {
  const auto r = probes::rdma::rts_attr(0x123456);
  EXPECT_EQ(r.sq_psn, 0x123456u);
  EXPECT_EQ(r.timeout, 14);
  EXPECT_EQ(r.retry_cnt, 7);
  EXPECT_EQ(r.rnr_retry, 7);
  EXPECT_EQ(r.max_rd_atomic, 1);
  EXPECT_DOUBLE_EQ(probes::rdma::ack_timeout_us(0), 4.096);
  EXPECT_DOUBLE_EQ(probes::rdma::ack_timeout_us(14), 4.096 * 16384);
  // An unreachable pair fails within (retry_cnt + 1) tries: under a second.
  EXPECT_LT((r.retry_cnt + 1) * probes::rdma::ack_timeout_us(r.timeout), 1e6);
  EXPECT_GT((r.retry_cnt + 1) * probes::rdma::ack_timeout_us(20), 30e6);  // NCCL_IB_TIMEOUT's default: 34 s
}

TEST(NicsVerbsQp, ServiceClassFromNcclEnvironment) {
  auto c = probes::rdma::qp_class_from_env({});
  EXPECT_EQ(c.sl, 0);
  EXPECT_EQ(c.traffic_class, 0);
  c = probes::rdma::qp_class_from_env({{"NCCL_IB_SL", "-1"}, {"NCCL_IB_TC", "abc"}});
  EXPECT_EQ(c.sl, 0);
  EXPECT_EQ(c.traffic_class, 0);
  c = probes::rdma::qp_class_from_env({{"NCCL_IB_SL", "5"}, {"NCCL_IB_TC", "41"}});
  EXPECT_EQ(c.sl, 5);
  EXPECT_EQ(c.traffic_class, 41);
}

void expect_same(const probes::rdma::QpInfo& a, const probes::rdma::QpInfo& b) {
  EXPECT_EQ(a.qpn, b.qpn);
  EXPECT_EQ(a.psn, b.psn);
  EXPECT_EQ(a.lid, b.lid);
  EXPECT_EQ(a.gid, b.gid);
  EXPECT_EQ(a.gid_index, b.gid_index);
  EXPECT_EQ(a.mtu_bytes, b.mtu_bytes);
  EXPECT_EQ(a.ethernet, b.ethernet);
  EXPECT_EQ(a.rkey, b.rkey);
  EXPECT_EQ(a.addr, b.addr);
  EXPECT_EQ(a.buffer_bytes, b.buffer_bytes);
  EXPECT_EQ(a.error, b.error);
}

TEST(NicsVerbsWire, RoundTripAtTheWidestValues) {
  auto q = remote_info(false, 4096, link_local(0xff));
  q.qpn = 0xffffff;
  q.psn = 0xffffff;
  q.lid = 0xffff;
  q.gid.fill(0xff);
  q.gid_index = 255;
  q.rkey = 0xffffffff;
  q.addr = ~0ull;
  q.buffer_bytes = ~0ull;
  const auto wire = probes::rdma::serialize_qp_info(q);
  EXPECT_EQ(wire.back(), '\0');
  std::string why;
  const auto back = probes::rdma::parse_qp_info(std::string_view(wire.data(), wire.size()), why);
  ASSERT_TRUE(back) << why;
  expect_same(*back, q);
  const auto eth = remote_info(true, 1024, ipv4_mapped(10, 0, 0, 2));
  const auto w2 = probes::rdma::serialize_qp_info(eth);
  const auto b2 = probes::rdma::parse_qp_info(std::string_view(w2.data(), w2.size()), why);
  ASSERT_TRUE(b2) << why;
  expect_same(*b2, eth);
}

TEST(NicsVerbsWire, ErrorsTravelAndLongOnesAreCut) {
  probes::rdma::QpInfo q;
  q.error = "ibv_reg_mr: Cannot allocate memory";
  auto wire = probes::rdma::serialize_qp_info(q);
  std::string why;
  auto back = probes::rdma::parse_qp_info(std::string_view(wire.data(), wire.size()), why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->error, q.error);
  q.error = std::string(1000, 'e');
  wire = probes::rdma::serialize_qp_info(q);
  back = probes::rdma::parse_qp_info(std::string_view(wire.data(), wire.size()), why);
  ASSERT_TRUE(back) << why;
  EXPECT_GE(back->error.size(), 100u);
  EXPECT_LT(back->error.size(), probes::rdma::kQpWireBytes);
}

TEST(NicsVerbsWire, MalformedMessagesAreRefusedNamingTheField) {
  const auto good = probes::rdma::serialize_qp_info(remote_info(true, 1024, ipv4_mapped(10, 0, 0, 2)));
  const std::string text(good.data());
  auto refuse = [](const std::string& t, const std::string& expect) {
    std::string why;
    EXPECT_FALSE(probes::rdma::parse_qp_info(t, why)) << t;
    EXPECT_NE(why.find(expect), std::string::npos) << why;
  };
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  refuse("fabcheck-qp2 " + text.substr(13), "not a fabcheck-qp1");
  refuse("garbage", "not a fabcheck-qp1");
  refuse(replace("qpn=1a2b3c", "qpn=1000000"), "qpn");  // over 24 bits
  refuse(replace("psn=abcd", "psn=zz"), "psn");
  refuse(replace("mtu=1024", "mtu=1500"), "mtu");
  refuse(replace("ll=eth", "ll=fc"), "ll");
  refuse(replace(" rkey=deadbeef", ""), "rkey missing");
  refuse(replace("gid=", "gid=00"), "gid");
}

TEST(NicsVerbsMath, BandwidthIsBytesTimesItersOverTime) {
  // 64 KiB x 5000 in 10 ms: 327680000 B / 0.01 s = 32.768e9 B/s.
  const auto bw = probes::rdma::write_bw_gbps(65536, 5000, 0.01);
  ASSERT_TRUE(bw);
  EXPECT_DOUBLE_EQ(*bw, 65536.0 * 5000 / 0.01 / 1e9);
  EXPECT_NEAR(*bw, 32.768, 1e-9);
  EXPECT_FALSE(probes::rdma::write_bw_gbps(65536, 5000, 0));
  EXPECT_FALSE(probes::rdma::write_bw_gbps(65536, 0, 1));
}

TEST(NicsVerbsMath, LatencyIsHalfTheRoundTripByTheDesignPercentiles) {
  const std::vector<double> rtt_ns = {4000, 2000, 3000, 100000};
  const auto s = probes::rdma::write_lat_half_us(rtt_ns);
  EXPECT_EQ(s.samples, 4u);
  // Half round trips 2, 1, 1.5, 50 µs; nearest rank: p50 = 2nd of 4, p99 = 4th.
  EXPECT_DOUBLE_EQ(s.p50, 1.5);
  EXPECT_DOUBLE_EQ(s.p99, 50.0);
  const std::vector<double> sorted_half = {1, 1.5, 2, 50};
  EXPECT_EQ(s.p50, *core::percentile_sorted(sorted_half, 5000));
  EXPECT_EQ(probes::rdma::write_lat_half_us({}).samples, 0u);
}

TEST(NicsVerbsMath, WindowKeepsAtMostDepthInFlightAndPostsEveryWrite) {
  probes::rdma::WriteWindow w;
  w.iters = 10;
  w.depth = 4;
  EXPECT_EQ(w.can_post(), 4u);
  std::uint64_t max_in_flight = 0;
  int steps = 0;
  while (!w.done() && steps++ < 100) {
    w.post(w.can_post());
    max_in_flight = std::max(max_in_flight, w.posted - w.completed);
    w.complete(3);  // the hardware completes 3 at a time
  }
  EXPECT_TRUE(w.done());
  EXPECT_EQ(w.posted, 10u);
  EXPECT_EQ(w.completed, 10u);
  EXPECT_EQ(max_in_flight, 4u);
  EXPECT_EQ(w.can_post(), 0u);
  w.post(5);  // nothing left to post
  EXPECT_EQ(w.posted, 10u);
}

TEST(NicsVerbsReport, SkippedIsOneReasonInJsonAndConsole) {
  model::NicsResult r;
  r.hosts = {"h1", "h2"};
  r.verbs.skipped = "no RDMA device (ibv_get_device_list returned 0)";
  r.verbs.hosts = {{{}, r.verbs.skipped}, {{}, r.verbs.skipped}};
  const auto j = report::nics_json(r);
  EXPECT_EQ(j.at("verbs"), (nlohmann::json{{"skipped", "no RDMA device (ibv_get_device_list returned 0)"}}));
  EXPECT_NE(
      report::render_nics(r).find("# verbs: skipped: no RDMA device (ibv_get_device_list returned 0)\n"),
      std::string::npos);
  model::NicsResult off;
  off.verbs.skipped = "built without libibverbs";
  EXPECT_EQ(report::nics_verbs_json(off).at("skipped"), "built without libibverbs");
}

TEST(NicsVerbsReport, MeasuredLinksNameDevicesAndGids) {
  model::NicsResult r;
  r.hosts = {"h1", "h2"};
  model::VerbsNicPort p{
      "mlx5_0", 1, "Ethernet", "eth2", 3, "nccl_auto", "0000:0000:0000:0000:0000:ffff:0a00:0001", 0, 4096};
  r.verbs.hosts = {{{p}, ""}, {{p}, ""}};
  r.verbs.msg_size_bytes = 65536;
  r.verbs.iters = 5000;
  r.verbs.tx_depth = 128;
  r.verbs.lat_iters = 200;
  model::VerbsLink up{0, 0, 1, 0, true, "", 4096, 46.5, 2.1, 3.4};
  model::VerbsLink down{1,
                        0,
                        0,
                        0,
                        false,
                        "work completion 0: transport retry counter exceeded",
                        4096,
                        std::nullopt,
                        std::nullopt,
                        std::nullopt};
  r.verbs.links = {up, down};
  const auto j = report::nics_verbs_json(r);
  EXPECT_TRUE(j.at("skipped").is_null());
  ASSERT_EQ(j.at("links").size(), 2u);
  EXPECT_EQ(j["links"][0]["from"]["device"], "mlx5_0");
  EXPECT_EQ(j["links"][0]["to"]["host"], "h2");
  EXPECT_EQ(j["links"][0]["bw_gbps"], 46.5);
  EXPECT_EQ(j["links"][0]["path_mtu_bytes"], 4096);
  EXPECT_EQ(j["links"][1]["reachable"], false);
  EXPECT_TRUE(j["links"][1]["bw_gbps"].is_null());
  EXPECT_EQ(j["hosts"][0]["ports"][0]["gid_index"], 3);
  EXPECT_EQ(j["hosts"][0]["ports"][0]["gid_index_source"], "nccl_auto");
  const auto text = report::render_nics_verbs(r);
  EXPECT_NE(text.find("h1 mlx5_0/1 (eth2) -> h2 mlx5_0/1 (eth2): 46.500 GB/s, 2.10 us p50"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("h2 mlx5_0/1 (eth2) -> h1 mlx5_0/1 (eth2): unreachable (work completion 0"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace fabcheck
