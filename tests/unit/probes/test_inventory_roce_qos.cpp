// The RoCE lossless configuration of the inventory — the qos/ and mlnx_qos parsers, the job's
// traffic class from the environment, and ROCE_LOSSY / ROCE_PFC_WITHOUT_ECN / ROCE_TC_NOT_LOSSLESS over the
// m-* host models of tests/data/sysfs (each README says what it rebuilds).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "fabcheck/parse/mlnx_qos.hpp"
#include "fabcheck/probes/inventory.hpp"
#include "fabcheck/report/inventory.hpp"
#include "sysfs_model_host.hpp"

using namespace fabcheck;

namespace {

model::HostInventory qos_host(const std::string& model, const std::map<std::string, std::string>& env) {
  return testing_fixtures::sysfs_model_host(model, "qoshost", env);
}

std::vector<report::Finding> qos_findings(const model::HostInventory& h) {
  return testing_fixtures::inventory_findings_of({h});
}

/// The one finding of an m-* model with NCCL_IB_TC=106: `code`, warn, on qoshost's mlx5_0 (ens3np0).
report::Finding qos_single_finding(const std::string& model, const std::string& code) {
  auto f = qos_findings(qos_host(model, {{"NCCL_IB_TC", "106"}}));
  EXPECT_EQ(f.size(), 1u) << model;
  if (f.empty()) return {};
  EXPECT_EQ(f[0].code, code);
  EXPECT_EQ(f[0].severity, report::Severity::kWarn);
  EXPECT_EQ(f[0].evidence["host"], "qoshost");
  EXPECT_EQ(f[0].evidence["device"], "mlx5_0");
  EXPECT_EQ(f[0].evidence["interface"], "ens3np0");
  EXPECT_EQ(f[0].evidence["traffic_class"], 106);
  return f[0];
}

const model::RoceQos& qos_of_port0(const model::HostInventory& h) {
  return *h.rdma_devices.at(0).ports.at(0).roce_qos;
}

// python/mlnx_qos output as printed in att/netarbiter nvmf/OUTPUTSAMPLE.setup-nic-lossless-layer3.sh.md.
const char* kMlnxQosSample =
    "DCBX mode: OS controlled\n"
    "Priority trust state: dscp\n"
    "dscp2prio mapping:\n"
    "        prio:0 dscp:07,06,05,04,03,02,01,00,\n"
    "        prio:1 dscp:15,14,13,12,11,10,09,08,\n"
    "        prio:2 dscp:23,22,21,20,19,18,17,16,\n"
    "        prio:3 dscp:31,30,29,28,27,26,25,24,\n"
    "        prio:4 dscp:39,38,37,36,35,34,33,32,\n"
    "        prio:5 dscp:47,46,45,44,43,42,41,40,\n"
    "        prio:6 dscp:55,54,53,52,51,50,49,48,\n"
    "        prio:7 dscp:63,62,61,60,59,58,57,56,\n"
    "Cable len: 7\n"
    "PFC configuration:\n"
    "        priority    0   1   2   3   4   5   6   7\n"
    "        enabled     0   0   0   1   0   0   0   0   \n"
    "tc: 0 ratelimit: unlimited, tsa: vendor\n"
    "         priority:  1\n";

}  // namespace

TEST(RoceQosParse, QosPairsSkipHeaderAndJunk) {
  auto b = parse::parse_qos_pairs("Priority\tBuffer\n0\t\t0\n3\t\t1\n9\t\t1\nx y\n7\t\t2\n", 8);
  ASSERT_EQ(b.size(), 8u);
  EXPECT_EQ(b[0], 0);
  EXPECT_EQ(b[3], 1);
  EXPECT_EQ(b[7], 2);
  EXPECT_EQ(b[1], -1);  // not listed
  EXPECT_TRUE(parse::parse_qos_pairs("dscp\tprio\n", 64).empty());
  EXPECT_TRUE(parse::parse_qos_pairs("", 64).empty());
}

TEST(RoceQosParse, MlnxQosOutput) {
  auto m = parse::parse_mlnx_qos_output(kMlnxQosSample);
  EXPECT_EQ(m.trust, "dscp");
  ASSERT_EQ(m.dscp2prio.size(), 64u);
  EXPECT_EQ(m.dscp2prio[26], 3);
  EXPECT_EQ(m.dscp2prio[0], 0);
  EXPECT_EQ(m.dscp2prio[63], 7);
  ASSERT_TRUE(m.pfc_enabled_mask.has_value());
  EXPECT_EQ(*m.pfc_enabled_mask, 0x08);
  auto none = parse::parse_mlnx_qos_output("Priority trust state: pcp\nPFC configuration:\n\tenabled 1 0\n");
  EXPECT_EQ(none.trust, "pcp");
  EXPECT_TRUE(none.dscp2prio.empty());
  EXPECT_FALSE(none.pfc_enabled_mask.has_value());  // 2 of 8 columns: not read
}

TEST(RoceQosTraffic, DefaultsAndEnv) {
  auto d = report::roce_job_traffic({});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].library, "NCCL");
  EXPECT_EQ(d[0].traffic_class, 0);
  EXPECT_EQ(d[0].service_level, 0);
  EXPECT_EQ(d[0].origin, "NCCL_IB_TC unset (default 0), NCCL_IB_SL unset (default 0)");
  auto e = report::roce_job_traffic(
      {{"NCCL_IB_TC", "0x6a"}, {"NCCL_IB_SL", "3"}, {"UCX_IB_TRAFFIC_CLASS", "auto"}});
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].traffic_class, 106);
  EXPECT_EQ(e[0].service_level, 3);
  EXPECT_EQ(e[0].origin, "env NCCL_IB_TC=0x6a, env NCCL_IB_SL=3");
  EXPECT_EQ(e[1].library, "UCX");
  EXPECT_EQ(e[1].traffic_class, 106);
  EXPECT_EQ(e[1].origin, "env UCX_IB_TRAFFIC_CLASS=auto (106), UCX_IB_SL unset (default 0)");
  EXPECT_TRUE(report::roce_job_traffic({{"NCCL_IB_TC", "abc"}}).empty());
  EXPECT_TRUE(report::roce_job_traffic({{"NCCL_IB_TC", "256"}}).empty());
}

TEST(RoceQosTraffic, PriorityFromTrustAndMap) {
  model::RoceQos q;
  q.trust = "dscp";
  q.dscp2prio.assign(64, -1);
  q.dscp2prio[26] = 3;
  q.dscp2prio_source = "sysfs qos/dscp2prio";
  report::RoceJobTraffic t{"NCCL", 106, 5, "env NCCL_IB_TC=106"};
  std::string how;
  EXPECT_EQ(report::roce_priority(q, t, how), 3);
  EXPECT_EQ(how, "trust dscp: DSCP 26 -> priority 3 (sysfs qos/dscp2prio)");
  t.traffic_class = 0;
  EXPECT_FALSE(report::roce_priority(q, t, how).has_value());
  EXPECT_EQ(how, "trust dscp: DSCP 0 not in the map (sysfs qos/dscp2prio)");
  q.trust = "pcp";
  EXPECT_EQ(report::roce_priority(q, t, how), 5);
  EXPECT_EQ(how, "trust pcp: SL 5");
  q.trust.clear();
  q.trust_source = "unknown: no qos/trust and no mlnx_qos capture";
  EXPECT_FALSE(report::roce_priority(q, t, how).has_value());
}

TEST(RoceQosInventory, ReadsTheQosTree) {
  auto h = qos_host("m-roce-lossless-correct", {{"NCCL_IB_TC", "106"}});
  const auto& q = qos_of_port0(h);
  EXPECT_EQ(q.netdev, "ens3np0");
  EXPECT_EQ(q.trust, "dscp");
  EXPECT_EQ(q.trust_source, "sysfs qos/trust");
  ASSERT_EQ(q.dscp2prio.size(), 64u);
  EXPECT_EQ(q.dscp2prio[26], 3);
  EXPECT_EQ(q.pfc_enabled_mask, 0x08);
  EXPECT_EQ(q.pfc_source, "mlnx_qos capture");
  EXPECT_EQ(q.prio2buffer, (std::vector<int>{0, 0, 0, 1, 0, 0, 0, 0}));
  EXPECT_EQ(q.ecn_np_mask, 0x08);
  EXPECT_EQ(q.ecn_rp_mask, 0x08);
  EXPECT_EQ(q.ecn_source, "sysfs ecn/");
  EXPECT_TRUE(qos_findings(h).empty());
  auto back = model::host_inventory_from_json_text(model::to_json_text(h));
  EXPECT_EQ(qos_of_port0(back).dscp2prio, q.dscp2prio);
  EXPECT_EQ(qos_of_port0(back).pfc_enabled_mask, 0x08);
  EXPECT_EQ(model::to_json_text(back), model::to_json_text(h));
}

TEST(RoceQosInventory, WithoutFilesEverythingIsUnknown) {
  auto h = qos_host("b-roce-2nic", {{"NCCL_IB_TC", "106"}});
  const auto& q = qos_of_port0(h);
  EXPECT_EQ(q.trust, "");
  EXPECT_EQ(q.trust_source, "unknown: no qos/trust and no mlnx_qos capture");
  EXPECT_FALSE(q.pfc_enabled_mask.has_value());
  EXPECT_EQ(q.pfc_source,
            "unknown: PFC is in DCB netlink, not sysfs, and the tree has no mlnx_qos/ens3np0 capture");
  EXPECT_FALSE(q.ecn_np_mask.has_value());
  EXPECT_EQ(q.ecn_source.rfind("unknown: no ecn/ directory", 0), 0u);
  EXPECT_TRUE(qos_findings(h).empty());
}

TEST(RoceQosFindings, PfcOffIsLossy) {
  const auto f0 = qos_single_finding("m2-roce-pfc-off", "ROCE_LOSSY");
  EXPECT_EQ(f0.evidence["priority"], 3);
  EXPECT_EQ(f0.evidence["tc_origin"], "env NCCL_IB_TC=106, NCCL_IB_SL unset (default 0)");
  EXPECT_EQ(f0.evidence["pfc_priorities"], nlohmann::json::array());
  EXPECT_NE(f0.message.find("lands on priority 3 (trust dscp: DSCP 26 -> priority 3"), std::string::npos);
  EXPECT_NE(f0.remedy.find("mlnx_qos -i ens3np0 --pfc 0,0,0,1,0,0,0,0"), std::string::npos);
  EXPECT_NE(f0.remedy.find("echo 1 > /sys/class/net/ens3np0/ecn/roce_np/enable/3"), std::string::npos);
}

TEST(RoceQosFindings, PfcWithoutEcn) {
  const auto f0 = qos_single_finding("m3-roce-ecn-off", "ROCE_PFC_WITHOUT_ECN");
  EXPECT_EQ(f0.evidence["priority"], 3);
  EXPECT_EQ(f0.evidence["pfc_priorities"], nlohmann::json::array({3}));
  EXPECT_EQ(f0.evidence["ecn_np"], false);
  EXPECT_EQ(f0.evidence["ecn_rp"], false);
  EXPECT_NE(f0.remedy.find("echo 1 > /sys/class/net/ens3np0/ecn/roce_rp/enable/3"), std::string::npos);
}

TEST(RoceQosFindings, DscpMapSendsTheTcElsewhere) {
  const auto f0 = qos_single_finding("m4-roce-dscp-map-elsewhere", "ROCE_TC_NOT_LOSSLESS");
  EXPECT_EQ(f0.evidence["priority"], 0);
  EXPECT_EQ(f0.evidence["priority_from"], "trust dscp: DSCP 26 -> priority 0 (sysfs qos/dscp2prio)");
  EXPECT_NE(f0.message.find("PFC is enabled on priority 3 only"), std::string::npos);
  EXPECT_NE(f0.remedy.find("set NCCL_IB_TC=98 (DSCP 24"), std::string::npos);
  EXPECT_NE(f0.remedy.find("mlnx_qos -i ens3np0 --dscp2prio set,26,3"), std::string::npos);
}

TEST(RoceQosFindings, NcclDefaultTcMissesTheLosslessPriority) {
  // NCCL_IB_TC unset: TC 0 -> DSCP 0 -> priority 0, while both ports are lossless on priority 3 only.
  auto f = qos_findings(qos_host("m-roce-lossless-correct", {}));
  ASSERT_EQ(f.size(), 2u);
  for (const auto& x : f) {
    EXPECT_EQ(x.code, "ROCE_TC_NOT_LOSSLESS");
    EXPECT_EQ(x.evidence["priority"], 0);
    EXPECT_EQ(x.evidence["tc_origin"], "NCCL_IB_TC unset (default 0), NCCL_IB_SL unset (default 0)");
  }
  EXPECT_EQ(f[0].evidence["interface"], "ens3np0");
  EXPECT_EQ(f[1].evidence["interface"], "ens2np0");
  EXPECT_NE(f[1].remedy.find("set NCCL_IB_TC=96 (DSCP 24"), std::string::npos);
}

TEST(RoceQosFindings, UcxTrafficJudgedToo) {
  auto f = qos_findings(
      qos_host("m-roce-lossless-correct", {{"NCCL_IB_TC", "106"}, {"UCX_IB_TRAFFIC_CLASS", "0"}}));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].evidence["library"], "UCX");
  EXPECT_EQ(f[0].evidence["priority"], 0);
  EXPECT_NE(f[0].remedy.find("set UCX_IB_TRAFFIC_CLASS=96"), std::string::npos);
  // UCX's default ("auto" = 106) lands where NCCL's 106 does: judged once, nothing to say.
  EXPECT_TRUE(
      qos_findings(qos_host("m-roce-lossless-correct", {{"NCCL_IB_TC", "106"}, {"UCX_IB_SL", "auto"}}))
          .empty());
}

TEST(RoceQosFindings, TrustPcpUsesTheServiceLevel) {
  auto h = qos_host("m-roce-lossless-correct", {{"NCCL_IB_SL", "3"}});
  for (auto& d : h.rdma_devices) d.ports.at(0).roce_qos->trust = "pcp";
  EXPECT_TRUE(qos_findings(h).empty());
  h.env.erase("NCCL_IB_SL");
  auto f = qos_findings(h);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].code, "ROCE_TC_NOT_LOSSLESS");
  EXPECT_EQ(f[0].evidence["priority_from"], "trust pcp: SL 0");
  EXPECT_NE(f[0].remedy.find("set NCCL_IB_SL=3"), std::string::npos);
}
