// `nics --nccl-log`: NCCL's bootstrap / NET-Socket interfaces from a log, mapped to the measured
// hosts and judged by NICS_MGMT_IN_USE. Real logs: tests/data/nccl-logs/real (r01, r03, r22; each file's
// `# source:` line names its public thread) and tests/data/nccl-logs/17-k8s-mpijob-ib-2.25.1.log (README
// there). Lines built in this file are CONSTRUCTED (not from a real run): they copy the real `Bootstrap :
// Using` form of r03 (NCCL 2.8 - 2.23) with this file's host names and addresses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fabcheck/model/nics.hpp"
#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/report/log_host.hpp"
#include "fabcheck/report/nics.hpp"

namespace fabcheck::nics_nccl_log_test {

const std::string kNcclLogs = std::string(FABCHECK_TEST_DATA) + "/nccl-logs/";

// Measured hosts h1..h{hosts}: eth0 on 198.18.1.0/24 and eth1 on 198.18.2.0/24 (data, 100 Gb/s), mgmt0 on
// 198.18.9.0/24 (1 Gb/s, not data). No links: the management-NIC check needs the NICs only.
model::NicsResult measured(int hosts) {
  model::NicsResult r;
  r.options.ifaces = "eth";
  r.options.nccl_log = "job.log";
  for (int h = 0; h < hosts; ++h) {
    r.hosts.push_back("h" + std::to_string(h + 1) + ".cluster");
    const std::string last = std::to_string(h + 1);
    r.nics.push_back({{"eth0", "198.18.1." + last, 24, true, true, 100000.0, -1},
                      {"eth1", "198.18.2." + last, 24, true, true, 100000.0, -1},
                      {"mgmt0", "198.18.9." + last, 24, true, false, 1000.0, -1}});
  }
  model::assign_rails(r);
  return r;
}

// CONSTRUCTED log: every host's bootstrap on `iface` (address on `net`.<host>), NCCL chose IB for data.
std::string bootstrap_log(int hosts, const std::string& iface, const std::string& net) {
  std::string s;
  for (int h = 1; h <= hosts; ++h) {
    const std::string pre =
        "h" + std::to_string(h) + ":" + std::to_string(100 + h) + ":" + std::to_string(100 + h);
    s += pre + " [0] NCCL INFO Bootstrap : Using " + iface + ":" + net + "." + std::to_string(h) + "<0>\n";
    s += pre + " [0] NCCL INFO Using network IB\n";
  }
  return s;
}

model::NicsResult with_log(model::NicsResult r, const parse::NcclLog& log) {
  r.nccl_log_hosts = report::nics_nccl_log_hosts(log, r.hosts);
  return r;
}

TEST(NicsNcclLog, BootstrapLineOfEveryNcclFormatInRealLogs) {
  // `Bootstrap : Using [0]eth1:...` (list, 2.4.8 - 2.7): r01, NCCL 2.7.8 (NVIDIA/nccl#799).
  const auto a =
      parse::parse_nccl_log_file(kNcclLogs + "real/r01-modify-qp-no-such-device-roce-one-host.log");
  // `Bootstrap : Using enp226s0:...` (2.8 - 2.23): r03, NCCL 2.8.3 (NVIDIA/pyxis#60).
  const auto b =
      parse::parse_nccl_log_file(kNcclLogs + "real/r03-create-qp-failed-ibext-sharp-slurm-pyxis.log");
  // `Bootstrap: Using eth0:...` (2.24+): NCCL 2.25.1 on Kubernetes.
  const auto c = parse::parse_nccl_log_file(kNcclLogs + "17-k8s-mpijob-ib-2.25.1.log");
  const auto ha = report::nics_nccl_log_hosts(a, {"node02", "node01.example.org"});
  ASSERT_EQ(ha.size(), 1u);
  EXPECT_EQ(ha[0].host, "node01");
  EXPECT_EQ(ha[0].host_index, 1);  // the FQDN's first label
  EXPECT_EQ(ha[0].network, "IB");
  ASSERT_EQ(ha[0].ifaces.size(), 1u);
  EXPECT_EQ(ha[0].ifaces[0].role, "bootstrap");
  EXPECT_EQ(ha[0].ifaces[0].name, "eth1");
  EXPECT_EQ(ha[0].ifaces[0].addr, "192.0.2.1");
  const auto hb = report::nics_nccl_log_hosts(b, {"node01"});
  ASSERT_EQ(hb.size(), 1u);
  ASSERT_EQ(hb[0].ifaces.size(), 1u);
  EXPECT_EQ(hb[0].ifaces[0].name, "enp226s0");
  EXPECT_EQ(hb[0].network, "IBext");
  const auto hc = report::nics_nccl_log_hosts(c, {"nccl-tests-worker-0", "nccl-tests-worker-1"});
  ASSERT_EQ(hc.size(), 2u);
  for (const auto& h : hc) {
    EXPECT_GE(h.host_index, 0) << h.host;
    ASSERT_FALSE(h.ifaces.empty()) << h.host;
    for (const auto& u : h.ifaces) {
      EXPECT_EQ(u.role, "bootstrap") << h.host;
      EXPECT_EQ(u.name, "eth0") << h.host;
    }
  }
  // worker-1's processes print two addresses (two runs pasted together): each kept once.
  EXPECT_EQ(hc[1].ifaces.size(), 2u);
  EXPECT_EQ(report::same_host_name("node01", "node01.example.org"), true);
  EXPECT_EQ(report::same_host_name("node01", "node010"), false);
  EXPECT_EQ(report::same_host_name("", ""), false);
}

TEST(NicsNcclLog, RealLogWithSocketsOnTheSlowNicIsCaughtAndQuietOnDataNics) {
  // r22 (NVIDIA/nccl#278, NCCL 2.5.6): both hosts bootstrap and send NET/Socket data over enP1p1s0f0 and
  // enP1p1s0f1. Measured here (constructed result): enP1p1s0f1 is a 1 Gb/s non-data NIC.
  const auto log = parse::parse_nccl_log_file(kNcclLogs + "real/r22-nccl256-socket-two-nics-all-socket0.log");
  model::NicsResult r;
  r.options.ifaces = "=enP1p1s0f0";
  r.options.nccl_log = "r22.log";
  r.hosts = {"node01", "node02"};
  r.nics = {{{"enP1p1s0f0", "192.0.2.1", 24, true, true, 25000.0, -1},
             {"enP1p1s0f1", "192.0.2.2", 24, true, false, 1000.0, -1}},
            {{"enP1p1s0f0", "192.0.2.3", 24, true, true, 25000.0, -1},
             {"enP1p1s0f1", "192.0.2.4", 24, true, false, 1000.0, -1}}};
  model::assign_rails(r);
  const auto f = report::nics_findings(with_log(r, log));
  ASSERT_EQ(f.size(), 2u);  // bootstrap, then NET/Socket (2.5.6 prints no `Using network`: data may ride it)
  for (const auto& x : f) {
    EXPECT_EQ(x.code, "NICS_MGMT_IN_USE");
    EXPECT_EQ(x.severity, report::Severity::kWarn);
    EXPECT_NE(x.message.find("node01 enP1p1s0f1:192.0.2.2"), std::string::npos) << x.message;
    EXPECT_NE(x.message.find("1000 Mb/s against the data NICs' 25000 Mb/s"), std::string::npos) << x.message;
    EXPECT_NE(x.message.find("and 1 more"), std::string::npos) << x.message;  // node02's
    EXPECT_NE(x.remedy.find("NCCL_SOCKET_IFNAME=enP1p1s0f0 "), std::string::npos) << x.remedy;
    EXPECT_EQ(x.evidence["uses"].size(), 2u);
  }
  EXPECT_EQ(f[0].evidence["setting"], "NCCL bootstrap (log)");
  EXPECT_EQ(f[1].evidence["setting"], "NCCL NET/Socket (log)");
  for (auto& host : r.nics) host[1].data = true;  // both NICs data: NCCL is where it should be
  model::assign_rails(r);
  EXPECT_TRUE(report::nics_findings(with_log(r, log)).empty());
}

TEST(NicsNcclLog, BootstrapOnTheManagementNicFiresAndOnADataNicStaysQuiet) {
  const auto mgmt = parse::parse_nccl_log(bootstrap_log(4, "mgmt0", "198.18.9"));
  const auto f = report::nics_findings(with_log(measured(4), mgmt));
  ASSERT_EQ(f.size(), 1u);  // bootstrap only: NCCL's data went over IB, its NET/Socket list is not data
  EXPECT_EQ(f[0].code, "NICS_MGMT_IN_USE");
  EXPECT_NE(
      f[0].message.find("bootstrap interface per job.log: h1.cluster mgmt0:198.18.9.1 (the management "
                        "NIC, not a data NIC; 1000 Mb/s against the data NICs' 100000 Mb/s; 198.18.9.1 "
                        "is on another network than the data NICs (198.18.1.0/24, 198.18.2.0/24)) and 3 "
                        "more"),
      std::string::npos)
      << f[0].message;
  EXPECT_NE(f[0].remedy.find("NCCL_SOCKET_IFNAME=eth0,eth1"), std::string::npos) << f[0].remedy;
  EXPECT_EQ(f[0].evidence["uses"].size(), 4u);
  EXPECT_EQ(f[0].evidence["uses"][0]["log_host"], "h1");

  EXPECT_TRUE(report::nics_findings(
                  with_log(measured(4), parse::parse_nccl_log(bootstrap_log(4, "eth1", "198.18.2"))))
                  .empty());
  // An interface the probe did not list: judged by its network. On a data rail (an alias of eth0) it is data;
  // loopback is another network.
  EXPECT_TRUE(
      report::nics_findings(with_log(measured(4), parse::parse_nccl_log(bootstrap_log(4, "ib0", "198.18.1"))))
          .empty());
  const auto lo =
      report::nics_findings(with_log(measured(2), parse::parse_nccl_log(bootstrap_log(2, "lo", "127.0.0"))));
  ASSERT_EQ(lo.size(), 1u);
  EXPECT_NE(lo[0].message.find("lo:127.0.0.1 (not a data NIC; 127.0.0.1 is on another network"),
            std::string::npos)
      << lo[0].message;
}

TEST(NicsNcclLog, OneCauseOneFindingAndUnmatchedHostsAreNotJudged) {
  auto r = with_log(measured(2), parse::parse_nccl_log(bootstrap_log(2, "mgmt0", "198.18.9")));
  r.env["NCCL_SOCKET_IFNAME"] = "mgmt";  // the setting that made NCCL pick mgmt0
  const auto f = report::nics_findings(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].evidence["setting"], "NCCL_SOCKET_IFNAME");
  ASSERT_EQ(f[0].evidence["nccl_log"].size(), 1u);
  EXPECT_EQ(f[0].evidence["nccl_log"][0]["uses"].size(), 2u);

  // The log's hosts are not the measured ones: nothing judged, and the section says so.
  auto other = measured(2);
  other.hosts = {"x1", "x2"};
  other = with_log(other, parse::parse_nccl_log(bootstrap_log(2, "mgmt0", "198.18.9")));
  ASSERT_EQ(other.nccl_log_hosts.size(), 2u);
  EXPECT_EQ(other.nccl_log_hosts[0].host_index, -1);
  EXPECT_TRUE(report::nics_findings(other).empty());
  const auto j = report::nics_json(other);
  EXPECT_EQ(j["nccl_log"]["path"], "job.log");
  EXPECT_TRUE(j["nccl_log"]["hosts"][0]["measured_host"].is_null());
  EXPECT_NE(report::render_nics(other).find("# nccl log job.log: h1 (not a measured host: not judged)"),
            std::string::npos);
}

}  // namespace fabcheck::nics_nccl_log_test
