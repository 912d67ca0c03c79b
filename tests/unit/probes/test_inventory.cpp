// Host inventory over the recorded sysfs host models (tests/data/sysfs/<model>/, each with a
// README that states its source, its expected inventory and the expected findings on an `expect-findings:`
// line).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "../support/temp_dir.hpp"
#include "../support/test_data.hpp"
#include "fabcheck/core/cpulist.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/parse/mca_params.hpp"
#include "fabcheck/parse/nvidia_smi_topo.hpp"
#include "fabcheck/probes/inventory.hpp"
#include "fabcheck/report/inventory.hpp"

namespace fs = std::filesystem;
using namespace fabcheck;

namespace {

const std::string kData = FABCHECK_TEST_DATA;
const std::string kModels = kData + "/sysfs";

/// Verbs fake: answers what the test says the kernel would.
class FakeVerbs : public probes::VerbsBackend {
 public:
  model::VerbsListing listing;
  model::VerbsListing list() const override { return listing; }
};

FakeVerbs enosys() {
  FakeVerbs v;
  v.listing.status = "unavailable";
  v.listing.err = 38;
  v.listing.error_text = "Function not implemented";
  return v;
}

struct Readme {
  std::map<std::string, std::string> env;
  std::string etc;
  std::string proc;  // --proc-root, relative to the model
  std::string nccl_version;
  std::string verbs = "enosys";
  std::vector<std::string> expect;  // sorted finding codes
  bool has_expect = false;
  bool has_source = false;
};

Readme read_readme(const std::string& model) {
  Readme r;
  std::ifstream in(kModels + "/" + model + "/README.md");
  std::string line;
  while (std::getline(in, line)) {
    auto take = [&](const std::string& key) -> std::optional<std::string> {
      if (line.rfind(key, 0) != 0) return std::nullopt;
      auto v = line.substr(key.size());
      while (!v.empty() && v.front() == ' ') v.erase(v.begin());
      return v;
    };
    if (take("source:")) r.has_source = true;
    if (auto v = take("env:")) {
      std::istringstream ss(*v);
      std::string kv;
      while (ss >> kv) r.env[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    }
    if (auto v = take("etc:")) r.etc = kModels + "/" + model + "/" + *v;
    if (auto v = take("nccl_version:")) r.nccl_version = *v;
    if (auto v = take("proc:")) r.proc = kModels + "/" + model + "/" + *v;
    if (auto v = take("verbs:")) r.verbs = *v;
    if (auto v = take("expect-findings:")) {
      r.has_expect = true;
      std::istringstream ss(*v);
      std::string code;
      while (ss >> code)
        if (code != "none") r.expect.push_back(code);
      std::sort(r.expect.begin(), r.expect.end());
    }
  }
  return r;
}

model::HostInventory inventory_of(const std::string& model, const Readme& rd,
                                  const std::string& host = "host") {
  probes::InventoryOptions o;
  o.sysfs_root = kModels + "/" + model;
  o.etc_root = rd.etc.empty() ? kModels + "/" + model + "/no-etc" : rd.etc;
  o.run_nvidia_smi = false;
  o.nccl_version = rd.nccl_version;
  o.proc_root = rd.proc;
  FakeVerbs v = enosys();
  if (rd.verbs == "empty") v.listing = model::VerbsListing{"ok", 0, "", {}};
  return probes::collect_host_inventory(o, v, rd.env, host);
}

model::HostInventory inventory_of(const std::string& model) {
  return inventory_of(model, read_readme(model));
}

std::vector<std::string> codes_pi(const std::vector<report::Finding>& fs_) {
  std::vector<std::string> c;
  for (const auto& f : fs_) c.push_back(f.code);
  std::sort(c.begin(), c.end());
  return c;
}

std::vector<report::Finding> findings_of(const model::HostInventory& h) {
  probes::InventoryResult r;
  r.hosts.push_back(h);
  return report::inventory_findings(r);
}

const model::RdmaDevice& dev(const model::HostInventory& h, const std::string& name) {
  for (const auto& d : h.rdma_devices)
    if (d.name == name) return d;
  throw std::runtime_error("no device " + name);
}

std::vector<std::string> models() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kModels))
    if (e.is_directory()) out.push_back(e.path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

using fabcheck::testing_fixtures::read_text_file;

}  // namespace

// Every model: README has a source line and an expect-findings line, and the findings match it exactly.
class ModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelTest, FindingsMatchReadme) {
  const auto model = GetParam();
  auto rd = read_readme(model);
  ASSERT_TRUE(rd.has_source) << model << "/README.md lacks a source: line";
  ASSERT_TRUE(rd.has_expect) << model << "/README.md lacks an expect-findings: line";
  auto h = inventory_of(model, rd);
  auto f = findings_of(h);
  std::string got;
  for (const auto& x : f) got += "\n  " + x.code + ": " + x.message;
  EXPECT_EQ(codes_pi(f), rd.expect) << model << " findings:" << got;
  for (const auto& x : f) {
    EXPECT_FALSE(x.message.empty());
    EXPECT_FALSE(x.remedy.empty());
    EXPECT_EQ(x.evidence.value("host", std::string()), "host") << x.code;
  }
  // The JSON form round-trips.
  auto back = probes::host_inventory_from_json_text(probes::to_json_text(h));
  EXPECT_EQ(probes::to_json_text(back), probes::to_json_text(h));
}

INSTANTIATE_TEST_SUITE_P(Sysfs, ModelTest, ::testing::ValuesIn(models()), [](const auto& param_info) {
  std::string n = param_info.param;
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
});

TEST(Inventory, A_IbNdrRailOptimized) {
  auto h = inventory_of("a-ib-ndr-8rail");
  EXPECT_EQ(h.rdma_status, "present");
  ASSERT_EQ(h.rdma_devices.size(), 8u);
  ASSERT_EQ(h.gpus.size(), 8u);  // the NVSwitch function (class 0x068000) is not a GPU
  for (int k = 0; k < 8; ++k) {
    const auto& d = h.rdma_devices[static_cast<std::size_t>(k)];
    EXPECT_EQ(d.name, "mlx5_" + std::to_string(k));
    EXPECT_EQ(d.hca_type, "MT4129");
    EXPECT_EQ(d.fw_ver, "28.41.1000");
    ASSERT_EQ(d.ports.size(), 1u);
    const auto& p = d.ports[0];
    EXPECT_EQ(p.state, "ACTIVE");
    EXPECT_EQ(p.link_layer, "InfiniBand");
    ASSERT_TRUE(p.rate_gbit);
    EXPECT_DOUBLE_EQ(*p.rate_gbit, 400.0);
    EXPECT_FALSE(p.mtu);  // IB MTU only through verbs, and verbs is absent here
    ASSERT_EQ(p.gids.size(), 1u);
    EXPECT_EQ(p.gids[0].type, "IB");
    EXPECT_EQ(p.gid_tbl_len, 8);
    ASSERT_TRUE(d.pci && d.pci->numa_node);
    EXPECT_EQ(*d.pci->numa_node, k < 4 ? 0 : 1);
    EXPECT_FALSE(d.pci->link.speed_below_cap || d.pci->link.width_below_cap);
  }
  EXPECT_EQ(dev(h, "mlx5_1").ports[0].lid, "0x216");
  auto rails = report::gpu_rails(h);
  ASSERT_EQ(rails.size(), 8u);
  for (const auto& r : rails) {
    EXPECT_EQ(r.nic, "mlx5_" + std::to_string(r.gpu));
    EXPECT_EQ(r.level, "PIX");
    EXPECT_TRUE(r.ties.empty());
    EXPECT_TRUE(r.gdr_eligible);
  }
  EXPECT_TRUE(h.gdr.nvidia_peermem_loaded);
  EXPECT_EQ(h.gdr.module_version, "535.129.03");
  EXPECT_EQ(report::gdr_summary(h).rfind("peer memory:", 0), 0u);
  EXPECT_EQ(h.verbs.error_text, "Function not implemented");
}

// The distances computed from sysfs equal what nvidia-smi printed on the real host ([F09]).
TEST(Inventory, A_DistancesEqualNvidiaSmiTopo) {
  auto h = inventory_of("a-ib-ndr-8rail");
  auto topo = parse::parse_nvidia_smi_topo(read_text_file(kData + "/nvidia-smi/topo-m-h100-8gpu-8nic.txt"));
  auto cells = parse::gpu_nic_levels(topo);
  ASSERT_EQ(cells.size(), 64u);
  for (const auto& c : cells) {
    auto it = std::find_if(h.distances.begin(), h.distances.end(),
                           [&](const auto& d) { return d.gpu == c.gpu && d.nic == c.nic; });
    ASSERT_NE(it, h.distances.end()) << c.gpu << " " << c.nic;
    EXPECT_EQ(it->level, c.level) << "GPU" << c.gpu << " " << c.nic;
  }
}

TEST(Inventory, F2_DistancesEqualNvidiaSmiTopoOldStyle) {
  auto h = inventory_of("f2-8gpu-1nic-v100");
  auto topo = parse::parse_nvidia_smi_topo(read_text_file(kData + "/nvidia-smi/topo-m-v100-8gpu-1nic.txt"));
  EXPECT_TRUE(topo.nic_legend.empty());
  auto cells = parse::gpu_nic_levels(topo);
  ASSERT_EQ(cells.size(), 8u);
  for (const auto& c : cells) {
    EXPECT_EQ(c.nic, "mlx5_0");
    auto it =
        std::find_if(h.distances.begin(), h.distances.end(), [&](const auto& d) { return d.gpu == c.gpu; });
    ASSERT_NE(it, h.distances.end());
    EXPECT_EQ(it->level, c.level) << "GPU" << c.gpu;
  }
  auto f = findings_of(h);
  auto shared = std::find_if(f.begin(), f.end(), [](const auto& x) { return x.code == "NIC_SHARED"; });
  ASSERT_NE(shared, f.end());
  EXPECT_EQ(shared->evidence["ratio"], "8:1");
  EXPECT_DOUBLE_EQ(shared->evidence["per_gpu_gbit"].get<double>(), 12.5);
  auto aff = std::find_if(f.begin(), f.end(), [](const auto& x) { return x.code == "NIC_GPU_AFFINITY"; });
  ASSERT_NE(aff, f.end());
  ASSERT_EQ(aff->evidence["gpus"].size(), 6u);  // GPU0/1 NODE, GPU4-7 SYS; GPU2/3 PIX are fine
  auto rails = report::gpu_rails(h);
  int eligible = 0;
  for (const auto& r : rails) eligible += r.gdr_eligible;
  EXPECT_EQ(eligible, 2);
}

TEST(Inventory, A2_HdrVariant) {
  auto h = inventory_of("a2-ib-hdr-8rail");
  ASSERT_EQ(h.rdma_devices.size(), 8u);
  EXPECT_EQ(h.rdma_devices[0].hca_type, "MT4123");
  EXPECT_DOUBLE_EQ(*h.rdma_devices[0].ports[0].rate_gbit, 200.0);
  EXPECT_DOUBLE_EQ(*h.gpus[0].pci.link.current_gts, 16.0);
}

TEST(Inventory, B_RoceV2Gids) {
  auto h = inventory_of("b-roce-2nic");
  ASSERT_EQ(h.rdma_devices.size(), 2u);  // the Broadcom management NIC is not an RDMA device
  const auto& p = dev(h, "mlx5_0").ports[0];
  EXPECT_EQ(p.link_layer, "Ethernet");
  EXPECT_EQ(p.gid_tbl_len, 255);
  ASSERT_EQ(p.gids.size(), 4u);
  EXPECT_EQ(p.gids[0].type, "RoCE v1");
  EXPECT_TRUE(p.gids[1].link_local);
  EXPECT_EQ(p.gids[1].type, "RoCE v2");
  EXPECT_EQ(p.gids[3].ipv4, "192.0.2.72");
  EXPECT_EQ(p.gids[3].netdev, "ens3np0");
  ASSERT_TRUE(p.rocev2_gid_index);
  EXPECT_EQ(*p.rocev2_gid_index, 3);
  ASSERT_TRUE(p.mtu);
  EXPECT_EQ(*p.mtu, 4096);  // netdev mtu 9000
  EXPECT_EQ(*dev(h, "mlx5_1").ports[0].rocev2_gid_index, 3);
  EXPECT_EQ(dev(h, "mlx5_1").ports[0].gids[3].ipv4, "192.0.2.73");
  auto eno1 = std::find_if(h.net_interfaces.begin(), h.net_interfaces.end(),
                           [](auto& n) { return n.name == "eno1"; });
  ASSERT_NE(eno1, h.net_interfaces.end());
  EXPECT_EQ(*eno1->speed_mbit, 1000);
  EXPECT_TRUE(eno1->rdma_device.empty());
  auto ens = std::find_if(h.net_interfaces.begin(), h.net_interfaces.end(),
                          [](auto& n) { return n.name == "ens3np0"; });
  ASSERT_NE(ens, h.net_interfaces.end());
  EXPECT_EQ(ens->rdma_device, "mlx5_0");
}

TEST(Inventory, B_ConfiguredGidIndex) {
  auto rd = read_readme("b-roce-2nic");
  rd.env["NCCL_IB_GID_INDEX"] = "3";
  EXPECT_TRUE(codes_pi(findings_of(inventory_of("b-roce-2nic", rd))).empty());
  rd.env["NCCL_IB_GID_INDEX"] = "1";  // RoCE v2 but fe80::
  EXPECT_EQ(codes_pi(findings_of(inventory_of("b-roce-2nic", rd))),
            (std::vector<std::string>{"GID_LINK_LOCAL", "GID_LINK_LOCAL"}));
  rd.env["NCCL_IB_GID_INDEX"] = "2";  // RoCE v1
  EXPECT_EQ(codes_pi(findings_of(inventory_of("b-roce-2nic", rd))),
            (std::vector<std::string>{"GID_INDEX_NOT_ROCEV2", "GID_INDEX_NOT_ROCEV2"}));
}

TEST(Inventory, B2_B3_B4_Variants) {
  auto b2 = inventory_of("b2-roce-gid-ipv4-at-4-5");
  EXPECT_EQ(*dev(b2, "mlx5_0").ports[0].rocev2_gid_index, 5);
  EXPECT_EQ(*dev(b2, "mlx5_1").ports[0].rocev2_gid_index, 3);
  auto b3 = inventory_of("b3-roce-sparse-gid-pod");
  const auto& p3 = dev(b3, "mlx5_0").ports[0];
  ASSERT_EQ(p3.gids.size(), 4u);
  EXPECT_EQ(p3.gids[0].index, 6);
  EXPECT_EQ(*p3.rocev2_gid_index, 7);
  EXPECT_EQ(p3.gids[1].netdev, "net1");
  auto b4 = inventory_of("b4-roce-mtu1500");
  EXPECT_EQ(*dev(b4, "mlx5_0").ports[0].mtu, 1024);
  EXPECT_EQ(dev(b4, "mlx5_0").ports[0].mtu_source, "netdev ens3np0 mtu 1500");
}

TEST(Inventory, C_NoRdma) {
  auto h = inventory_of("c-no-rdma");
  EXPECT_EQ(h.rdma_status, "none");
  EXPECT_EQ(h.rdma_reason, "no " + kModels + "/c-no-rdma/class/infiniband");
  EXPECT_EQ(h.gpus.size(), 2u);
  EXPECT_EQ(report::gdr_summary(h), "not applicable: no RDMA device");
  EXPECT_EQ(h.verbs.status, "unavailable");
  EXPECT_EQ(h.verbs.error_text, "Function not implemented");
  ASSERT_EQ(h.mpi_config.files.size(), 1u);
  EXPECT_EQ(h.mpi_config.effective.at("pml"), "^ucx");
  // git keeps no empty directory: recreate the model's empty class/infiniband in a fresh clone.
  std::filesystem::create_directories(kModels + "/c2-no-rdma-empty-class/class/infiniband");
  auto c2 = inventory_of("c2-no-rdma-empty-class");
  EXPECT_EQ(c2.rdma_status, "none");
  EXPECT_NE(c2.rdma_reason.find("no RDMA devices in"), std::string::npos);
  EXPECT_EQ(c2.verbs.status, "ok");
  EXPECT_TRUE(c2.verbs.devices.empty());
  EXPECT_TRUE(c2.uverbs_present);
}

TEST(Inventory, D_PortDown) {
  auto h = inventory_of("d-ib-port-down-polling");
  const auto& p = dev(h, "mlx5_3").ports[0];
  EXPECT_FALSE(p.active());
  EXPECT_EQ(p.phys_state, "Polling");
  EXPECT_FALSE(p.rate_gbit);  // '10 Gb/sec (4X SDR)' of a down port is ignored
  int active = 0;
  for (const auto& d : h.rdma_devices) active += d.ports[0].active();
  EXPECT_EQ(active, 7);
  auto f = findings_of(h);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].evidence["device"], "mlx5_3");
  EXPECT_NE(f[0].message.find("no link partner"), std::string::npos);
  auto d2 = findings_of(inventory_of("d2-ib-port-disabled"));
  ASSERT_EQ(d2.size(), 1u);
  EXPECT_NE(d2[0].message.find("administratively disabled"), std::string::npos);
  auto d3 = inventory_of("d3-roce-port-down");
  EXPECT_TRUE(dev(d3, "mlx5_1").ports[0].gids.empty());
  EXPECT_FALSE(dev(d3, "mlx5_1").ports[0].rocev2_gid_index);
}

TEST(Inventory, E_PcieDowntrained) {
  auto f = findings_of(inventory_of("e-nic-pcie-x8"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].evidence["device"], "mlx5_2");
  EXPECT_EQ(f[0].message, "host: mlx5_2 PCIe x8 of x16 at 32.0 GT/s: ~252 of ~504 Gb/s, below the 400G port");
  auto e2 = inventory_of("e2-nic-pcie-gen3");
  auto f2 = findings_of(e2);
  ASSERT_EQ(f2.size(), 1u);
  // The kernel's own figures for this card ([F11] dmesg): 126.016 of 252.048 Gb/s.
  EXPECT_DOUBLE_EQ(f2[0].evidence["current_gbit"].get<double>(), 126.016);
  EXPECT_DOUBLE_EQ(f2[0].evidence["cap_gbit"].get<double>(), 252.048);
  EXPECT_NE(f2[0].message.find("below the 200G port"), std::string::npos);
  // E3: Gen4 NIC under a Gen5 switch port: cap = min(device, parent) = 16 GT/s → nothing.
  auto e3 = inventory_of("e3-gen4-nic-under-gen5-switch");
  EXPECT_FALSE(dev(e3, "mlx5_1").pci->link.speed_below_cap);
  EXPECT_DOUBLE_EQ(*dev(e3, "mlx5_1").pci->link.parent_max_gts, 32.0);
  auto rails = report::gpu_rails(e3);
  ASSERT_EQ(rails.size(), 1u);
  EXPECT_EQ(rails[0].nic, "mlx5_0");  // the 400G port wins the PIX tie
  EXPECT_EQ(rails[0].ties, (std::vector<std::string>{"mlx5_1", "mlx5_2"}));
  // E4: idle GPU speed drop is recorded but is no finding.
  auto e4 = inventory_of("e4-gpu-idle-speed");
  EXPECT_TRUE(e4.gpus[0].pci.link.speed_below_cap);
  EXPECT_TRUE(findings_of(e4).empty());
}

TEST(Inventory, F_FourGpusShareOneNic) {
  auto h = inventory_of("f-4gpu-share-1nic");
  auto f = findings_of(h);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "NIC_SHARED");
  EXPECT_EQ(f[0].evidence["ratio"], "4:1");
  EXPECT_DOUBLE_EQ(f[0].evidence["per_gpu_gbit"].get<double>(), 50.0);
  for (const auto& r : report::gpu_rails(h)) EXPECT_EQ(r.level, "PIX");
}

TEST(Inventory, G_GdrModuleSeenByVersion) {
  auto rd = read_readme("g-peermem-without-memory-peers");
  rd.nccl_version = "2.23.4";  // checks /sys/module/nvidia_peermem/version
  EXPECT_TRUE(findings_of(inventory_of("g-peermem-without-memory-peers", rd)).empty());
  rd.nccl_version = "";  // unknown: older releases would miss it → info
  auto f = findings_of(inventory_of("g-peermem-without-memory-peers", rd));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, report::Severity::kInfo);
  EXPECT_EQ(probes::nccl_gdr_range("2.18.5"), "2.9.8-2.21");
  EXPECT_EQ(probes::nccl_gdr_range("2.9.7"), "<=2.9.7");
  EXPECT_EQ(probes::nccl_gdr_range("2.23.3"), "2.22.0-2.23.3");
  EXPECT_EQ(probes::nccl_gdr_range("x"), "");
}

TEST(Inventory, GidTablesDifferAcrossHosts) {
  auto rb = read_readme("b-roce-2nic");
  auto r3 = read_readme("b3-roce-sparse-gid-pod");
  rb.env["NCCL_IB_GID_INDEX"] = "3";
  r3.env["NCCL_IB_GID_INDEX"] = "3";
  probes::InventoryResult r;
  r.hosts.push_back(inventory_of("b-roce-2nic", rb, "h1"));
  r.hosts.push_back(inventory_of("b3-roce-sparse-gid-pod", r3, "h2"));
  auto f = report::inventory_findings(r);
  auto it = std::find_if(f.begin(), f.end(), [](const auto& x) { return x.code == "GID_TABLES_DIFFER"; });
  ASSERT_NE(it, f.end());
  EXPECT_EQ(it->severity, report::Severity::kWarn);
  EXPECT_NE(it->message.find("on h1 but not on h2"), std::string::npos) << it->message;
  // Different values exported to different hosts.
  r.hosts[1].env["NCCL_IB_GID_INDEX"] = "7";
  f = report::inventory_findings(r);
  it = std::find_if(f.begin(), f.end(), [](const auto& x) { return x.code == "GID_TABLES_DIFFER"; });
  ASSERT_NE(it, f.end());
  EXPECT_NE(it->message.find("disagree"), std::string::npos);
  // Same table on both hosts and one index: nothing.
  r.hosts[1] = inventory_of("b-roce-2nic", rb, "h2");
  f = report::inventory_findings(r);
  EXPECT_TRUE(std::none_of(f.begin(), f.end(), [](const auto& x) { return x.code == "GID_TABLES_DIFFER"; }));
}

TEST(Inventory, MpiBtlTcpOnManagementInterface) {
  auto rd = read_readme("b-roce-2nic");
  rd.env["OMPI_MCA_btl_tcp_if_include"] = "eno1";
  auto f = findings_of(inventory_of("b-roce-2nic", rd));
  ASSERT_EQ(codes_pi(f), (std::vector<std::string>{"SOCKET_IFNAME_MGMT"}));
  EXPECT_EQ(f[0].evidence["origin"], "env OMPI_MCA_btl_tcp_if_include");
  rd.env["OMPI_MCA_btl_tcp_if_include"] = "ens3np0,ens2np0";
  EXPECT_TRUE(findings_of(inventory_of("b-roce-2nic", rd)).empty());
  auto rc = read_readme("c-no-rdma");
  // docker0 from the environment is the transport analysis' finding (no duplicate here) ...
  rc.env["OMPI_MCA_btl_tcp_if_include"] = "docker0";
  EXPECT_EQ(codes_pi(findings_of(inventory_of("c-no-rdma", rc))),
            (std::vector<std::string>{"MPI_RDMA_EXCLUDED"}));
  // ... from the MCA parameter file it is ours.
  rc.env.clear();
  rc.etc = kData + "/openmpi/btl-docker0";
  auto fd = findings_of(inventory_of("c-no-rdma", rc));
  ASSERT_EQ(codes_pi(fd), (std::vector<std::string>{"SOCKET_IFNAME_MGMT"}));
  EXPECT_NE(fd[0].evidence["origin"].get<std::string>().find("btl-docker0/openmpi/openmpi-mca-params.conf"),
            std::string::npos);
  // Env wins over the file: pml=ucx lifts the exclusion.
  rc = read_readme("c-no-rdma");
  rc.env = {{"OMPI_MCA_pml", "ucx"}};
  auto h = inventory_of("c-no-rdma", rc);
  EXPECT_EQ(h.mpi_config.origin.at("pml"), "env OMPI_MCA_pml");
  EXPECT_EQ(codes_pi(findings_of(h)), (std::vector<std::string>{}));
}

TEST(Inventory, MpiRdmaExcludedIsWarnWhereRdmaExists) {
  auto rd = read_readme("b-roce-2nic");
  rd.etc = kData + "/openmpi/debian";
  auto f = findings_of(inventory_of("b-roce-2nic", rd));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "MPI_RDMA_EXCLUDED");
  EXPECT_EQ(f[0].severity, report::Severity::kWarn);
}

TEST(Inventory, VerbsFakeFillsIbMtu) {
  probes::InventoryOptions o;
  o.sysfs_root = kModels + "/a-ib-ndr-8rail";
  o.etc_root = "/nonexistent";
  o.run_nvidia_smi = false;
  FakeVerbs v;
  v.listing.status = "ok";
  v.listing.devices.push_back({"mlx5_0", "", {{1, 4, 4096, 1, 400.0, 8}}});
  auto h = probes::collect_host_inventory(o, v, {}, "h");
  ASSERT_TRUE(dev(h, "mlx5_0").ports[0].mtu);
  EXPECT_EQ(*dev(h, "mlx5_0").ports[0].mtu, 4096);
  EXPECT_EQ(dev(h, "mlx5_0").ports[0].mtu_source, "verbs active_mtu");
  EXPECT_FALSE(dev(h, "mlx5_1").ports[0].mtu);
  o.use_verbs = false;
  EXPECT_EQ(probes::collect_host_inventory(o, v, {}, "h").verbs.status, "disabled");
}

TEST(Inventory, SystemVerbsNeverThrows) {
  // On a machine without RDMA (this CI) libibverbs answers ENOSYS: "unavailable", not an error.
  auto v = probes::make_system_verbs();
  auto l = v->list();
  EXPECT_TRUE(l.status == "ok" || l.status == "unavailable" || l.status == "not_compiled") << l.status;
  if (l.status == "unavailable") {
    EXPECT_FALSE(l.error_text.empty());
  }
}

TEST(Inventory, BadRootIsUsageError) {
  probes::InventoryOptions o;
  o.sysfs_root = kModels + "/does-not-exist";
  EXPECT_THROW(probes::validate(o), UsageError);
  o.sysfs_root = kModels;
  o.nccl_version = "two";
  EXPECT_THROW(probes::validate(o), UsageError);
}

TEST(Inventory, EnvFilterKeepsOnlyTransportVariables) {
  auto e = probes::filter_transport_env({"NCCL_IB_HCA=mlx5_0", "UCX_TLS=rc", "OMPI_MCA_pml=ucx", "HOME=/root",
                                         "OMPI_MCA_orte_precondition_transports=ab-cd",
                                         "OMPI_MCA_ess=singleton", "SECRET_TOKEN=x", "NCCLX=1", "PATH=/bin"});
  EXPECT_EQ(e.size(), 3u);
  EXPECT_EQ(e.at("UCX_TLS"), "rc");
  EXPECT_FALSE(e.count("HOME"));
}

TEST(Inventory, PcieBandwidthMatchesKernel) {
  EXPECT_DOUBLE_EQ(*probes::pcie_gbit(16.0, 16), 252.048);
  EXPECT_DOUBLE_EQ(*probes::pcie_gbit(8.0, 16), 126.016);
  EXPECT_DOUBLE_EQ(*probes::pcie_gbit(2.5, 4), 8.0);  // [F11] x4 slot: "8.000 Gb/s available"
  EXPECT_FALSE(probes::pcie_gbit(1.0, 16));
}

TEST(McaParams, ParsesDebianFile) {
  auto p = parse::parse_mca_params(read_text_file(kData + "/openmpi/debian/openmpi/openmpi-mca-params.conf"));
  std::map<std::string, std::string> m(p.params.begin(), p.params.end());
  EXPECT_EQ(m.at("pml"), "^ucx");
  EXPECT_EQ(m.at("btl"), "^uct,openib,ofi");
  EXPECT_EQ(m.at("mtl"), "^ofi");
  auto q = parse::parse_mca_params("a = 1 # c\nnoequals\n = 3\n\n  b=x,y  \n");
  EXPECT_EQ(q.params.size(), 2u);
  EXPECT_EQ(q.skipped_lines, 2);
  EXPECT_EQ(parse::mca_excluded("^ucx,foo", {"ucx", "ob1"}), (std::vector<std::string>{"ucx"}));
  EXPECT_EQ(parse::mca_excluded("ob1", {"ucx"}), (std::vector<std::string>{"ucx"}));
  EXPECT_TRUE(parse::mca_excluded("ucx", {"ucx"}).empty());
  EXPECT_TRUE(parse::mca_excluded("", {"ucx"}).empty());
}

TEST(NvidiaSmiTopo, NewStyleLegendAndAffinity) {
  auto m = parse::parse_nvidia_smi_topo(read_text_file(kData + "/nvidia-smi/topo-m-h100-8gpu-8nic.txt"));
  ASSERT_EQ(m.devices.size(), 16u);
  EXPECT_EQ(m.nic_legend.at("NIC7"), "mlx5_7");
  EXPECT_EQ(m.cpu_affinity.at("GPU5"), "48-95,144-191");
  EXPECT_EQ(m.numa_affinity.at("GPU0"), "0");
  EXPECT_EQ(m.cells[0][0], "X");
  EXPECT_EQ(m.cells[0][1], "NV18");
  EXPECT_TRUE(parse::parse_nvidia_smi_topo("no matrix here\n").devices.empty());
}

TEST(InventoryReport, SectionAndConsole) {
  probes::InventoryResult r;
  r.hosts.push_back(inventory_of("d-ib-port-down-polling"));
  report::Document doc;
  report::add_inventory(doc, r);
  const auto& j = doc.json();
  ASSERT_EQ(j["inventory"]["hosts"].size(), 1u);
  const auto& host = j["inventory"]["hosts"][0];
  EXPECT_EQ(host["rdma_devices"].size(), 8u);
  const auto& p3 = host["rdma_devices"][3]["ports"][0];
  EXPECT_TRUE(p3["rate_gbit"].is_null());
  EXPECT_NE(p3["rate_note"].get<std::string>().find("not ACTIVE"), std::string::npos);
  EXPECT_EQ(host["rdma_devices"][0]["ports"][0]["rate_gbit"], 400.0);
  EXPECT_EQ(host["rails"].size(), 8u);
  EXPECT_EQ(j["run"]["sections"]["inventory"]["status"], "ok");
  ASSERT_EQ(j["findings"].size(), 1u);
  EXPECT_EQ(j["findings"][0]["code"], "PORT_DOWN");
  auto text = report::render_inventory(r);
  EXPECT_NE(text.find("mlx5_3"), std::string::npos);
  EXPECT_NE(text.find("Polling"), std::string::npos);
  EXPECT_NE(text.find("GPU7"), std::string::npos);
  report::Document empty;
  report::add_inventory(empty, probes::InventoryResult{});
  EXPECT_EQ(empty.json()["run"]["sections"]["inventory"]["status"], "skipped");
}

// NCCL_NET_GDR_LEVEL as NCCL reads it (src/graph/paths.cc ncclGetLevel): exact upper-case names, or an
// old-style number (0 LOC, 1 PIX, 2 PXB, 3 PHB, 4+ SYS); anything else is ignored and PXB stays.
namespace {
report::Finding inv_finding_named(const std::vector<report::Finding>& fs_, const std::string& code) {
  for (const auto& f : fs_)
    if (f.code == code) return f;
  ADD_FAILURE() << "no " << code;
  return {};
}
}  // namespace

TEST(Inventory, GdrLevelLocTurnsGdrOffOnARailHost) {
  auto rd = read_readme("a-ib-ndr-8rail");
  rd.env["NCCL_NET_GDR_LEVEL"] = "LOC";
  auto h = inventory_of("a-ib-ndr-8rail", rd);
  for (const auto& r : report::gpu_rails(h)) {
    EXPECT_FALSE(r.gdr_eligible);
    EXPECT_EQ(r.gdr_blocked_by, "NCCL_NET_GDR_LEVEL=LOC");
  }
  auto fs_ = findings_of(h);
  auto f = inv_finding_named(fs_, "GDR_OFF_BY_LEVEL");
  EXPECT_EQ(f.severity, report::Severity::kWarn);
  EXPECT_EQ(f.evidence["gpus"].size(), 8u);
  EXPECT_EQ(f.evidence["gdr_level"], "LOC");
  EXPECT_NE(f.message.find("8 GPU(s)"), std::string::npos) << f.message;
  EXPECT_NE(f.remedy.find("unset NCCL_NET_GDR_LEVEL"), std::string::npos);
}

TEST(Inventory, GdrLevelOldNumberingAndIgnoredValues) {
  auto rd = read_readme("a-ib-ndr-8rail");
  rd.env["NCCL_NET_GDR_LEVEL"] = "1";  // old numbering: PIX, which these PIX rails satisfy
  auto h = inventory_of("a-ib-ndr-8rail", rd);
  for (const auto& r : report::gpu_rails(h)) EXPECT_TRUE(r.gdr_eligible) << r.gpu;
  EXPECT_EQ(codes_pi(findings_of(h)), codes_pi(findings_of(inventory_of("a-ib-ndr-8rail"))));
  rd.env["NCCL_NET_GDR_LEVEL"] = "0";  // old numbering: LOC
  EXPECT_EQ(inv_finding_named(findings_of(inventory_of("a-ib-ndr-8rail", rd)), "GDR_OFF_BY_LEVEL")
                .evidence["gdr_level"],
            "LOC");
  rd.env["NCCL_NET_GDR_LEVEL"] = "pxb";  // strcmp: lower case is not a level
  h = inventory_of("a-ib-ndr-8rail", rd);
  for (const auto& r : report::gpu_rails(h)) EXPECT_TRUE(r.gdr_eligible);
  auto f = inv_finding_named(findings_of(h), "GDR_LEVEL_IGNORED");
  EXPECT_EQ(f.evidence["value"], "pxb");
  EXPECT_EQ(f.evidence["gdr_level"], "PXB");
}

TEST(Inventory, GdrLevelSysKeepsGdrAcrossTheCpu) {
  auto rd = read_readme("f2-8gpu-1nic-v100");
  auto plain = report::gpu_rails(inventory_of("f2-8gpu-1nic-v100", rd));
  rd.env["NCCL_NET_GDR_LEVEL"] = "SYS";
  auto h = inventory_of("f2-8gpu-1nic-v100", rd);
  auto rails = report::gpu_rails(h);
  ASSERT_EQ(rails.size(), plain.size());
  int far = 0;
  for (std::size_t i = 0; i < rails.size(); ++i) {
    if (plain[i].gdr_blocked_by != "distance") continue;
    ++far;
    EXPECT_TRUE(rails[i].gdr_blocked_by.empty()) << rails[i].gpu << " " << rails[i].gdr_blocked_by;
  }
  EXPECT_EQ(far, 6);  // GPU0/1 NODE and GPU4-7 SYS (the model's README)
  auto f = inv_finding_named(findings_of(h), "NIC_GPU_AFFINITY");
  EXPECT_NE(f.message.find("NCCL_NET_GDR_LEVEL=SYS keeps GPUDirect RDMA on"), std::string::npos) << f.message;
  EXPECT_EQ(f.evidence["gdr_level"], "SYS");
  // The default wording stays for the same host without the variable.
  auto d = inv_finding_named(findings_of(inventory_of("f2-8gpu-1nic-v100")), "NIC_GPU_AFFINITY");
  EXPECT_NE(d.message.find("turns GPUDirect RDMA off beyond PXB"), std::string::npos) << d.message;
}

// The kernel's CPU list form (bitmap_parselist) both ways.
TEST(CpuList, ParsesRangesAndRefusesWhatIsNotAList) {
  EXPECT_EQ(core::parse_cpulist("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(core::parse_cpulist(""), std::vector<int>{});
  EXPECT_EQ(core::parse_cpulist("5,1-2,2"), (std::vector<int>{1, 2, 5}));
  EXPECT_FALSE(core::parse_cpulist("3-1"));
  EXPECT_FALSE(core::parse_cpulist("0-x"));
  EXPECT_FALSE(core::parse_cpulist("1,,2"));
  EXPECT_EQ(core::format_cpulist({11, 0, 1, 2, 3, 8, 10}), "0-3,8,10-11");
  EXPECT_EQ(core::format_cpulist({}), "");
}

// A rank bound to the other socket than its GPU's rail NIC (a-ib-ndr-8rail: mlx5_0-3 on NUMA node 0,
// mlx5_4-7 on node 1 with CPUs 48-95,144-191); unbound ranks are not judged.
TEST(Inventory, RankBoundToTheOtherSocketThanItsNic) {
  auto h = inventory_of("a-ib-ndr-8rail");
  const int online = 192;
  h.rank_bindings = {{0, 0, "0-11", online},    // GPU0's mlx5_0, node 0: near
                     {5, 5, "0-11", online},    // GPU5's mlx5_5, node 1: far
                     {6, 6, "48-59", online},   // GPU6's mlx5_6, node 1: near
                     {7, 7, "0-191", online}};  // unbound
  auto fs_ = findings_of(h);
  auto f = inv_finding_named(fs_, "RANK_CPU_FAR_FROM_NIC");
  EXPECT_EQ(f.severity, report::Severity::kWarn);
  ASSERT_EQ(f.evidence["ranks"].size(), 1u) << f.evidence.dump();
  EXPECT_EQ(f.evidence["ranks"][0]["rank"], 5);
  EXPECT_NE(f.message.find("rank 5 on CPUs 0-11 uses mlx5_5 (CPUs 48-95,144-191, NUMA node 1)"),
            std::string::npos)
      << f.message;
  // The JSON form keeps the bindings, and the same host read back judges the same.
  auto back = model::host_inventory_from_json_text(model::to_json_text(h));
  ASSERT_EQ(back.rank_bindings.size(), 4u);
  EXPECT_EQ(back.rank_bindings[1].cpus, "0-11");
  EXPECT_EQ(back.rank_bindings[1].host_cpus, online);
  EXPECT_EQ(codes_pi(findings_of(back)), codes_pi(fs_));
  h.rank_bindings = {{5, 5, "48-59", online}};
  for (const auto& g : findings_of(h)) EXPECT_NE(g.code, "RANK_CPU_FAR_FROM_NIC");
}

class HostileTree : public fabcheck::testing_fixtures::TempDirTest {};

TEST_F(HostileTree, BadBytesFifosAndDevicesInARecordedTree) {
  // A recorded tree with a value that is not UTF-8, a FIFO and a device node where attributes belong: the
  // inventory is made (the bad bytes read as U+FFFD, the planted files as unreadable), never a hang, never
  // a JSON writer's exception (it used to exit 3 with type_error.316).
  const std::string root = dir_ + "/sys";
  std::filesystem::copy(
      kModels + "/b-roce-2nic", root,
      std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  std::vector<std::string> fw, guid;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root + "/devices")) {
    if (e.path().filename() == "fw_ver") fw.push_back(e.path());
    if (e.path().filename() == "node_guid") guid.push_back(e.path());
  }
  ASSERT_EQ(fw.size(), 2u);
  ASSERT_FALSE(guid.empty());
  std::ofstream(fw[0], std::ios::binary | std::ios::trunc) << "ab\xFF\xFE"
                                                              "cd\n";
  std::filesystem::remove(fw[1]);
  ASSERT_EQ(::mkfifo(fw[1].c_str(), 0600), 0);
  std::filesystem::remove(guid[0]);
  const bool dev = ::mknod(guid[0].c_str(), S_IFCHR | 0600, ::makedev(1, 5)) == 0;
  probes::InventoryOptions o;
  o.sysfs_root = root;
  o.etc_root = "/nonexistent";
  o.run_nvidia_smi = false;
  FakeVerbs v = enosys();
  const auto h = probes::collect_host_inventory(o, v, {}, "h");
  std::vector<std::string> seen;
  for (const auto& d : h.rdma_devices) seen.push_back(d.fw_ver);
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::string>{"",
                                            "ab\xEF\xBF\xBD\xEF\xBF\xBD"
                                            "cd"}));
  std::string text;
  EXPECT_NO_THROW(text = probes::to_json_text(h));
  EXPECT_NE(text.find("ab\xEF\xBF\xBD"), std::string::npos);
  if (dev) {
    for (const auto& d : h.rdma_devices) EXPECT_EQ(d.node_guid.find('\0'), std::string::npos);
  }
}

TEST_F(HostileTree, McaParameterFileSecretsAreRedacted) {
  // Open MPI's parameter file may hold credentials (oob_tcp_password, a UCX token): their values never
  // reach the inventory, while the transport parameters beside them stay readable.
  std::filesystem::create_directories(dir_ + "/etc/openmpi");
  write("etc/openmpi/openmpi-mca-params.conf",
        "btl_tcp_if_include = 198.18.0.0/15\noob_tcp_password = hunter2\npml_ucx_token = abc\n");
  probes::InventoryOptions o;
  o.sysfs_root = kModels + "/c-no-rdma";
  o.etc_root = dir_ + "/etc";
  o.run_nvidia_smi = false;
  FakeVerbs v = enosys();
  const auto h = probes::collect_host_inventory(o, v, {}, "h");
  ASSERT_EQ(h.mpi_config.files.size(), 1u);
  EXPECT_EQ(h.mpi_config.files[0].params,
            (std::vector<std::pair<std::string, std::string>>{{"btl_tcp_if_include", "198.18.0.0/15"},
                                                              {"oob_tcp_password", "<redacted>"},
                                                              {"pml_ucx_token", "<redacted>"}}));
  EXPECT_EQ(probes::to_json_text(h).find("hunter2"), std::string::npos);
}
