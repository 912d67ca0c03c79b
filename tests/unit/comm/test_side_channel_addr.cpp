// Unit tests of the watchdog side channel's address choice: rank 0's addresses the other ranks try
// are the ones Open MPI's TCP BTL would use — btl_tcp_if_include (names or CIDR) else btl_tcp_if_exclude
// (default 127.0.0.1/8,sppp) — so that the heartbeats share the data path.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fabcheck/comm/side_channel_addr.hpp"

using fabcheck::comm::interface_matches;
using fabcheck::comm::InterfaceAddress;
using fabcheck::comm::ipv4_text;
using fabcheck::comm::side_channel_candidates;

namespace {

constexpr std::uint32_t ip(unsigned a, unsigned b, unsigned c, unsigned d) {
  return (a << 24) | (b << 16) | (c << 8) | d;
}

// A vfabric host: loopback, the data network and the management network (tests/fabric/vfabric up --mgmt).
const std::vector<InterfaceAddress> kHost = {
    {"lo", ip(127, 0, 0, 1)}, {"eth0", ip(198, 18, 0, 2)}, {"mgmt0", ip(198, 19, 1, 2)}};

std::vector<std::string> texts(const std::vector<InterfaceAddress>& v) {
  std::vector<std::string> out;
  for (const auto& a : v) out.push_back(a.ifname + "=" + ipv4_text(a.ipv4));
  return out;
}

}  // namespace

TEST(SideChannelAddr, MatchesNamesAndCidrBlocks) {
  const InterfaceAddress eth{"eth0", ip(198, 18, 0, 2)};
  EXPECT_TRUE(interface_matches(eth, "eth0"));
  EXPECT_TRUE(interface_matches(eth, "ib0, eth0"));
  EXPECT_TRUE(interface_matches(eth, "198.18.0.0/24"));
  EXPECT_TRUE(interface_matches(eth, "198.18.0.0/15"));
  EXPECT_TRUE(interface_matches(eth, "198.18.0.2"));  // a bare address is /32
  EXPECT_TRUE(interface_matches(eth, "0.0.0.0/0"));
  EXPECT_FALSE(interface_matches(eth, "198.18.1.0/24"));
  EXPECT_FALSE(interface_matches(eth, "198.18.0.3"));
  EXPECT_FALSE(interface_matches(eth, "eth"));  // names match exactly
  EXPECT_FALSE(interface_matches(eth, "198.18.0.0/33"));
  EXPECT_FALSE(interface_matches(eth, "198.18.0/24"));
  EXPECT_FALSE(interface_matches(eth, ""));
}

TEST(SideChannelAddr, DefaultExcludeDropsLoopbackOnly) {
  EXPECT_EQ(texts(side_channel_candidates(kHost, "", "")),
            (std::vector<std::string>{"eth0=198.18.0.2", "mgmt0=198.19.1.2"}));
}

TEST(SideChannelAddr, IncludeKeepsTheDataNetworkAsVfabricSetsIt) {
  // vfabric mpirun passes --mca btl_tcp_if_include 198.18.0.0/24: the heartbeats avoid the management
  // network, so a host whose data link is cut falls silent (fabric_watchdog_link_down).
  EXPECT_EQ(texts(side_channel_candidates(kHost, "198.18.0.0/24", "")),
            (std::vector<std::string>{"eth0=198.18.0.2"}));
  EXPECT_EQ(texts(side_channel_candidates(kHost, "mgmt0", "")),
            (std::vector<std::string>{"mgmt0=198.19.1.2"}));
  // include wins over exclude, as in Open MPI (which refuses both set)
  EXPECT_EQ(texts(side_channel_candidates(kHost, "eth0", "eth0")),
            (std::vector<std::string>{"eth0=198.18.0.2"}));
}

TEST(SideChannelAddr, ExcludeDropsWhatItNames) {
  EXPECT_EQ(texts(side_channel_candidates(kHost, "", "127.0.0.1/8,mgmt0")),
            (std::vector<std::string>{"eth0=198.18.0.2"}));
  // an exclude list without loopback keeps it (Open MPI would too), in getifaddrs order
  EXPECT_EQ(texts(side_channel_candidates(kHost, "", "mgmt0")),
            (std::vector<std::string>{"lo=127.0.0.1", "eth0=198.18.0.2"}));
}

TEST(SideChannelAddr, NothingLeftFallsBackToEveryNonLoopbackAddress) {
  // btl_tcp_if_include names an interface rank 0's host does not have (e.g. UCX clusters set it for other
  // hosts)
  EXPECT_EQ(texts(side_channel_candidates(kHost, "ib0", "")),
            (std::vector<std::string>{"eth0=198.18.0.2", "mgmt0=198.19.1.2"}));
  EXPECT_TRUE(side_channel_candidates({{"lo", ip(127, 0, 0, 1)}}, "", "").empty());
}
