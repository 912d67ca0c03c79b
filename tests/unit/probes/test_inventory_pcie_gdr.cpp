// The inventory's PCIe config space, IOMMU, GPUDirect RDMA refinements and cross-host consistency, over the
// host models h-* .. l-* of tests/data/sysfs (each README says what it rebuilds) and hand-built config bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "fabcheck/parse/proc_net_ipv4.hpp"
#include "fabcheck/probes/inventory.hpp"
#include "fabcheck/probes/pcie_config.hpp"
#include "fabcheck/report/inventory.hpp"
#include "sysfs_model_host.hpp"

using namespace fabcheck;

namespace {

model::HostInventory pcie_host(const std::string& model, const std::string& host = "host",
                               bool proc = false) {
  return testing_fixtures::sysfs_model_host(model, host, {}, proc);
}

std::vector<report::Finding> pcie_findings(const std::vector<model::HostInventory>& hosts) {
  return testing_fixtures::inventory_findings_of(hosts);
}

std::vector<report::Finding> with_code(const std::vector<report::Finding>& f, const std::string& code) {
  std::vector<report::Finding> out;
  std::copy_if(f.begin(), f.end(), std::back_inserter(out), [&](const auto& x) { return x.code == code; });
  return out;
}

/// Config bytes with an Express capability at `exp` (Device Control `devctl`) and, when acs >= 0, an ACS
/// extended capability at 0x100 behind a first extended capability (AER, ID 0x0001) at 0x100 → 0x140.
std::vector<std::uint8_t> cfg(std::size_t size, int devctl, int acs = -1, std::size_t exp = 0x60) {
  std::vector<std::uint8_t> b(size, 0);
  auto put16 = [&](std::size_t o, int v) {
    b[o] = static_cast<std::uint8_t>(v & 0xff);
    b[o + 1] = static_cast<std::uint8_t>((v >> 8) & 0xff);
  };
  if (size < 256) return b;
  put16(0x06, 0x0010);
  b[0x34] = 0x40;
  b[0x40] = 0x01;  // PM capability first, then the Express capability
  b[0x41] = static_cast<std::uint8_t>(exp);
  b[exp] = 0x10;
  put16(exp + 2, 0x0062);  // version 2, type 6 (downstream port)
  b[exp + 4] = 0x01;       // DEVCAP payload 256
  put16(exp + 8, devctl);
  if (acs >= 0 && size >= 4096) {
    put16(0x100, 0x0001);  // AER
    put16(0x102, 0x1 | (0x140 << 4));
    put16(0x140, 0x000d);
    put16(0x142, 0x0001);
    put16(0x144, 0x007f);
    put16(0x146, acs);
  }
  return b;
}

/// The findings of one model, asserting their count and that all are warnings with `code`.
std::vector<report::Finding> warns_of(const std::string& model, std::size_t n, const std::string& code) {
  auto f = pcie_findings({pcie_host(model)});
  EXPECT_EQ(f.size(), n) << model;
  for (const auto& x : f) {
    EXPECT_EQ(x.code, code) << model;
    EXPECT_EQ(x.severity, report::Severity::kWarn) << model;
  }
  return f;
}

}  // namespace

TEST(PcieConfig, DecodesDeviceControlAndAcs) {
  auto c = probes::parse_pcie_config(cfg(4096, 0x593e, 0x001d));
  EXPECT_EQ(c.config_bytes, 4096);
  ASSERT_TRUE(c.express_port_type && c.devctl && c.relaxed_ordering);
  EXPECT_EQ(*c.express_port_type, 6);
  EXPECT_EQ(*c.devctl, 0x593e);
  EXPECT_TRUE(*c.relaxed_ordering);
  EXPECT_EQ(*c.max_payload_bytes, 256);
  EXPECT_EQ(*c.max_read_request_bytes, 4096);
  EXPECT_EQ(*c.max_payload_supported_bytes, 256);
  ASSERT_TRUE(c.acs_ctrl);
  EXPECT_EQ(*c.acs_ctrl, 0x001d);
  EXPECT_EQ(*c.acs_cap, 0x007f);
  EXPECT_EQ(model::acs_bit_names(*c.acs_ctrl),
            (std::vector<std::string>{"SrcValid", "ReqRedir", "CmpltRedir", "UpstreamFwd"}));
  auto no_ro = probes::parse_pcie_config(cfg(4096, 0x592e));
  EXPECT_FALSE(*no_ro.relaxed_ordering);
  EXPECT_FALSE(no_ro.acs_ctrl);  // no extended capability at all
  EXPECT_TRUE(no_ro.extended_read);
}

TEST(PcieConfig, ShortAndMalformedReads) {
  auto user = probes::parse_pcie_config(cfg(64, 0));  // unprivileged read: header only
  EXPECT_EQ(user.config_bytes, 64);
  EXPECT_FALSE(user.devctl);
  EXPECT_FALSE(user.extended_read);
  auto legacy = probes::parse_pcie_config(cfg(256, 0x2936, 0x001d));  // 256 bytes: no extended space
  EXPECT_EQ(*legacy.max_read_request_bytes, 512);
  EXPECT_FALSE(legacy.acs_ctrl);
  EXPECT_FALSE(legacy.extended_read);
  auto loop = cfg(4096, 0x0010);
  loop[0x61] = 0x40;  // Express capability's next points back to the first: the walk must end
  loop[0x60] = 0x05;  // and it is no longer an Express capability
  EXPECT_FALSE(probes::parse_pcie_config(loop).devctl);
  auto ext_loop = cfg(4096, 0x0010, 0);
  ext_loop[0x102] = 0x01;  // AER's next = 0x100 (itself)
  ext_loop[0x103] = 0x10;
  EXPECT_FALSE(probes::parse_pcie_config(ext_loop).acs_ctrl);
  EXPECT_FALSE(probes::parse_pcie_config({}).devctl);
}

TEST(ProcNet, LocalAddressesFromFibTrieAndRoute) {
  const char* trie =
      "Main:\n  +-- 0.0.0.0/0 3 0 5\n     |-- 0.0.0.0\n        /0 universe UNICAST\nLocal:\n"
      "  +-- 0.0.0.0/0 3 0 5\n     |-- 10.0.2.15\n        /32 host LOCAL\n     |-- 10.0.2.255\n"
      "        /32 link BROADCAST\n     |-- 172.17.0.1\n        /32 host LOCAL\n     +-- 127.0.0.0/8 2 0 2\n"
      "        |-- 127.0.0.1\n           /32 host LOCAL\n";
  const char* route =
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
      "eth0\t00000000\t0202000A\t0003\t0\t0\t100\t00000000\t0\t0\t0\n"
      "eth0\t0002000A\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n"
      "docker0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n";
  auto a = parse::parse_local_ipv4(trie, route);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].iface, "docker0");
  EXPECT_EQ(a[0].address, "172.17.0.1");
  EXPECT_EQ(a[0].prefix_len, 16);
  EXPECT_EQ(a[1].iface, "eth0");
  EXPECT_EQ(a[1].address, "10.0.2.15");
  EXPECT_EQ(a[1].prefix_len, 24);
  EXPECT_TRUE(parse::parse_local_ipv4("garbage", "").empty());
}

TEST(InventoryPcieGdr, H_AcsRedirectOnPlxSwitch) {
  auto h = pcie_host("h-acs-redirect-plx");
  ASSERT_EQ(h.pci_bridges.size(), 8u);  // 2 x (root port, USP, 2 DSPs)
  auto f = with_code(pcie_findings({h}), "PCIE_ACS_REDIRECT");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].severity, report::Severity::kWarn);
  EXPECT_EQ(f[0].evidence["gpu"], 0);
  EXPECT_EQ(f[0].evidence["gpu_bdf"], "0000:04:00.0");
  EXPECT_EQ(f[0].evidence["nic"], "mlx5_0");
  EXPECT_EQ(f[0].evidence["nic_bdf"], "0000:05:00.0");
  EXPECT_EQ(f[0].evidence["bridge"], "0000:03:08.0");
  ASSERT_EQ(f[0].evidence["bridges"].size(), 2u);
  EXPECT_EQ(f[0].evidence["bridges"][1]["bdf"], "0000:03:10.0");
  EXPECT_EQ(f[0].evidence["bridges"][0]["vendor"], "0x10b5");
  EXPECT_NE(f[0].message.find("ACSCtl 0x001d SrcValid+ ReqRedir+ CmpltRedir+ UpstreamFwd+"),
            std::string::npos)
      << f[0].message;
  EXPECT_NE(f[0].remedy.find("setpci -s 0000:03:08.0 ECAP_ACS+0x6.w=0000"), std::string::npos);
  EXPECT_EQ(f[1].evidence["bridge"], "0000:83:08.0");
  for (const auto& r : report::gpu_rails(h)) {
    EXPECT_FALSE(r.gdr_eligible);
    EXPECT_EQ(r.gdr_blocked_by.rfind("ACS ", 0), 0u);
  }
  // The control: ACS off → nothing, GDR eligible; the other registers decoded from the files.
  auto off = pcie_host("h2-acs-off-plx");
  EXPECT_TRUE(pcie_findings({off}).empty());
  for (const auto& r : report::gpu_rails(off)) EXPECT_TRUE(r.gdr_eligible);
  const auto& nic = *off.rdma_devices[0].pci;
  EXPECT_TRUE(*nic.config.relaxed_ordering);
  EXPECT_EQ(*nic.config.max_payload_bytes, 256);
  EXPECT_EQ(*nic.config.max_read_request_bytes, 4096);
  EXPECT_EQ(nic.driver, "mlx5_core");
  EXPECT_EQ(off.rdma_devices[0].driver, "mlx5_core");
  EXPECT_EQ(off.rdma_devices[0].protocol, "InfiniBand");
  EXPECT_EQ(*nic.iommu_group, 15);  // groups 10-13 the bridges, 14 the GPU
  EXPECT_EQ(nic.iommu_group_type, "identity");
  ASSERT_TRUE(off.gpus[0].bar1_bytes);
  EXPECT_EQ(*off.gpus[0].bar1_bytes, 32ull << 30);
  EXPECT_EQ(off.gpus[0].pci.driver, "nvidia");
  // The JSON form round-trips the new facts.
  auto back = probes::host_inventory_from_json_text(probes::to_json_text(h));
  EXPECT_EQ(probes::to_json_text(back), probes::to_json_text(h));
  EXPECT_EQ(*back.pci_bridges[2].config.acs_ctrl, 0x001d);
}

TEST(InventoryPcieGdr, I_IommuTranslated) {
  auto h = pcie_host("i-iommu-translated");
  EXPECT_EQ(h.iommu.units, (std::vector<std::string>{"dmar0"}));
  EXPECT_EQ(h.iommu.group_count, 12);
  auto f = warns_of("i-iommu-translated", 1, "IOMMU_TRANSLATED");
  ASSERT_EQ(f.size(), 1u);
  ASSERT_EQ(f[0].evidence["devices"].size(), 4u);
  EXPECT_EQ(f[0].evidence["devices"][0]["device"], "GPU0");
  EXPECT_EQ(f[0].evidence["devices"][0]["type"], "DMA-FQ");
  EXPECT_EQ(f[0].evidence["devices"][1]["device"], "mlx5_0");
  EXPECT_NE(f[0].remedy.find("iommu=pt"), std::string::npos);
}

TEST(InventoryPcieGdr, J_RelaxedOrderingOffOnAmd) {
  auto f = warns_of("j-amd-relaxed-ordering-off", 2, "PCIE_RELAXED_ORDERING_OFF");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].evidence["device"], "mlx5_0");
  EXPECT_EQ(f[0].evidence["bdf"], "0000:05:00.0");
  EXPECT_EQ(f[0].evidence["root_port"], "0000:00:02.0");
  EXPECT_EQ(f[0].evidence["root_port_vendor"], "0x1022");
  EXPECT_EQ(f[0].evidence["devctl"], 0x592e);
  EXPECT_NE(f[0].remedy.find("setpci -s 0000:05:00.0 CAP_EXP+8.w=0010:0010"), std::string::npos);
  EXPECT_EQ(f[1].evidence["device"], "mlx5_1");
  // The same NICs below Intel root ports: no finding (the rule is AMD's).
  EXPECT_TRUE(with_code(pcie_findings({pcie_host("h2-acs-off-plx")}), "PCIE_RELAXED_ORDERING_OFF").empty());
}

TEST(InventoryPcieGdr, K_Docker0SameAddressOnTwoHosts) {
  auto h1 = pcie_host("k-docker0-virbr0-host1", "node1", true);
  auto h2 = pcie_host("k2-docker0-virbr0-host2", "node2", true);
  auto docker = std::find_if(h1.net_interfaces.begin(), h1.net_interfaces.end(),
                             [](const auto& n) { return n.name == "docker0"; });
  ASSERT_NE(docker, h1.net_interfaces.end());
  EXPECT_EQ(docker->ipv4, (std::vector<std::string>{"172.17.0.1/16"}));
  EXPECT_TRUE(*docker->admin_up);
  auto f = pcie_findings({h1, h2});
  auto dup = with_code(f, "IPV4_DUPLICATE_ACROSS_HOSTS");
  ASSERT_EQ(dup.size(), 2u);
  EXPECT_EQ(dup[0].evidence["address"], "172.17.0.1");
  EXPECT_EQ(dup[0].evidence["interface"], "docker0");
  EXPECT_EQ(dup[0].evidence["hosts"], (nlohmann::json{{"node1", "docker0"}, {"node2", "docker0"}}));
  EXPECT_EQ(dup[1].evidence["address"], "192.168.122.1");
  EXPECT_EQ(dup[1].evidence["interface"], "virbr0");
  EXPECT_EQ(dup[0].severity, report::Severity::kWarn);
  auto mpi = with_code(f, "MPI_TCP_IF_DEFAULT");
  ASSERT_EQ(mpi.size(), 1u);
  EXPECT_EQ(mpi[0].severity, report::Severity::kWarn);
  EXPECT_TRUE(mpi[0].evidence["hosts"].contains("node1") && mpi[0].evidence["hosts"].contains("node2"));
  EXPECT_NE(mpi[0].message.find("docker0 172.17.0.1/16"), std::string::npos) << mpi[0].message;
  EXPECT_NE(mpi[0].remedy.find("--mca btl_tcp_if_include eno1"), std::string::npos) << mpi[0].remedy;
  EXPECT_EQ(f.size(), 3u);
  // btl_tcp_if_include set (here through the environment): MPI's choice is made, the duplicate stays.
  h1.mpi_config.effective["btl_tcp_if_include"] = "eno1";
  h2.mpi_config.effective["btl_tcp_if_include"] = "eno1";
  f = pcie_findings({h1, h2});
  EXPECT_TRUE(with_code(f, "MPI_TCP_IF_DEFAULT").empty());
  EXPECT_EQ(with_code(f, "IPV4_DUPLICATE_ACROSS_HOSTS").size(), 2u);
  // Without --proc-root a model tree has no addresses: nothing is claimed.
  auto bare = pcie_host("k-docker0-virbr0-host1");
  EXPECT_EQ(bare.ipv4_source, "not read: a model tree without --proc-root");
  EXPECT_TRUE(pcie_findings({bare}).empty());
}

TEST(InventoryPcieGdr, L_NoPeerMemoryModule) {
  auto h = pcie_host("l-no-peer-memory");
  auto f = warns_of("l-no-peer-memory", 1, "GDR_NO_PEER_MEMORY");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].remedy.find("modprobe nvidia-peermem"), std::string::npos);
  for (const auto& r : report::gpu_rails(h)) EXPECT_EQ(r.gdr_blocked_by, "no peer memory");
  // "Loaded but not registered" stays GDR_MODULE_NOT_SEEN, never both.
  EXPECT_TRUE(
      with_code(pcie_findings({pcie_host("g-peermem-without-memory-peers")}), "GDR_NO_PEER_MEMORY").empty());
}

TEST(InventoryPcieGdr, RailNicDownIsNotGdrEligible) {
  auto h = pcie_host("d-ib-port-down-polling");
  for (const auto& r : report::gpu_rails(h)) {
    EXPECT_EQ(r.gdr_eligible, r.nic != "mlx5_3") << r.nic;
    if (r.nic == "mlx5_3") {
      EXPECT_EQ(r.gdr_blocked_by, "NIC port down");
    }
  }
}

TEST(InventoryPcieGdr, LidOnEthernetPortAndRoceProtocol) {
  auto h = pcie_host("b-roce-2nic");
  EXPECT_EQ(h.rdma_devices[0].protocol, "RoCE");
  EXPECT_TRUE(pcie_findings({h}).empty());
  h.rdma_devices[1].ports[0].lid = "0x1a";
  auto f = pcie_findings({h});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "LID_ON_ETHERNET");
  EXPECT_EQ(f[0].severity, report::Severity::kWarn);
  EXPECT_EQ(f[0].evidence["device"], "mlx5_1");
  EXPECT_EQ(f[0].evidence["lid"], "0x1a");
  h.rdma_devices[1].node_type = "RNIC";  // iWARP (irdma, cxgb4): node_type 4
  h.rdma_devices[1].ports[0].lid = "0x0";
  EXPECT_TRUE(pcie_findings({h}).empty());
}

TEST(InventoryPcieGdr, ShortConfigReadIsInfo) {
  auto h = pcie_host("h2-acs-off-plx");
  h.pci_bridges[0].config = probes::parse_pcie_config(std::vector<std::uint8_t>(64, 0));
  auto f = pcie_findings({h});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "PCIE_CONFIG_NOT_READ");
  EXPECT_EQ(f[0].severity, report::Severity::kInfo);
}
