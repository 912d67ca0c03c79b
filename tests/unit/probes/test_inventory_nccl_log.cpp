// NCCL's log judged against the recorded hosts it ran on: the GID index in effect by NCCL version,
// NCCL_IB_HCA and NCCL_SOCKET_IFNAME syntax, over tests/data/sysfs models (read by the inventory probe) and
// the logs of tests/data/nccl-logs/log-host (README there: which thread each rebuilds).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "../support/text.hpp"
#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/parse/proc_net_ipv4.hpp"
#include "fabcheck/probes/inventory.hpp"
#include "fabcheck/report/log_host.hpp"
#include "fabcheck/report/transport_accumulator.hpp"

using namespace fabcheck;
using report::Severity;

namespace {

const std::string kLhSysfs = std::string(FABCHECK_TEST_DATA) + "/sysfs/";
const std::string kLhLogs = std::string(FABCHECK_TEST_DATA) + "/nccl-logs/log-host/";

model::HostInventory lh_host(const std::string& model, const std::string& name,
                             const std::map<std::string, std::string>& env = {}) {
  probes::InventoryOptions o;
  o.sysfs_root = kLhSysfs + model;
  o.etc_root = kLhSysfs + model + "/etc";
  o.use_verbs = false;
  o.run_nvidia_smi = false;
  if (std::filesystem::is_directory(kLhSysfs + model + "/proc")) o.proc_root = kLhSysfs + model + "/proc";
  const auto verbs = probes::make_system_verbs();
  return probes::collect_host_inventory(o, *verbs, env, name);
}

std::vector<report::Finding> lh_judge(const std::string& log,
                                      const std::vector<std::pair<std::string, std::string>>& hosts) {
  model::InventoryResult inv;
  for (const auto& [name, model] : hosts) inv.hosts.push_back(lh_host(model, name));
  return report::log_host_findings({parse::parse_nccl_log_file(kLhLogs + log)}, inv);
}

// The one finding of `log` judged against `hosts`, checked to be `code` at `severity` (and with one host, to
// name it); none (the test failed) when there is not exactly one.
std::optional<report::Finding> lh_only(const std::string& log,
                                       const std::vector<std::pair<std::string, std::string>>& hosts,
                                       const std::string& code, Severity severity) {
  const auto f = lh_judge(log, hosts);
  EXPECT_EQ(f.size(), 1u) << log;
  if (f.size() != 1) return std::nullopt;
  EXPECT_EQ(f[0].code, code);
  EXPECT_EQ(f[0].severity, severity);
  if (hosts.size() == 1) {
    EXPECT_EQ(f[0].evidence.at("host"), hosts[0].first);
  }
  return f[0];
}

const model::RdmaPort& lh_port(const model::HostInventory& h, const std::string& dev) {
  for (const auto& d : h.rdma_devices)
    if (d.name == dev) return d.ports.at(0);
  throw std::runtime_error("no device " + dev);
}

}  // namespace

TEST(LogHost, IfaceFilterFollowsNcclSyntax) {
  using report::iface_filter_selects;
  using report::parse_iface_filter;
  const auto prefix = parse_iface_filter("mlx5_1");
  EXPECT_TRUE(iface_filter_selects(prefix, "mlx5_1", 1));
  EXPECT_TRUE(iface_filter_selects(prefix, "mlx5_10", 1));  // a prefix without '='
  EXPECT_FALSE(iface_filter_selects(prefix, "mlx5_0", 1));
  const auto exact = parse_iface_filter("=mlx5_1");
  EXPECT_TRUE(exact.exact);
  EXPECT_FALSE(iface_filter_selects(exact, "mlx5_10", 1));
  const auto ports = parse_iface_filter("mlx5_0:1,mlx5_1:2");
  ASSERT_EQ(ports.entries.size(), 2u);
  EXPECT_TRUE(iface_filter_selects(ports, "mlx5_0", 1));
  EXPECT_FALSE(iface_filter_selects(ports, "mlx5_0", 2));
  EXPECT_TRUE(iface_filter_selects(ports, "mlx5_1", 2));
  const auto not_ = parse_iface_filter("^=mlx5_0,mlx5_1");
  EXPECT_TRUE(not_.exclude && not_.exact);
  EXPECT_FALSE(iface_filter_selects(not_, "mlx5_0", 1));
  EXPECT_TRUE(iface_filter_selects(not_, "mlx5_2", 1));
  EXPECT_TRUE(iface_filter_selects(parse_iface_filter("^lo,docker"), "ens3np0", -1));
  EXPECT_FALSE(iface_filter_selects(parse_iface_filter("^lo,docker"), "docker0", -1));
  EXPECT_TRUE(iface_filter_selects(parse_iface_filter(""), "anything", -1));
}

TEST(LogHost, GidIndexInEffectByVersion) {
  using report::gid_index_in_effect;
  const auto old_default = gid_index_in_effect({}, 21803);
  ASSERT_TRUE(old_default.index);
  EXPECT_EQ(*old_default.index, 0);
  EXPECT_FALSE(old_default.automatic);
  testing_fixtures::expect_contains(old_default.source, {"NCCL 2.18.3 uses its default index 0"});
  EXPECT_FALSE(gid_index_in_effect({}, 22005).automatic);  // 2.20.5: still 0
  const auto automatic = gid_index_in_effect({}, 22304);
  EXPECT_TRUE(automatic.automatic);
  EXPECT_FALSE(automatic.index);
  EXPECT_TRUE(gid_index_in_effect({}, 22105).automatic);  // 2.21.5: the first
  const auto env = gid_index_in_effect({{"NCCL_IB_GID_INDEX", "3"}}, 22304);
  ASSERT_TRUE(env.index);
  EXPECT_EQ(*env.index, 3);
  EXPECT_TRUE(env.from_env);
  EXPECT_TRUE(gid_index_in_effect({{"NCCL_IB_GID_INDEX", "-1"}}, 22304).automatic);
  const auto unknown = gid_index_in_effect({}, 0);
  EXPECT_FALSE(unknown.index || unknown.automatic);
  EXPECT_TRUE(gid_index_in_effect({}, 0, 0, 21899).index);      // inferred <= 2.18: index 0
  EXPECT_TRUE(gid_index_in_effect({}, 0, 22400, 0).automatic);  // inferred >= 2.24: automatic
}

TEST(LogHost, AutomaticSelectionReplaysNccl) {
  using report::nccl_auto_gid_index;
  // 0/1 link-local v1/v2, 2/3 IPv4 v1/v2 (NVIDIA/nccl#769): the IPv4 RoCE v2 slot.
  EXPECT_EQ(nccl_auto_gid_index(lh_port(lh_host("h-roce-bond-gid0-linklocal", "a"), "mlx5_bond_0"), {}), 3);
  // RoCE v1 wanted: the IPv4 RoCE v1 slot.
  EXPECT_EQ(nccl_auto_gid_index(lh_port(lh_host("h-roce-bond-gid0-linklocal", "a"), "mlx5_bond_0"),
                                {{"NCCL_IB_ROCE_VERSION_NUM", "1"}}),
            2);
  // Sparse tables of pods (slots of other namespaces empty): 7 and 11.
  EXPECT_EQ(nccl_auto_gid_index(lh_port(lh_host("b3-roce-sparse-gid-pod", "a"), "mlx5_0"), {}), 7);
  EXPECT_EQ(nccl_auto_gid_index(lh_port(lh_host("b5-roce-sparse-gid-pod-at-11", "a"), "mlx5_0"), {}), 11);
  // Two link-local pairs before the IPv4 one (model B2): 5.
  EXPECT_EQ(nccl_auto_gid_index(lh_port(lh_host("b2-roce-gid-ipv4-at-4-5", "a"), "mlx5_0"), {}), 5);
  // AF_INET6 wanted and only link-local IPv6 GIDs: NCCL stays at 0.
  EXPECT_EQ(nccl_auto_gid_index(lh_port(lh_host("h-roce-bond-gid0-linklocal", "a"), "mlx5_bond_0"),
                                {{"NCCL_IB_ADDR_FAMILY", "AF_INET6"}}),
            0);
}

// One host whose index 0 is link-local: NCCL 2.18 uses 0, NCCL 2.23 selects 3 itself.
TEST(LogHost, Roce218DefaultIndexZeroVersus223Automatic) {
  const std::vector<std::pair<std::string, std::string>> host = {{"gpu-a", "h-roce-bond-gid0-linklocal"}};
  auto f = lh_only("lh01-roce-gid-default-0-2.18.3.log", host, "GID_INDEX_NOT_ROCEV2", Severity::kWarn);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->evidence.at("gid_index"), 0);
  testing_fixtures::expect_contains(f->message, {"NCCL 2.18.3 uses its default index 0", "RoCE v1 GID"});
  EXPECT_EQ(f->remedy, "set NCCL_IB_GID_INDEX=3 (the IPv4 RoCE v2 GID on every host and port checked)");
  EXPECT_TRUE(lh_judge("lh02-roce-gid-auto-2.23.4.log", host).empty());
}

// NVIDIA/nccl#769: NCCL_IB_GID_INDEX=1 is the link-local RoCE v2 GID; the modify_qp timeout confirms it.
TEST(LogHost, LinkLocalIndexWithTimeoutIsFail) {
  auto f = lh_only("lh03-roce-gid1-linklocal-timeout.log", {{"gpu-a", "h-roce-bond-gid0-linklocal"}},
                   "GID_LINK_LOCAL", Severity::kFail);
  ASSERT_TRUE(f);
  testing_fixtures::expect_contains(f->message, {"Connection timed out"});
  EXPECT_EQ(f->remedy, "set NCCL_IB_GID_INDEX=3 (the IPv4 RoCE v2 GID on every host and port checked)");
}

// NVIDIA/nccl#890 / PR #1427: one job-wide index (7) fits container A, names an empty slot on container B
// (11).
TEST(LogHost, JobWideIndexRemedyByVersion) {
  const std::vector<std::pair<std::string, std::string>> pods = {{"pod-a", "b3-roce-sparse-gid-pod"},
                                                                 {"pod-b", "b5-roce-sparse-gid-pod-at-11"}};
  auto old_nccl = lh_only("lh04-macvlan-job-wide-gid7-2.18.6.log", pods, "GID_TABLES_DIFFER",
                          Severity::kFail);  // an empty slot cannot route
  ASSERT_TRUE(old_nccl);
  EXPECT_EQ(old_nccl->evidence.at("hosts_wrong"), nlohmann::json::array({"pod-b"}));
  testing_fixtures::expect_contains(old_nccl->message, {"on pod-a but not on pod-b"});
  EXPECT_EQ(
      old_nccl->remedy,
      "set NCCL_IB_GID_INDEX per host (the IPv4 RoCE v2 GID: pod-a mlx5_0:1 7; pod-b mlx5_0:1 11) in each "
      "host's /etc/nccl.conf or launcher environment, or use NCCL >= 2.21 and leave it unset (it selects "
      "per host)");
  auto new_nccl = lh_judge("lh05-macvlan-job-wide-gid7-2.23.4.log", pods);
  ASSERT_EQ(new_nccl.size(), 1u);
  EXPECT_EQ(new_nccl[0].code, "GID_TABLES_DIFFER");
  EXPECT_EQ(
      new_nccl[0].remedy,
      "leave NCCL_IB_GID_INDEX unset: this NCCL (>= 2.21) then selects the IPv4 RoCE v2 GID on each host "
      "itself (pod-a mlx5_0:1 7; pod-b mlx5_0:1 11)");
}

TEST(LogHost, IbHcaMatchingNoDeviceIsFailWhenNcclFellToSockets) {
  auto f = lh_only("lh06-ib-hca-no-match-socket-2.21.5.log", {{"node05", "b-roce-2nic"}},
                   "NCCL_IB_HCA_NO_MATCH", Severity::kFail);
  ASSERT_TRUE(f);
  testing_fixtures::expect_contains(f->message, {"NCCL_IB_HCA=mlx5_2,mlx5_3 matches no RDMA device"});
  EXPECT_EQ(
      f->remedy,
      "set NCCL_IB_HCA on node05 to devices it has (mlx5_0:1,mlx5_1:1; a leading = matches names exactly, ^ "
      "excludes) or unset it");
}

// NVIDIA/nccl#1837: NCCL_SOCKET_IFNAME=eth2 on a host without eth2.
TEST(LogHost, SocketIfnameMatchingNoInterface) {
  auto f = lh_only("lh07-socket-ifname-eth2-missing-2.27.7.log", {{"twshared1016", "b-roce-2nic"}},
                   "SOCKET_IFNAME_NO_MATCH", Severity::kFail);
  ASSERT_TRUE(f);
  testing_fixtures::expect_contains(f->remedy, {"(eno1, ens2np0, ens3np0)"});
  EXPECT_EQ(f->remedy.find("lo,"), std::string::npos) << f->remedy;
}

// A host with no name is the log's only host; a log host with no inventory is not judged.
TEST(LogHost, HostMatching) {
  model::InventoryResult unnamed;
  unnamed.hosts.push_back(lh_host("h-roce-bond-gid0-linklocal", ""));
  const auto log = parse::parse_nccl_log_file(kLhLogs + "lh01-roce-gid-default-0-2.18.3.log");
  EXPECT_EQ(report::log_host_findings({log}, unnamed).size(), 1u);
  model::InventoryResult other;
  other.hosts.push_back(lh_host("h-roce-bond-gid0-linklocal", "gpu-z"));
  EXPECT_TRUE(report::log_host_findings({log}, other).empty());
  model::InventoryResult fqdn;
  fqdn.hosts.push_back(lh_host("h-roce-bond-gid0-linklocal", "gpu-a.cluster.example"));
  EXPECT_EQ(report::log_host_findings({log}, fqdn).size(), 1u);
  EXPECT_EQ(report::log_host_names({log}), std::vector<std::string>{"gpu-a"});
}

// The inventory already judged the launcher's same NCCL_IB_GID_INDEX (inventory.cpp): not repeated as a warn.
TEST(LogHost, NotRepeatedWhenTheInventoryJudgedTheSameIndex) {
  model::InventoryResult inv;
  inv.hosts.push_back(lh_host("h-roce-bond-gid0-linklocal", "gpu-a", {{"NCCL_IB_GID_INDEX", "1"}}));
  auto log = parse::parse_nccl_log(
      "gpu-a:1:1 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 1.\n"
      "gpu-a:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n"
      "gpu-a:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_bond_0:1/RoCE [RO]; OOB bond0:200.0.209.6<0>\n");
  EXPECT_TRUE(report::log_host_findings({log}, inv).empty());
  // With the timeout in the log it is confirmed: a fail, shown.
  auto failed = parse::parse_nccl_log_file(kLhLogs + "lh03-roce-gid1-linklocal-timeout.log");
  ASSERT_EQ(report::log_host_findings({failed}, inv).size(), 1u);
}

// Every recorded model, judged with NCCL 2.23 and nothing set: only the pod whose table has no IPv4 RoCE v2
// GID could give a finding, and none of the models does (their healthy state stays healthy).
TEST(LogHost, HealthyModelsGiveNothingOnAutomaticSelection) {
  for (const auto& e : std::filesystem::directory_iterator(kLhSysfs)) {
    if (!e.is_directory()) continue;
    model::InventoryResult inv;
    inv.hosts.push_back(lh_host(e.path().filename(), "host"));
    auto log = parse::parse_nccl_log("host:1:1 [0] NCCL INFO NCCL version 2.23.4+cuda12.6\n");
    const auto f = report::log_host_findings({log}, inv);
    if (e.path().filename() == "n-roce-gid-vlan-down") {
      // Not healthy by design: NCCL's selection (ncclIbGetGidIndex looks at type and family, not the
      // netdev's state) takes index 3 on the VLAN that is down; without a log error it is a warning.
      ASSERT_EQ(f.size(), 1u);
      EXPECT_EQ(f[0].code, "GID_NETDEV_DOWN");
      EXPECT_EQ(f[0].severity, Severity::kWarn);
      continue;
    }
    EXPECT_TRUE(f.empty()) << e.path().filename() << ": "
                           << (f.empty() ? "" : f[0].code + " " + f[0].message);
  }
}

// run --backend nccl: the accumulator runs the cross-checks once it holds logs and inventories.
TEST(LogHost, AccumulatorRunsTheCrossChecks) {
  model::InventoryResult inv;
  inv.hosts.push_back(lh_host("h-roce-bond-gid0-linklocal", "gpu-a"));
  report::TransportAccumulator acc;
  acc.add_inventories(inv, {});
  auto codes = [&] {
    std::vector<std::string> c;
    for (const auto& f : acc.result().findings) c.push_back(f.code);
    return c;
  };
  const auto before = codes();
  EXPECT_EQ(std::count(before.begin(), before.end(), "GID_INDEX_NOT_ROCEV2"), 0);
  acc.add_nccl_logs({parse::parse_nccl_log_file(kLhLogs + "lh01-roce-gid-default-0-2.18.3.log")}, {}, {});
  const auto c = codes();
  EXPECT_EQ(std::count(c.begin(), c.end(), "GID_INDEX_NOT_ROCEV2"), 1);
}

namespace {

std::vector<std::string> lh_codes(const std::vector<report::Finding>& f) {
  std::vector<std::string> c;
  for (const auto& x : f) c.push_back(x.code);
  return c;
}

}  // namespace

// NVIDIA/nccl-tests#185: ibv_modify_qp "Network is unreachable" with NCCL_IB_GID_INDEX=3, rebuilt as index 3
// on a VLAN netdev that is down (the kernel's ENETUNREACH): one fail naming the netdev, the remedy to bring
// it up.
TEST(LogHost, UnreachableIsTheGidsNetdevDown) {
  const auto f =
      lh_judge("lh08-roce-gid-netdev-down-unreachable.log", {{"dgxh100-3", "n-roce-gid-vlan-down"}});
  ASSERT_EQ(lh_codes(f), std::vector<std::string>{"GID_NETDEV_DOWN"});
  EXPECT_EQ(f[0].severity, Severity::kFail);
  testing_fixtures::expect_contains(
      f[0].message,
      {"dgxh100-3: NCCL's GID index 3 on mlx5_0 port 1 belongs to ens3np0.100", "Network is unreachable"});
  EXPECT_EQ(f[0].evidence.value("netdev", ""), "ens3np0.100");
  EXPECT_EQ(f[0].evidence.value("admin_up", true), false);
  testing_fixtures::expect_contains(f[0].remedy, {"ip link set ens3np0.100 up"});
}

// A routed-rail fabric: rail-1 has no route out of its RoCE netdevs to rail-2's GID addresses (QP setup timed
// out): one fail per RoCE port of rail-1, none for rail-2 (routed); the routed twin of rail-1 gives none.
TEST(LogHost, L3RailWithoutRouteTimesOut) {
  const auto f = lh_judge("lh09-roce-l3-rail-no-route-2.23.4.log",
                          {{"rail-1", "n2-roce-l3-rail-no-route"}, {"rail-2", "n3-roce-l3-rail-peer"}});
  ASSERT_EQ(lh_codes(f), (std::vector<std::string>{"GID_PEER_NO_ROUTE", "GID_PEER_NO_ROUTE"}));
  for (const auto& x : f) {
    EXPECT_EQ(x.severity, Severity::kFail);
    EXPECT_EQ(x.evidence.value("host", ""), "rail-1");
    EXPECT_EQ(x.evidence.value("gid_index", -1), 3);
    testing_fixtures::expect_contains(x.message, {"198.51.100.18 (rail-2)", "Connection timed out"});
  }
  testing_fixtures::expect_contains(f[0].message, {"no route out of ens3np0"});
  testing_fixtures::expect_contains(f[1].message, {"no route out of ens2np0"});
  testing_fixtures::expect_contains(f[0].remedy, {"dev ens3np0"});
  const auto routed = lh_judge("lh09-roce-l3-rail-no-route-2.23.4.log",
                               {{"rail-1", "n4-roce-l3-rail-routed"}, {"rail-2", "n3-roce-l3-rail-peer"}});
  EXPECT_TRUE(routed.empty()) << routed.size() << " findings, first " << routed.at(0).message;
}

// The routes the inventory records per interface and the longest-prefix choice restricted to one netdev.
TEST(LogHost, RoutesPerInterfaceFromProcNetRoute) {
  const auto h = lh_host("n4-roce-l3-rail-routed", "rail-1");
  std::vector<std::string> ens3;
  for (const auto& n : h.net_interfaces)
    if (n.name == "ens3np0") ens3 = n.ipv4_routes;
  EXPECT_EQ(ens3, (std::vector<std::string>{"198.51.100.8/29", "198.51.100.0/26 via 198.51.100.9"}));
  std::vector<std::pair<std::string, std::string>> routes;
  for (const auto& r : ens3) routes.emplace_back("ens3np0", r);
  const auto hit = parse::ipv4_route_of(routes, "198.51.100.18");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->route, "198.51.100.0/26 via 198.51.100.9");
  EXPECT_EQ(parse::ipv4_route_of(routes, "198.51.100.12")->route, "198.51.100.8/29");  // the longer prefix
  EXPECT_FALSE(parse::ipv4_route_of(routes, "198.51.100.82"));                         // rail 1's subnet
  EXPECT_FALSE(parse::ipv4_route_of(routes, "not-an-address"));
}

// NVIDIA/nccl#928: completion status 4 (LOC_PROT_ERR) on a host whose GPU-NIC path has ACS redirect (or an
// IOMMU translating DMA): one fail naming the fact; the host with ACS off gives nothing.
TEST(LogHost, LocalProtectionErrorTiedToAcs) {
  const auto f = lh_judge("lh10-ib-loc-prot-err-acs.log", {{"gpu-n1", "h-acs-redirect-plx"}});
  ASSERT_EQ(lh_codes(f), std::vector<std::string>{"LOC_PROT_ERR_HOST_FACTS"});
  EXPECT_EQ(f[0].severity, Severity::kFail);
  testing_fixtures::expect_contains(f[0].message, {"gpu-n1: the log's local protection error", "ACS"});
  testing_fixtures::expect_contains(f[0].remedy, {"NCCL_NET_GDR_LEVEL=0"});
  EXPECT_EQ(f[0].evidence.at("host_facts").at(0).value("code", ""), "PCIE_ACS_REDIRECT");
  const auto iommu = lh_judge("lh10-ib-loc-prot-err-acs.log", {{"gpu-n1", "i-iommu-translated"}});
  ASSERT_EQ(lh_codes(iommu), std::vector<std::string>{"LOC_PROT_ERR_HOST_FACTS"});
  EXPECT_EQ(iommu[0].evidence.at("host_facts").at(0).value("code", ""), "IOMMU_TRANSLATED");
  EXPECT_TRUE(lh_judge("lh10-ib-loc-prot-err-acs.log", {{"gpu-n1", "h2-acs-off-plx"}}).empty());
}
