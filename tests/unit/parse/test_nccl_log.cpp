// NCCL debug-log reader: one test per line form (the envelope, the version line, network selection,
// GPUDirect RDMA, topology and summary lines, errors and warnings, per NCCL version range), the connection
// lines per version, and robustness (truncated, binary, 10 MB single line, any chunking).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fabcheck/core/error.hpp"
#include "fabcheck/parse/nccl_log.hpp"

using namespace fabcheck::parse;

namespace {

constexpr NcclVersionCode V(int a, int b, int c) {
  return a * 10000 + b * 100 + c;
}

// Parses `text` and returns its only process (fails the test when there is not exactly one).
NcclProcessLog one(const std::string& text) {
  NcclLog log = parse_nccl_log(text);
  EXPECT_EQ(log.processes.size(), 1u) << text;
  return log.processes.empty() ? NcclProcessLog{} : log.processes.front();
}

std::string info_pnl(const std::string& msg) {
  return "node01:100:101 [0] NCCL INFO " + msg + "\n";
}
std::string warn(const std::string& file, const std::string& msg) {
  return "\nnode01:100:102 [0] " + file + " NCCL WARN " + msg + "\n";
}

}  // namespace

// ---------------------------------------------------------------- envelope

TEST(NcclEnvelope, InfoPrefixHostPidTidDev) {
  NcclLog log = parse_nccl_log("gpu-node-7:4242:4250 [3] NCCL INFO Using network IB\n");
  ASSERT_EQ(log.processes.size(), 1u);
  EXPECT_EQ(log.processes[0].host, "gpu-node-7");
  EXPECT_EQ(log.processes[0].pid, 4242);
  EXPECT_EQ(log.processes[0].cuda_devs, std::vector<int>{3});
  EXPECT_EQ(log.processes[0].network, "IB");
  EXPECT_EQ(log.stats.nccl_lines, 1u);
}

TEST(NcclEnvelope, TidsOfOnePidAreOneProcess) {
  NcclLog log = parse_nccl_log(info_pnl("Using network IB") +
                               "node01:100:999 [1] NCCL INFO NET/IB : No device found.\n");
  ASSERT_EQ(log.processes.size(), 1u);
  EXPECT_EQ(log.processes[0].cuda_devs, (std::vector<int>{0, 1}));
}

TEST(NcclEnvelope, WarnWithFileLineAndBlankLeadIn_2_7_to_2_25) {
  NcclLog log =
      parse_nccl_log(warn("misc/socket.cc:49", "socketProgress: Connection closed by remote peer x<1>"));
  EXPECT_EQ(log.stats.blank_lines, 1u);
  ASSERT_EQ(log.processes.size(), 1u);
  ASSERT_EQ(log.processes[0].issues.size(), 1u);
  EXPECT_EQ(log.processes[0].issues[0].kind, NcclIssueKind::kSocket);
  EXPECT_TRUE(log.processes[0].issues[0].warn_level);
}

TEST(NcclEnvelope, WarnWithFunctionName_2_30) {
  auto p = one(
      "node01:1:2 [0] transport/net_ib/p2p.cc:688 (ncclIbTest) NCCL WARN NET/IB: Got completion from peer "
      "192.0.2.1<1> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) vendor_err=129\n");
  EXPECT_EQ(p.host, "node01");
  ASSERT_EQ(p.issues.size(), 1u);
  EXPECT_EQ(p.issues[0].kind, NcclIssueKind::kCompletion);
  EXPECT_EQ(p.issues[0].status, 12);
  EXPECT_EQ(p.issues[0].status_name, "RETRY_EXC_ERR");
}

TEST(NcclEnvelope, WarnTimestampPrefix_2_26_plus) {
  auto p =
      one("[2025-10-16 22:16:08] node01:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI "
          "fi_getinfo() call failed: No data available\n");
  EXPECT_EQ(p.host, "node01");
  EXPECT_EQ(p.pid, 1929);
  EXPECT_TRUE(p.ofi);
  ASSERT_EQ(p.issues.size(), 1u);
  EXPECT_EQ(p.issues[0].kind, NcclIssueKind::kPlugin);
}

TEST(NcclEnvelope, MpirunTagOutputAndLoneWrapperLeadIn) {
  NcclLog log = parse_nccl_log(
      "[1,26]<stdout>:node01:8716:9558 [2] NCCL INFO Using network IB\n"
      "[1,23]<stdout>:\n"
      "[1,23]<stdout>:node02:77:78 [7] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer "
      "192.0.2.9<5> with error 12, opcode 0, len 0, vendor err 129 (Recv)\n");
  ASSERT_EQ(log.processes.size(), 2u);
  EXPECT_EQ(log.processes[0].host, "node01");
  EXPECT_EQ(log.processes[0].tag_rank, 26);
  EXPECT_EQ(log.processes[1].host, "node02");
  EXPECT_EQ(log.stats.blank_lines, 1u);
  ASSERT_EQ(log.processes[1].issues.size(), 1u);
  EXPECT_EQ(log.processes[1].issues[0].status_name, "RETRY_EXC_ERR");
}

TEST(NcclEnvelope, RankLabelAndPdshPrefixes) {
  NcclLog log = parse_nccl_log(
      "[155] crow-19:5330:5499 [3] NCCL INFO Using network IB\n"
      "192.0.2.83: node01:362:362 [0] NCCL INFO Using network Socket\n");
  ASSERT_EQ(log.processes.size(), 2u);
  EXPECT_EQ(log.processes[0].host, "crow-19");
  EXPECT_EQ(log.processes[1].host, "node01");
  EXPECT_EQ(log.processes[1].network, "Socket");
}

TEST(NcclEnvelope, RedactedPlaceholderHost) {
  auto p = one("<cluster_name>:924:924 [5] NCCL INFO cudaDriverVersion 12010\n");
  EXPECT_EQ(p.host, "<cluster_name>");
  EXPECT_EQ(p.pid, 924);
}

TEST(NcclEnvelope, PrefixCutToDevOnly) {
  NcclLog log = parse_nccl_log(" [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB br0:192.0.2.16<0>\n");
  ASSERT_EQ(log.processes.size(), 1u);
  EXPECT_EQ(log.processes[0].host, "");
  ASSERT_EQ(log.processes[0].ib_devices.size(), 1u);
  EXPECT_EQ(log.processes[0].ib_devices[0].link_layer, "RoCE");
}

TEST(NcclEnvelope, NoPrefixMessageOnlyModeAcceptsOnlyKnownForms) {
  NcclLog log = parse_nccl_log(
      "Using network IBext_v8\n"
      "P2P plugin IBext_v8\n"
      "Epoch 3: loss 0.25\n"
      "Using torch.distributed with 8 ranks\n");
  ASSERT_EQ(log.processes.size(), 1u);
  EXPECT_EQ(log.processes[0].network, "IBext_v8");
  EXPECT_EQ(log.processes[0].net_plugin, "IBext_v8");
  EXPECT_EQ(log.stats.message_only_lines, 2u);
  EXPECT_EQ(log.stats.foreign_lines, 2u);
}

TEST(NcclEnvelope, ForeignOnlyLogCreatesNoProcess) {
  NcclLog log = parse_nccl_log("libibverbs: Warning: couldn't load driver 'libhns-rdmav34.so'\nhello\n");
  EXPECT_TRUE(log.processes.empty());
  EXPECT_EQ(log.stats.foreign_lines, 2u);
}

TEST(NcclEnvelope, TraceAndCallLinesCounted) {
  NcclLog log = parse_nccl_log(
      "node01:1:2 [0] 12.345 transport/net_ib.cc:100 NCCL TRACE something\n"
      "node01:1:2 NCCL CALL ncclCommInitRank(...)\n");
  EXPECT_EQ(log.stats.nccl_lines, 2u);
  EXPECT_EQ(log.stats.unparsed, 0u);
}

TEST(NcclEnvelope, UnknownInfoMessageIsCountedUnparsed) {
  NcclLog log = parse_nccl_log(info_pnl("Some message from a future NCCL"));
  EXPECT_EQ(log.stats.unparsed, 1u);
}

// ---------------------------------------------------------------- version line

TEST(NcclVersion, BareLine_2_3_to_2_21) {
  NcclLog log = parse_nccl_log("NCCL version 2.7.6+cuda11.1\n");
  ASSERT_EQ(log.bare_versions.size(), 1u);
  EXPECT_EQ(log.bare_versions[0], "2.7.6+cuda11.1");
  EXPECT_EQ(nccl_version_code(log.bare_versions[0]), V(2, 7, 6));
}

TEST(NcclVersion, InfoLineFromEveryProcess_2_22_plus) {
  auto p = one(info_pnl("NCCL version 2.25.1+cuda12.8"));
  EXPECT_EQ(p.version, "2.25.1+cuda12.8");
}

TEST(NcclVersion, CodeParsing) {
  EXPECT_EQ(nccl_version_code("2.18.3"), V(2, 18, 3));
  EXPECT_EQ(nccl_version_code("2.30.7-1"), V(2, 30, 7));
  EXPECT_EQ(nccl_version_code("x2.1"), 0);
  EXPECT_EQ(nccl_version_code("2"), 0);
}

// ---------------------------------------------------------------- network selection

// "No net plugin" in the words of each NCCL version range, and the range each form bounds.
struct PluginAbsentForm {
  const char* range;
  std::vector<const char*> msgs;
  NcclVersionCode version_min;
  NcclVersionCode version_max;  // 0: open-ended
};

class NcclPluginAbsent : public testing::TestWithParam<PluginAbsentForm> {};

TEST_P(NcclPluginAbsent, IsReadAndBoundsTheVersion) {
  const auto& c = GetParam();
  std::string text;
  for (const char* m : c.msgs) text += info_pnl(m);
  auto p = one(text);
  EXPECT_TRUE(p.plugin_absent);
  EXPECT_EQ(p.version_min, c.version_min);
  if (c.version_max != 0) {
    EXPECT_EQ(p.version_max, c.version_max);
  }
}

INSTANTIATE_TEST_SUITE_P(
    NcclNet, NcclPluginAbsent,
    testing::Values(
        // NCCL 2.4 and 2.5.6 (NVIDIA/nccl#333) print the short form.
        PluginAbsentForm{
            "v2_4_and_2_5_6", {"NET/Plugin : No plugin found (libnccl-net.so)."}, V(2, 4, 0), V(2, 5, 99)},
        PluginAbsentForm{"v2_5_to_2_16",
                         {"NET/Plugin : No plugin found (libnccl-net.so), using internal implementation"},
                         V(2, 5, 0),
                         V(2, 16, 99)},
        PluginAbsentForm{
            "v2_17_to_2_18",
            {"NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open "
             "shared object file: No such file or directory",
             "NET/Plugin : No plugin found, using internal implementation"},
            V(2, 17, 0),
            V(2, 18, 99)},
        PluginAbsentForm{
            "v2_19_to_2_20",
            {"NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or "
             "directory No plugin found (libnccl-net.so), using internal implementation"},
            V(2, 19, 0),
            V(2, 20, 99)},
        PluginAbsentForm{"v2_21", {"NET/Plugin: Using internal network plugin."}, V(2, 21, 0), 0},
        PluginAbsentForm{"v2_22_to_2_26",
                         {"NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin."},
                         V(2, 22, 0),
                         V(2, 26, 99)},
        PluginAbsentForm{"v2_27_plus", {"NET/Plugin: Could not find: libnccl-net.so"}, V(2, 27, 0), 0}),
    [](const testing::TestParamInfo<PluginAbsentForm>& i) { return std::string(i.param.range); });

TEST(NcclNet, PluginLoadErrorOtherThanEnoentIsAnIssue) {
  auto p = one(info_pnl("NET/Plugin : Plugin load returned 17 : libnccl-net.so: undefined symbol: foo."));
  ASSERT_EQ(p.issues.size(), 1u);
  EXPECT_EQ(p.issues[0].kind, NcclIssueKind::kPlugin);
}

TEST(NcclNet, PluginSymbolProbingIsNormal) {
  NcclLog log = parse_nccl_log(info_pnl("NET/Plugin: Failed to find ncclNetPlugin_v9 symbol."));
  EXPECT_TRUE(log.processes[0].issues.empty());
  EXPECT_EQ(log.stats.unparsed, 0u);
}

TEST(NcclNet, LoadedNetAndCollnetPlugin_2_13_plus) {
  auto p = one(info_pnl("NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)") +
               info_pnl("NET/Plugin: Loaded collnet plugin SHARP (v8)"));
  EXPECT_EQ(p.net_plugin, "NCCL RDMA Plugin v8");
  EXPECT_EQ(p.collnet_plugin, "SHARP");
  EXPECT_EQ(p.version_min, V(2, 13, 0));
}

TEST(NcclNet, LoadedCollPlugin_2_13_to_2_21) {
  auto p = one(info_pnl("NET/Plugin: Loaded coll plugin SHARP (v5)"));
  EXPECT_EQ(p.collnet_plugin, "SHARP");
}

TEST(NcclNet, HpcxPluginOwnLines) {
  auto p = one(info_pnl("Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so") +
               info_pnl("P2P plugin v8 IBext_v8"));
  EXPECT_EQ(p.net_plugin_path, "/opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so");
  EXPECT_EQ(p.net_plugin, "IBext_v8");
}

TEST(NcclNet, OfiProvider) {
  auto p = one(info_pnl("NET/OFI Selected Provider is efa (found 16 nics)"));
  EXPECT_TRUE(p.ofi);
  EXPECT_EQ(p.ofi_provider, "efa");
}

TEST(NcclNet, PluginInitLines_2_27_plus) {
  auto p = one(info_pnl("Initialized NET plugin IB") + info_pnl("Assigned NET plugin IB to comm"));
  EXPECT_EQ(p.network, "IB");
  EXPECT_EQ(p.version_min, V(2, 27, 0));
  auto q = one(info_pnl("Failed to initialize NET plugin IB"));
  EXPECT_TRUE(q.ib_init_failed);
}

TEST(NcclNet, IbUsingList_2_12_plus_WithRelaxedOrdering) {
  auto p = one(info_pnl("NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:192.0.2.1<0>"));
  ASSERT_EQ(p.ib_devices.size(), 2u);
  EXPECT_EQ(p.ib_devices[0].name, "mlx5_0");
  EXPECT_EQ(p.ib_devices[0].port, 1);
  EXPECT_EQ(p.ib_devices[0].link_layer, "InfiniBand");
  EXPECT_EQ(p.ib_devices[1].index, 1);
  EXPECT_EQ(p.ib_devices[1].link_layer, "RoCE");
  ASSERT_EQ(p.oob_ifaces.size(), 1u);
  EXPECT_EQ(p.oob_ifaces[0].name, "eth0");
  EXPECT_EQ(p.oob_ifaces[0].address, "192.0.2.1");
  EXPECT_EQ(p.version_min, V(2, 12, 0));
}

TEST(NcclNet, IbUsingList_2_4_to_2_11_SpaceBeforeSemicolon) {
  auto p = one(info_pnl("NET/IB : Using [0]mlx5_8:1/IB [7]mlx5_16:1/RoCE ; OOB ib8:192.0.2.8<0>"));
  ASSERT_EQ(p.ib_devices.size(), 2u);
  EXPECT_EQ(p.ib_devices[1].index, 7);
  EXPECT_EQ(p.ib_devices[1].name, "mlx5_16");
}

TEST(NcclNet, IbUsingSharpSuffixAndUnspecified_2_26_plus) {
  auto p =
      one(info_pnl("NET/IB : Using [0]ibp0:1/IB/SHARP [1]mlx5_9:1/UNSPECIFIED [RO]; OOB eth0:192.0.2.73<0>"));
  ASSERT_EQ(p.ib_devices.size(), 2u);
  EXPECT_TRUE(p.ib_devices[0].sharp);
  EXPECT_EQ(p.ib_devices[0].link_layer, "InfiniBand");
  EXPECT_EQ(p.ib_devices[1].link_layer, "");
}

TEST(NcclNet, IbNoDeviceThenEmptyUsing_2_24_plus) {
  auto p =
      one(info_pnl("NET/IB : No device found.") + info_pnl("NET/IB : Using [RO]; OOB eth0:192.0.2.64<0>"));
  EXPECT_TRUE(p.ib_no_device);
  EXPECT_TRUE(p.ib_using_empty);
  EXPECT_TRUE(p.ib_devices.empty());
  EXPECT_EQ(p.version_min, V(2, 24, 0));
}

TEST(NcclNet, IbDeviceLines_2_3) {
  auto p = one(info_pnl("NET/IB : Using interface enp1s0f0 for sideband communication") +
               info_pnl("NET/IB: [0] mlx5_1:1/IB") + info_pnl("NET/IB: [1] mlx5_3:1/IB ") +
               info_pnl("Using internal Network IB"));
  ASSERT_EQ(p.ib_devices.size(), 2u);
  EXPECT_EQ(p.ib_devices[1].name, "mlx5_3");
  EXPECT_EQ(p.network, "IB");
  EXPECT_EQ(p.version_min, V(2, 3, 0));
  EXPECT_EQ(p.version_max, V(2, 3, 99));
}

TEST(NcclNet, LibibverbsMissing_WarnUpTo2_10_InfoFrom2_11) {
  auto w = one(warn("misc/ibvwrap.cc:63", "Failed to open libibverbs.so[.1]"));
  EXPECT_TRUE(w.libibverbs_missing);
  auto i = one(info_pnl("Failed to open libibverbs.so[.1]"));
  EXPECT_TRUE(i.libibverbs_missing);
  ASSERT_EQ(i.issues.size(), 1u);
  EXPECT_EQ(i.issues[0].kind, NcclIssueKind::kLibibverbs);
}

TEST(NcclNet, SocketUsingList) {
  auto p = one(info_pnl("NET/Socket : Using [0]ibs85f0:192.0.2.14<0> [1]ib0:192.0.2.15<0>"));
  ASSERT_EQ(p.socket_ifaces.size(), 2u);
  EXPECT_EQ(p.socket_ifaces[1].name, "ib0");
  EXPECT_EQ(p.socket_ifaces[1].address, "192.0.2.15");
}

TEST(NcclNet, SocketInterfacesFound_2_3) {
  auto p = one(info_pnl("NET : Using interface enp1s0f0:192.0.2.134<0>") +
               info_pnl("NET/Socket : 1 interfaces found"));
  ASSERT_EQ(p.bootstrap_ifaces.size(), 1u);
  EXPECT_EQ(p.bootstrap_ifaces[0].name, "enp1s0f0");
  // 2.0 - 2.3: the socket transport's interface list (it also carried the bootstrap).
  ASSERT_EQ(p.socket_ifaces.size(), 1u);
  EXPECT_EQ(p.socket_ifaces[0].name, "enp1s0f0");
  EXPECT_EQ(p.version_min, V(2, 0, 0));
  EXPECT_EQ(p.version_max, V(2, 3, 99));
}

TEST(NcclNet, UsingNetworkWithSpaceInName_2_6_plus) {
  auto p = one(info_pnl("Using network AWS Libfabric"));
  EXPECT_EQ(p.network, "AWS Libfabric");
}

TEST(NcclNet, BootstrapList_2_4_8_to_2_7) {
  auto p = one(info_pnl("Bootstrap : Using [0]ib8:192.0.2.8<0> [1]ib9:192.0.2.9<0>"));
  ASSERT_EQ(p.bootstrap_ifaces.size(), 2u);
  EXPECT_EQ(p.version_max, V(2, 7, 99));
}

TEST(NcclNet, BootstrapSingle_2_8_to_2_23) {
  auto p = one(info_pnl("Bootstrap : Using ibp12s0:192.0.2.32<0>"));
  ASSERT_EQ(p.bootstrap_ifaces.size(), 1u);
  EXPECT_EQ(p.bootstrap_ifaces[0].name, "ibp12s0");
  EXPECT_EQ(p.version_min, V(2, 8, 0));
  EXPECT_EQ(p.version_max, V(2, 23, 99));
}

TEST(NcclNet, BootstrapNoSpace_2_24_plus) {
  auto p = one(info_pnl("Bootstrap: Using eth0:192.0.2.120<0>"));
  ASSERT_EQ(p.bootstrap_ifaces.size(), 1u);
  EXPECT_EQ(p.version_min, V(2, 24, 0));
}

TEST(NcclNet, EnvEchoes) {
  auto p =
      one(info_pnl("NCCL_IB_DISABLE set by environment to 1.") +
          info_pnl("NCCL_NET_GDR_LEVEL set by environment to PXB") + info_pnl("NCCL_IB_HCA set to mlx5_4"));
  EXPECT_EQ(p.env.at("NCCL_IB_DISABLE"), "1");
  EXPECT_EQ(p.env.at("NCCL_NET_GDR_LEVEL"), "PXB");
  EXPECT_EQ(p.env.at("NCCL_IB_HCA"), "mlx5_4");
}

TEST(NcclNet, CommandLineEnvInForeignLines) {
  NcclLog log = parse_nccl_log(
      "user@node01:~$ NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 ./a.out\n"
      "mpirun -x NCCL_IB_GID_INDEX=3 -x \"NCCL_SOCKET_IFNAME=eth0\" ./t\n");
  EXPECT_EQ(log.command_env.at("NCCL_P2P_DISABLE"), "1");
  EXPECT_EQ(log.command_env.at("NCCL_SHM_DISABLE"), "1");
  EXPECT_EQ(log.command_env.at("NCCL_IB_GID_INDEX"), "3");
  EXPECT_EQ(log.command_env.at("NCCL_SOCKET_IFNAME"), "eth0");
}

// ---------------------------------------------------------------- GPUDirect RDMA

TEST(NcclGdr, PerPairNoModule_2_4) {
  auto p = one(info_pnl(
      "NET/IB : GPU Direct RDMA Disabled for GPU 0[0] / HCA 0 'mlx5_0' (no module or not supported by GPU)"));
  ASSERT_EQ(p.gdr_pairs.size(), 1u);
  EXPECT_FALSE(p.gdr_pairs[0].enabled);
  EXPECT_EQ(p.gdr_pairs[0].gpu, "0[0]");
}

TEST(NcclGdr, PerHcaNoModule_2_5_to_2_12) {
  auto p = one(info_pnl("NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)"));
  ASSERT_EQ(p.gdr_hca.size(), 1u);
  EXPECT_FALSE(p.gdr_hca[0].enabled);
  EXPECT_EQ(p.gdr_hca[0].name, "mlx5_0");
  EXPECT_EQ(p.gdr_hca[0].reason, "(no module)");
  EXPECT_EQ(p.version_max, V(2, 12, 99));
}

TEST(NcclGdr, PerHca_2_13_plus) {
  auto p = one(info_pnl("NET/IB : GPU Direct RDMA Enabled for HCA 1 'mlx5_1'") +
               info_pnl("NET/Socket : GPU Direct RDMA Disabled for HCA 0 'lo'"));
  ASSERT_EQ(p.gdr_hca.size(), 2u);
  EXPECT_TRUE(p.gdr_hca[0].enabled);
  EXPECT_EQ(p.gdr_hca[0].hca, 1);
  EXPECT_EQ(p.gdr_hca[0].net, "IB");
  EXPECT_EQ(p.gdr_hca[1].net, "Socket");
  EXPECT_EQ(p.version_min, V(2, 13, 0));
}

TEST(NcclGdr, PerPairDistance_2_4) {
  auto p = one(info_pnl("NET/IB : GPU Direct RDMA Disabled for GPU 2[2] / HCA 0 (distance 3 >= 2)"));
  ASSERT_EQ(p.gdr_pairs.size(), 1u);
  EXPECT_EQ(p.gdr_pairs[0].distance, 3);
  EXPECT_EQ(p.gdr_pairs[0].limit, 2);
  EXPECT_EQ(p.gdr_pairs[0].hca, "0");
}

TEST(NcclGdr, PerPairDistance_2_6_to_2_26) {
  auto p = one(info_pnl("GPU Direct RDMA Disabled for GPU 42000 / HCA 0 (distance 6 > 4)"));
  ASSERT_EQ(p.gdr_pairs.size(), 1u);
  EXPECT_EQ(p.gdr_pairs[0].gpu, "42000");
  EXPECT_EQ(p.gdr_pairs[0].distance, 6);
  EXPECT_EQ(p.gdr_pairs[0].limit, 4);
}

TEST(NcclGdr, PerPairEnabledWithMode_2_27_to_2_29) {
  auto p = one(info_pnl("GPU Direct RDMA Enabled for GPU 3 / HCA 2 (distance 4 <= 5), read 1 mode Default"));
  ASSERT_EQ(p.gdr_pairs.size(), 1u);
  EXPECT_TRUE(p.gdr_pairs[0].enabled);
  EXPECT_EQ(p.gdr_pairs[0].distance, 4);
  EXPECT_EQ(p.gdr_pairs[0].limit, 5);
}

TEST(NcclGdr, ConnectedAllRingsGdrFlag_2_24_plus) {
  auto p = one(info_pnl("Connected all rings, use ring PXN 0 GDR 0"));
  ASSERT_TRUE(p.rings_gdr.has_value());
  EXPECT_EQ(*p.rings_gdr, 0);
  EXPECT_EQ(p.version_min, V(2, 24, 0));
}

// ---------------------------------------------------------------- topology and summary lines

TEST(NcclTopo, RingOrderAndChannelListAreNotConnections) {
  auto p = one(info_pnl("Channel 00/02 :    0   1") + info_pnl("Ring 00 : 1 -> 0 -> 1") +
               info_pnl("Channel 00/04 : 0 1"));
  EXPECT_TRUE(p.connections.empty());
}

TEST(NcclTopo, CommLineWithNNodes_2_20_plus) {
  auto p = one(info_pnl("comm 0x55986b8b8560 rank 32 nRanks 64 nNodes 8 localRanks 8 localRank 0 MNNVL 0"));
  EXPECT_EQ(p.nranks, 64);
  EXPECT_EQ(p.nnodes, 8);
  EXPECT_EQ(p.ranks, std::vector<int>{32});
}

TEST(NcclTopo, InitStart_2_18_3_plus) {
  auto p = one(info_pnl(
      "comm 0x55cc8aa86c70 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 1c000 commId 0x65e0 - Init START"));
  EXPECT_EQ(p.nranks, 16);
  EXPECT_EQ(p.version_min, V(2, 18, 3));
}

TEST(NcclTopo, RankLine_2_3) {
  auto p = one(info_pnl("rank 0 nranks 8"));
  EXPECT_EQ(p.nranks, 8);
}

TEST(NcclTopo, ChannelCountLines) {
  auto a = one(info_pnl("2 coll channels, 2 p2p channels, 1 p2p channels per peer"));
  EXPECT_EQ(a.version_max, V(2, 16, 99));
  auto b = one(info_pnl("16 coll channels, 16 nvls channels, 16 p2p channels, 2 p2p channels per peer"));
  EXPECT_EQ(b.nvls_channels, 16);
  EXPECT_EQ(b.version_min, V(2, 17, 0));
  EXPECT_EQ(b.version_max, V(2, 20, 99));
  auto c = one(info_pnl(
      "16 coll channels, 0 collnet channels, 16 nvls channels, 16 p2p channels, 1 p2p channels per peer"));
  EXPECT_EQ(c.nvls_channels, 16);
  EXPECT_EQ(c.version_min, V(2, 21, 0));
}

TEST(NcclTopo, NvlsAvailability_2_17_plus) {
  EXPECT_TRUE(*one(info_pnl("NVLS multicast support is available on dev 0")).nvls_available);
  EXPECT_FALSE(*one(info_pnl("NVLS multicast support is not available on dev 4")).nvls_available);
}

TEST(NcclTopo, PerQpLidMeansInfiniBand_GidMeansRoce) {
  EXPECT_TRUE(one(info_pnl("NET/IB: Dev 0 Port 1 qpn 305 mtu 5 LID 4")).qp_lid);
  auto g =
      one(info_pnl("NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 1047 mtu 5 query_ece={supported=1} GID 0 "
                   "(80FE/1A8A41FEFF21A75E) "
                   "fifoRkey=0x15e6c5 fifoLkey=0x15e6c5"));
  EXPECT_TRUE(g.qp_gid);
  EXPECT_EQ(g.version_min, V(2, 20, 0));
}

// ---------------------------------------------------------------- errors and warnings

TEST(NcclErrors, ErrorTraceLine) {
  auto p = one(info_pnl("transport/net.cc:592 -> 2") + info_pnl("proxy.cc:858 -> 6 [Proxy Thread]"));
  ASSERT_EQ(p.issues.size(), 2u);
  EXPECT_EQ(p.issues[0].kind, NcclIssueKind::kErrorTrace);
  EXPECT_EQ(p.issues[0].status_name, "ncclSystemError");
  EXPECT_EQ(p.issues[1].status_name, "ncclRemoteError");
}

TEST(NcclErrors, IbvCallFailedStrerror_UpTo2_18) {
  auto p = one(warn("misc/ibvwrap.cc:187", "Call to ibv_modify_qp failed with error Network is unreachable"));
  ASSERT_EQ(p.issues.size(), 1u);
  EXPECT_EQ(p.issues[0].kind, NcclIssueKind::kIbvCall);
  EXPECT_EQ(p.issues[0].ibv_function, "ibv_modify_qp");
  EXPECT_EQ(p.issues[0].error_text, "Network is unreachable");
}

TEST(NcclErrors, IbvCallFailedErrno_2_19_plus_And_2_27_Form) {
  auto a = one(
      warn("misc/ibvwrap.cc:190", "Call to ibv_create_cq failed with error Cannot allocate memory errno 12"));
  EXPECT_EQ(a.issues[0].ibv_function, "ibv_create_cq");
  EXPECT_EQ(a.issues[0].error_text, "Cannot allocate memory");
  auto b = one(warn("misc/ibvwrap.cc:199",
                    "Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_0:1"));
  EXPECT_EQ(b.issues[0].ibv_function, "ibv_modify_qp");
  EXPECT_EQ(b.issues[0].error_text, "Connection timed out");
}

// The completion-error WARN of each NCCL version range: its status number and name decoded, and where a form
// tells, the version range it bounds and the peer and GID flags.
struct CompletionForm {
  const char* range;
  const char* file;
  const char* msg;
  int status;
  const char* status_name;
  NcclVersionCode version_max = 0;  // 0: not checked
  bool ib_peer_in_error = false;    // checked when true
  bool roce_gid_in_error = false;   // checked when true
};

class NcclCompletion : public testing::TestWithParam<CompletionForm> {};

TEST_P(NcclCompletion, StatusNumberAndName) {
  const auto& c = GetParam();
  auto p = one(warn(c.file, c.msg));
  ASSERT_EQ(p.issues.size(), 1u);
  EXPECT_EQ(p.issues[0].status, c.status);
  EXPECT_EQ(p.issues[0].status_name, c.status_name);
  if (c.version_max != 0) {
    EXPECT_EQ(p.version_max, c.version_max);
  }
  if (c.ib_peer_in_error) {
    EXPECT_TRUE(p.ib_peer_in_error);
  }
  if (c.roce_gid_in_error) {
    EXPECT_TRUE(p.roce_gid_in_error);
  }
}

INSTANTIATE_TEST_SUITE_P(
    NcclErrors, NcclCompletion,
    testing::Values(
        CompletionForm{.range = "v2_4_to_2_11",
                       .file = "transport/net_ib.cc:839",
                       .msg = "NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129",
                       .status = 12,
                       .status_name = "RETRY_EXC_ERR",
                       .version_max = V(2, 11, 99)},
        CompletionForm{.range = "v2_12_to_2_20_WithIpoibPeer",
                       .file = "transport/net_ib.cc:1295",
                       .msg = "NET/IB : Got completion from peer fe80::2c9:3:a:1%ib0<53249> with error "
                              "4, opcode 32564, len 32564, vendor err 81 (Send)",
                       .status = 4,
                       .status_name = "LOC_PROT_ERR",
                       .ib_peer_in_error = true},
        CompletionForm{
            .range = "v2_21_to_2_29_WithRoceGids",
            .file = "transport/net_ib.cc:1700",
            .msg = "NET/IB : Got completion from peer 192.0.2.7<55921> with status=12 opcode=1 "
                   "len=0 vendor err 129 (Send) localGid ::ffff:192.0.2.1 remoteGids::ffff:192.0.2.2",
            .status = 12,
            .status_name = "RETRY_EXC_ERR",
            .roce_gid_in_error = true},
        CompletionForm{.range = "v2_30_StatusName",
                       .file = "transport/net_ib/p2p.cc:688",
                       .msg = "NET/IB: Got completion from peer 192.0.2.7<1> with status=WR_FLUSH_ERR(5) "
                              "opcode=SEND(0) vendor_err=244",
                       .status = 5,
                       .status_name = "WR_FLUSH_ERR"}),
    [](const testing::TestParamInfo<CompletionForm>& i) { return std::string(i.param.range); });

TEST(NcclErrors, ProxyAndSocketAndPluginWarnings) {
  auto p = one(warn("proxy.cc:1519",
                    "[Proxy Service 11] Failed to execute operation Connect from rank 11, retcode 2") +
               warn("misc/socket.cc:441", "socketFinalizeAccept: wrong type 4 != 3") +
               warn("create_nccl_ofi_component:459", "NET/OFI Couldn't open a fabric provider"));
  ASSERT_EQ(p.issues.size(), 3u);
  EXPECT_EQ(p.issues[0].kind, NcclIssueKind::kProxy);
  EXPECT_EQ(p.issues[1].kind, NcclIssueKind::kSocket);
  EXPECT_EQ(p.issues[2].kind, NcclIssueKind::kPlugin);
}

TEST(NcclErrors, NetworkNotFound) {
  auto p = one(warn("net.cc:100", "Error: network Socket2 not found."));
  EXPECT_EQ(p.issues[0].kind, NcclIssueKind::kNetworkNotFound);
}

TEST(NcclErrors, WcStatusNames) {
  EXPECT_EQ(ibv_wc_status_name(4), "LOC_PROT_ERR");
  EXPECT_EQ(ibv_wc_status_name(13), "RNR_RETRY_EXC_ERR");
  EXPECT_EQ(ibv_wc_status_name(99), "");
  EXPECT_EQ(ibv_wc_status_name(-1), "");
}

// ---------------------------------------------------------------- connection lines per version

TEST(NcclConn, Ring_2_3_NoDirection) {
  auto p = one(info_pnl("Ring 00 : 0 -> 1 via NET/IB/0/GDRDMA"));
  ASSERT_EQ(p.connections.size(), 1u);
  EXPECT_EQ(p.connections[0].kind, NcclTransportKind::kNet);
  EXPECT_TRUE(p.connections[0].gdr);
}

TEST(NcclConn, Ring_2_4_BareRanksWithDirection) {
  auto p = one(info_pnl("Ring 00 : 6 -> 2 [receive] via NET/IB/0"));
  ASSERT_EQ(p.connections.size(), 1u);
  const auto& c = p.connections[0];
  EXPECT_EQ(c.from_rank, 6);
  EXPECT_EQ(c.to_rank, 2);
  EXPECT_EQ(c.direction, "receive");
  EXPECT_EQ(c.net, "IB");
  EXPECT_EQ(c.net_dev, 0);
  EXPECT_FALSE(c.gdr);
  EXPECT_EQ(p.ranks, std::vector<int>{2});  // the receiver logs [receive]
  EXPECT_EQ(p.version_min, V(2, 4, 0));
  EXPECT_EQ(p.version_max, V(2, 4, 99));
}

TEST(NcclConn, Ring_2_5_to_2_6_BusIds) {
  auto p = one(info_pnl("Ring 00 : 15[41000] -> 0[1b000] [receive] via NET/IB/0") +
               info_pnl("Ring 00 : 0[1b000] -> 1[1c000] via P2P/IPC") +
               info_pnl("Ring 00 : 0[1b000] -> 7[41000] via direct shared memory"));
  ASSERT_EQ(p.connections.size(), 3u);
  EXPECT_EQ(p.connections[1].kind, NcclTransportKind::kP2P);
  EXPECT_EQ(p.connections[2].kind, NcclTransportKind::kShm);
  EXPECT_EQ(p.version_min, V(2, 5, 0));
  EXPECT_EQ(p.version_max, V(2, 6, 99));
}

TEST(NcclConn, Channel_2_7_to_2_11_BusIdsNoConnIndex) {
  auto p = one(info_pnl("Channel 01 : 2[c7000] -> 0[87000] [receive] via NET/IB/5/GDRDMA"));
  ASSERT_EQ(p.connections.size(), 1u);
  EXPECT_EQ(p.connections[0].conn_index, -1);
  EXPECT_EQ(p.connections[0].net_dev, 5);
  EXPECT_TRUE(p.connections[0].gdr);
  EXPECT_EQ(p.version_min, V(2, 7, 0));
  EXPECT_EQ(p.version_max, V(2, 11, 99));
}

TEST(NcclConn, Channel_2_12_to_2_18_1_BusIdsSharedSuffix) {
  auto p = one(info_pnl("Channel 02/1 : 0[1b000] -> 9[3d000] [send] via NET/IB/1/GDRDMA/Shared"));
  ASSERT_EQ(p.connections.size(), 1u);
  EXPECT_EQ(p.connections[0].conn_index, 1);
  EXPECT_EQ(p.version_min, V(2, 12, 0));
  EXPECT_EQ(p.version_max, V(2, 18, 1));
}

TEST(NcclConn, Channel_2_18_3_plus_NvmlDevsPxnAndPciMode) {
  auto p = one(info_pnl("Channel 00/1 : 0[0] -> 9[1] [send] via NET/IB/0(4)/GDRDMA(PCI)/Shared"));
  ASSERT_EQ(p.connections.size(), 1u);
  EXPECT_EQ(p.connections[0].net_dev, 0);
  EXPECT_TRUE(p.connections[0].gdr);
  EXPECT_EQ(p.version_min, V(2, 26, 0));
}

TEST(NcclConn, NetNameWithSpaceAndPluginNames) {
  auto p = one(info_pnl("Channel 00/0 : 0[0] -> 8[0] [send] via NET/AWS Libfabric/0/GDRDMA") +
               info_pnl("Channel 03/0 : 47[7] -> 39[7] [receive] via NET/IBext_v8/2"));
  ASSERT_EQ(p.connections.size(), 2u);
  EXPECT_EQ(p.connections[0].net, "AWS Libfabric");
  EXPECT_EQ(p.connections[1].net, "IBext_v8");
  EXPECT_EQ(p.connections[1].net_dev, 2);
}

TEST(NcclConn, P2pAndShmVariants) {
  auto p = one(info_pnl("Channel 00/0 : 8[0] -> 15[7] via P2P/IPC/read") +
               info_pnl("Channel 04/0 : 0[0] -> 7[7] via P2P/CUMEM") +
               info_pnl("Channel 00/0 : 7[7] -> 6[6] via P2P/direct pointer/read") +
               info_pnl("Channel 00 : 0[0] -> 1[1] via SHM/direct/direct") +
               info_pnl("Channel 00 : 0[0] -> 1[1] via SHM/direct"));
  ASSERT_EQ(p.connections.size(), 5u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(p.connections[i].kind, NcclTransportKind::kP2P);
  EXPECT_EQ(p.connections[3].kind, NcclTransportKind::kShm);
  EXPECT_EQ(p.connections[4].kind, NcclTransportKind::kShm);
}

TEST(NcclConn, CollNetLine) {
  auto p = one(info_pnl("CollNet 00/0 : 3 [send] via COLLNET/IBext/0/GDRDMA"));
  ASSERT_EQ(p.connections.size(), 1u);
  EXPECT_EQ(p.connections[0].kind, NcclTransportKind::kCollNet);
  EXPECT_EQ(p.connections[0].net, "IBext");
  EXPECT_TRUE(p.connections[0].gdr);
}

TEST(NcclConn, NcclTestsHeaderRanks) {
  NcclLog log = parse_nccl_log(
      "#  Rank  0 Group  0 Pid 1789224 on H20-GPU-05 device  0 [0000:18:00] NVIDIA H20\n"
      "#   Rank  1 Pid 120890 on node01 device  1 [0x8d] A100-SXM4-40GB\n");
  ASSERT_EQ(log.tests_ranks.size(), 2u);
  EXPECT_EQ(log.tests_ranks[0].host, "H20-GPU-05");
  EXPECT_EQ(log.tests_ranks[1].rank, 1);
  EXPECT_EQ(log.tests_ranks[1].pid, 120890);
}

// ---------------------------------------------------------------- robustness

TEST(NcclRobust, TruncatedLastLineIsParsedAndFlagged) {
  NcclLog log = parse_nccl_log(info_pnl("Using network IB") +
                               "node01:100:101 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/I");
  EXPECT_TRUE(log.stats.truncated);
  EXPECT_EQ(log.stats.lines, 2u);
  ASSERT_EQ(log.processes.size(), 1u);
  ASSERT_EQ(log.processes[0].ib_devices.size(), 1u);
  EXPECT_EQ(log.processes[0].ib_devices[0].link_layer, "");  // `/I` is no link layer word
}

TEST(NcclRobust, BinaryLinesSkippedAndCounted) {
  std::string bin("\x00\x01\x02\x03\x04\x05\x06\x07\x08garbage\x00", 17);
  NcclLog log = parse_nccl_log(bin + "\n" + info_pnl("Using network Socket") + bin + "\n");
  EXPECT_EQ(log.stats.skipped_binary, 2u);
  ASSERT_EQ(log.processes.size(), 1u);
  EXPECT_EQ(log.processes[0].network, "Socket");
}

TEST(NcclRobust, TenMegabyteSingleLineSkippedWithBoundedMemory) {
  std::string big(10 * 1024 * 1024, 'A');
  big.replace(0, 30, "node01:1:1 [0] NCCL INFO Using ");
  NcclLogParser p("big");
  // Fed in 64 KiB chunks, as a file would be: the parser never holds more than kMaxLineBytes of it.
  for (std::size_t off = 0; off < big.size(); off += 65536) p.feed(std::string_view(big).substr(off, 65536));
  p.feed("\n" + info_pnl("Using network IB"));
  NcclLog log = p.finish();
  EXPECT_EQ(log.stats.skipped_overlong, 1u);
  EXPECT_EQ(log.stats.lines, 2u);
  EXPECT_EQ(log.stats.bytes, big.size() + 1 + info_pnl("Using network IB").size());
  ASSERT_EQ(log.processes.size(), 1u);
  EXPECT_EQ(log.processes[0].network, "IB");
}

TEST(NcclRobust, TenMegabyteLineWithoutNewlineIsTruncatedAndSkipped) {
  std::string big(10 * 1024 * 1024, 'x');
  NcclLog log = parse_nccl_log(big);
  EXPECT_EQ(log.stats.skipped_overlong, 1u);
  EXPECT_TRUE(log.stats.truncated);
  EXPECT_TRUE(log.processes.empty());
}

TEST(NcclRobust, ChunkingDoesNotChangeTheResult) {
  std::string text =
      info_pnl("NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB eth0:192.0.2.1<0>") + "\r\n" +
      info_pnl("Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA") +
      warn("misc/ibvwrap.cc:187", "Call to ibv_modify_qp failed with error Network is unreachable");
  NcclLog whole = parse_nccl_log(text);
  NcclLogParser p;
  for (char c : text) p.feed(std::string_view(&c, 1));
  NcclLog bytes = p.finish();
  ASSERT_EQ(whole.processes.size(), 1u);
  ASSERT_EQ(bytes.processes.size(), 1u);
  EXPECT_EQ(whole.stats.lines, bytes.stats.lines);
  EXPECT_EQ(whole.stats.blank_lines, bytes.stats.blank_lines);
  EXPECT_EQ(whole.processes[0].connections.size(), bytes.processes[0].connections.size());
  EXPECT_EQ(whole.processes[0].issues.size(), bytes.processes[0].issues.size());
  EXPECT_EQ(bytes.processes[0].ib_devices.size(), 1u);
  EXPECT_TRUE(bytes.processes[0].connections[0].gdr);
}

TEST(NcclRobust, ConnectionStorageIsCappedButCounted) {
  std::string text;
  for (std::size_t i = 0; i < kMaxConnections + 10; ++i)
    text += info_pnl("Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0");
  auto p = one(text);
  EXPECT_EQ(p.connections.size(), kMaxConnections);
  EXPECT_EQ(p.connections_total, kMaxConnections + 10);
}

TEST(NcclRobust, EveryLineLandsInExactlyOneCounter) {
  std::string text = "\n" + info_pnl("Using network IB") + "hello world\nUsing network Socket\n" +
                     std::string("\x01\x02\x03\x04", 4) + "\n";
  NcclLog log = parse_nccl_log(text);
  const auto& s = log.stats;
  EXPECT_EQ(s.lines, s.nccl_lines + s.message_only_lines + s.foreign_lines + s.blank_lines +
                         s.skipped_overlong + s.skipped_binary);
  EXPECT_EQ(s.lines, 5u);
}

TEST(NcclRobust, MissingFileIsUsageError) {
  EXPECT_THROW(parse_nccl_log_file("/nonexistent/nccl.log"), fabcheck::UsageError);
  EXPECT_THROW(parse_nccl_log_file("/"), fabcheck::UsageError);
}
