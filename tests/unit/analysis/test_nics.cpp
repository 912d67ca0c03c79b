// The nics probe's pure parts: interface filters, subnets, rails and the NIC findings.
#include <gtest/gtest.h>

#include <algorithm>

#include "fabcheck/core/ascii.hpp"
#include "fabcheck/core/ifname_filter.hpp"
#include "fabcheck/model/nics.hpp"
#include "fabcheck/report/nics.hpp"

namespace fabcheck {
namespace {

TEST(IfnameFilter, SplitListTrimsAndDropsEmptyItems) {
  EXPECT_EQ(core::split_list("eth0, 10.0.0.0/24 ,,\teth1\r"),
            (std::vector<std::string>{"eth0", "10.0.0.0/24", "eth1"}));
  EXPECT_TRUE(core::split_list("").empty());
  EXPECT_TRUE(core::split_list(" , ").empty());
  EXPECT_EQ(core::split_list("^lo"), (std::vector<std::string>{"^lo"}));
}

TEST(IfnameFilter, FollowsNcclSocketIfnameSyntax) {
  EXPECT_TRUE(core::ifname_matches("eth", "eth0"));
  EXPECT_TRUE(core::ifname_matches("eth", "eth1"));
  EXPECT_FALSE(core::ifname_matches("eth", "mgmt0"));
  EXPECT_FALSE(core::ifname_matches("^lo,docker", "docker0"));
  EXPECT_TRUE(core::ifname_matches("^lo,docker", "eth0"));
  EXPECT_TRUE(core::ifname_matches("=eth0", "eth0"));
  EXPECT_FALSE(core::ifname_matches("=eth0", "eth01"));
  EXPECT_FALSE(core::ifname_matches("^=eth0", "eth0"));
  EXPECT_TRUE(core::ifname_matches("^=eth0", "eth01"));
  EXPECT_TRUE(core::ifname_matches("", "anything"));
}

TEST(IfnameFilter, Subnets) {
  EXPECT_EQ(core::ipv4_subnet(0xC6120703u, 24), "198.18.7.0/24");
  EXPECT_TRUE(core::ipv4_in_subnet("198.18.7.3", "198.18.7.0/24"));
  EXPECT_FALSE(core::ipv4_in_subnet("198.18.8.3", "198.18.7.0/24"));
  EXPECT_TRUE(core::ipv4_in_subnet("198.19.1.1", "198.18.0.0/15"));
  EXPECT_FALSE(core::ipv4_in_subnet("198.18.7.3", "198.18.7.0/33"));
  EXPECT_FALSE(core::ipv4_in_subnet("x", "198.18.7.0/24"));
}

// hosts x 2 rails (198.18.1.0/24, 198.18.2.0/24) + mgmt0; every NIC pair measured, `reach(from_rail,
// to_rail)` decides reachability, `bw` the bandwidth.
model::NicsResult fabric(int hosts, bool cross_rail) {
  model::NicsResult r;
  r.options.ifaces = "eth";
  for (int h = 0; h < hosts; ++h) {
    r.hosts.push_back("h" + std::to_string(h + 1));
    std::vector<model::NicInfo> v;
    for (int k = 0; k < 2; ++k)
      v.push_back({"eth" + std::to_string(k), "198.18." + std::to_string(k + 1) + "." + std::to_string(h + 1),
                   24, true, true, std::nullopt, -1});
    v.push_back({"mgmt0", "198.18.9." + std::to_string(h + 1), 24, true, false, std::nullopt, -1});
    r.nics.push_back(v);
  }
  for (int a = 0; a < hosts; ++a)
    for (int b = 0; b < hosts; ++b)
      for (int i = 0; a != b && i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
          model::NicLink l;
          l.from_host = a, l.from_nic = i, l.to_host = b, l.to_nic = j;
          l.reachable = cross_rail || i == j;
          if (l.reachable) {
            l.bw_gbps = 3.0 + 0.01 * (a + b + i);
            l.lat_p50_us = 20;
          } else {
            l.error = "timed out after 500 ms";
          }
          r.links.push_back(l);
        }
  return r;
}

std::vector<std::string> codes(const model::NicsResult& r) {
  std::vector<std::string> c;
  for (const auto& f : report::nics_findings(r)) c.push_back(f.code);
  return c;
}

TEST(NicsFindings, RailOnlyIsOneWarningAndCrossRailIsQuiet) {
  auto r = fabric(4, false);
  model::assign_rails(r);
  ASSERT_EQ(r.rails.size(), 2u);
  EXPECT_EQ(r.rails[0].subnet, "198.18.1.0/24");
  EXPECT_EQ(r.nics[0][2].rail, -1);  // mgmt0 is not a data NIC
  EXPECT_EQ(codes(r), std::vector<std::string>{"NICS_RAIL_ONLY"});
  EXPECT_EQ(report::nics_findings(r)[0].severity, report::Severity::kWarn);
  r.env["NCCL_CROSS_NIC"] = "0";
  EXPECT_EQ(report::nics_findings(r)[0].severity, report::Severity::kInfo);
  r.env["NCCL_CROSS_NIC"] = "1";
  EXPECT_EQ(report::nics_findings(r)[0].severity, report::Severity::kFail);
  auto c = fabric(4, true);
  model::assign_rails(c);
  EXPECT_TRUE(codes(c).empty());
  const auto m = report::rail_reachability(c);
  EXPECT_EQ(m[0][1].reachable, 12);
}

TEST(NicsFindings, ADeadNicIsNamedAndExplainsItsPairs) {
  auto r = fabric(4, false);
  for (auto& l : r.links)
    if ((l.from_host == 2 && l.from_nic == 1) || (l.to_host == 2 && l.to_nic == 1)) {
      l.reachable = false;
      l.bw_gbps.reset();
      l.error = "timed out after 500 ms";
    }
  model::assign_rails(r);
  const auto dead = report::nics_dead(r);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0], (std::pair<int, int>{2, 1}));
  const auto c = codes(r);
  EXPECT_EQ(c, (std::vector<std::string>{"NICS_NIC_DOWN", "NICS_RAIL_ONLY"}));
  EXPECT_EQ(report::nics_findings(r)[0].evidence["iface"], "eth1");
}

TEST(NicsFindings, MpiOnTheManagementSubnetIsCaught) {
  auto r = fabric(4, true);
  model::assign_rails(r);
  r.env["OMPI_MCA_btl_tcp_if_include"] = "198.18.9.0/24";
  auto f = report::nics_findings(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "NICS_MGMT_IN_USE");
  EXPECT_EQ(f[0].evidence["selects"], std::vector<std::string>{"mgmt0"});
  EXPECT_NE(f[0].remedy.find("btl_tcp_if_include eth0,eth1"), std::string::npos) << f[0].remedy;
  r.env["OMPI_MCA_btl_tcp_if_include"] = "eth0,198.18.9.0/24";  // a data NIC among them: fine
  EXPECT_TRUE(report::nics_findings(r).empty());
  r.env.erase("OMPI_MCA_btl_tcp_if_include");
  r.env["NCCL_SOCKET_IFNAME"] = "mgmt";
  EXPECT_EQ(codes(r), std::vector<std::string>{"NICS_MGMT_IN_USE"});
}

TEST(NicsFindings, DifferentNicCountsAreAWarning) {
  auto r = fabric(4, true);
  r.nics[3][1].data = false;
  std::erase_if(r.links, [](const model::NicLink& l) {
    return (l.from_host == 3 && l.from_nic == 1) || (l.to_host == 3 && l.to_nic == 1);
  });
  model::assign_rails(r);
  EXPECT_EQ(codes(r), std::vector<std::string>{"NICS_COUNT_MISMATCH"});
}

}  // namespace
}  // namespace fabcheck
