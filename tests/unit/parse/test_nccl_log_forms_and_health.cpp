// Reading real NCCL logs right: the reader's line forms seen in real logs (merged NICs, NCCL 2.0 - 2.2
// envelopes, empty host fields, retries, proxy INFO, env echoes with trailing text, command lines vs prose,
// bare version lines, error echoes), the health classes, decodings, headline and findings of
// report/transport_health.hpp, and the edge cases a hostile reader raised against both.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "../analysis/transport_fixtures.hpp"
#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/transport.hpp"
#include "fabcheck/report/transport_health.hpp"

using namespace fabcheck;
using parse::NcclIssueKind;
using parse::parse_nccl_log;

namespace {

std::string info(const std::string& host, const std::string& msg) {
  return host + ":100:101 [0] NCCL INFO " + msg + "\n";
}
std::string warn_line(const std::string& host, const std::string& msg) {
  return host + ":100:102 [0] misc/ibvwrap.cc:190 NCCL WARN " + msg + "\n";
}

report::TransportResult analyze(const std::string& text) {
  return testing_fixtures::analyze_log(parse_nccl_log(text));
}

bool has_code(const report::TransportResult& r, const std::string& code) {
  return std::ranges::any_of(r.findings, [&](const auto& f) { return f.code == code; });
}

}  // namespace

// ---------------------------------------------------------------- reader

TEST(NcclLogRealForms, MergedNicListIsOneNetDevicePerGroup) {
  auto log =
      parse_nccl_log(info("n1",
                          "NET/IB : Using [0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE} [1]={[2] mlx5_4:1/RoCE, "
                          "[3] mlx5_5:1/RoCE} [RO]; OOB eth0:192.0.2.1<0>"));
  const auto& d = log.processes.at(0).ib_devices;
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].index, 0);
  EXPECT_EQ(d[0].name, "mlx5_2+mlx5_3");
  EXPECT_EQ(d[0].link_layer, "RoCE");
  EXPECT_EQ(d[1].index, 1);
  EXPECT_EQ(d[1].name, "mlx5_4+mlx5_5");
  EXPECT_EQ(log.processes[0].oob_ifaces.at(0).name, "eth0");
  EXPECT_GE(log.processes[0].version_min, 21900);
}

TEST(NcclLogRealForms, OldEnvelopeWithoutTheNcclWord) {
  // NCCL 2.0 - 2.2 (horovod/horovod#57, #147): `host:pid:tid [dev] INFO msg`, `... file:line WARN msg`.
  auto log = parse_nccl_log(
      "node01:54573:54696 [1] include/socket.h:194 WARN Call to recv failed : Connection reset by peer\n"
      "node01:54573:54696 [1] INFO bootstrap.cu:169 -> 2\n"
      "Application said: INFO this is not NCCL\n");
  ASSERT_EQ(log.processes.size(), 1u);
  EXPECT_EQ(log.processes[0].host, "node01");
  ASSERT_EQ(log.processes[0].issues.size(), 2u);
  EXPECT_EQ(log.processes[0].issues[0].kind, NcclIssueKind::kSocket);
  EXPECT_TRUE(log.processes[0].issues[0].warn_level);
  EXPECT_EQ(log.processes[0].issues[1].kind, NcclIssueKind::kErrorTrace);
  EXPECT_EQ(log.stats.foreign_lines, 1u);
}

TEST(NcclLogRealForms, EmptyHostFieldKeepsThePid) {
  auto log = parse_nccl_log(
      ":1701:1740 [0] NCCL INFO Using network IB\n:1802:1840 [0] NCCL INFO Using network IB\n");
  ASSERT_EQ(log.processes.size(), 2u);
  EXPECT_EQ(log.processes[0].host, "");
  EXPECT_EQ(log.processes[0].pid, 1701);
  EXPECT_EQ(log.processes[1].pid, 1802);
}

TEST(NcclLogRealForms, RetriesAndProxyAffinityLinesAreNotIssues) {
  auto log = parse_nccl_log(
      info("n1", "[Proxy Service] Device 1 CPU core 142") +
      info("n1", "[Proxy Service UDS] Device 1 CPU core 6") +
      info("n1", "Call to connect returned Connection refused, retrying") +
      info("n1",
           "Call to ibv_modify_qp failed with 110 Connection timed out, curr state INIT, next state RTR, "
           "local GID "
           "index 3, retrying 1/5 after 100 msec of sleep") +
      info("n1", "[Proxy Service 11] Failed to execute operation Connect from rank 11, retcode 2"));
  const auto& p = log.processes.at(0);
  EXPECT_EQ(p.ib_retries, 1u);
  EXPECT_EQ(p.socket_retries, 1u);
  ASSERT_EQ(p.issues.size(), 1u);  // only the proxy's failure form
  EXPECT_EQ(p.issues[0].kind, NcclIssueKind::kProxy);
}

TEST(NcclLogRealForms, EnvEchoValueIsTheFirstWord) {
  auto log = parse_nccl_log(info("n1", "NCCL_IB_DISABLE set by environment to 1. [rank 0 of 2]") +
                            info("n1", "NCCL_SOCKET_IFNAME set by environment to eth0"));
  EXPECT_EQ(log.processes.at(0).env.at("NCCL_IB_DISABLE"), "1");
  EXPECT_EQ(log.processes.at(0).env.at("NCCL_SOCKET_IFNAME"), "eth0");
}

TEST(NcclLogRealForms, CommandEnvOnlyFromCommandLines) {
  auto log = parse_nccl_log(
      "# we tried NCCL_IB_DISABLE=1 first\n"
      "The wrapper sets NCCL_NET=Socket sometimes\n"
      "export NCCL_IB_GID_INDEX=3\n"
      "root@node01:/workspace# NCCL_DEBUG=INFO ./all_reduce_perf -b 8\n"
      "srun -N2 --export=ALL,NCCL_SOCKET_IFNAME=eth0 ./t\n");
  EXPECT_EQ(log.command_env.count("NCCL_IB_DISABLE"), 0u);
  EXPECT_EQ(log.command_env.count("NCCL_NET"), 0u);
  EXPECT_EQ(log.command_env.at("NCCL_IB_GID_INDEX"), "3");
  EXPECT_EQ(log.command_env.at("NCCL_DEBUG"), "INFO");
}

TEST(NcclLogRealForms, NcclEchoBeatsACommandLine) {
  auto r = analyze("NCCL_IB_DISABLE=0 ./app\n" + info("n1", "NCCL_IB_DISABLE set by environment to 1.") +
                   info("n1", "Using network Socket"));
  EXPECT_EQ(r.env.at("NCCL_IB_DISABLE"), "1");
}

TEST(NcclLogRealForms, BareVersionGoesToTheSurroundingHost) {
  auto log = parse_nccl_log(info("node04", "Bootstrap : Using eth0:192.0.2.1<0>") +
                            "NCCL version 2.19.3+cuda12.3\n" + info("node04", "Using network IB") +
                            info("node03", "Using network IB"));
  ASSERT_EQ(log.processes.size(), 2u);
  EXPECT_EQ(log.processes[0].version, "2.19.3+cuda12.3");
  EXPECT_EQ(log.processes[1].version, "");
  EXPECT_TRUE(log.bare_versions.empty());
  // Between two hosts' lines it stays unattributed.
  auto between = parse_nccl_log(info("a", "Using network IB") + "NCCL version 2.7.8+cuda11.0\n" +
                                info("b", "Using network IB"));
  EXPECT_EQ(between.bare_versions.size(), 1u);
}

TEST(NcclLogRealForms, BareVersionUnderTagOutputGoesToThatRank) {
  auto log = parse_nccl_log(
      "[1,1]<stdout>:node02:200:201 [0] NCCL INFO Using network IB\n"
      "[1,0]<stdout>:node01:100:101 [0] NCCL INFO Using network IB\n"
      "[1,1]<stdout>:NCCL version 2.4.2+cuda10.0\n"
      "[1,0]<stdout>:node01:100:101 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).\n");
  ASSERT_EQ(log.processes.size(), 2u);
  EXPECT_EQ(log.processes[0].host, "node02");
  EXPECT_EQ(log.processes[0].version, "2.4.2+cuda10.0");
}

TEST(NcclLogRealForms, ErrorEchoWithoutPrefixIsNoHost) {
  auto log =
      parse_nccl_log(warn_line("node01", "Call to ibv_modify_qp failed with error Network is unreachable") +
                     "Last error:\nCall to ibv_modify_qp failed with error Network is unreachable\n"
                     "# Call to ibv_modify_qp failed with error Network is unreachable\n");
  ASSERT_EQ(log.processes.size(), 1u);
  EXPECT_EQ(log.processes[0].host, "node01");
  EXPECT_EQ(log.processes[0].issues.size(), 1u);
  EXPECT_EQ(log.stats.lines, log.stats.nccl_lines + log.stats.message_only_lines + log.stats.foreign_lines +
                                 log.stats.blank_lines + log.stats.skipped_overlong +
                                 log.stats.skipped_binary);
  // A prefix-cut envelope (` NCCL WARN msg`) is NCCL's own line and stays (public/p04).
  auto cut =
      parse_nccl_log(info("node01", "Using network IB") +
                     "NCCL WARN NET/IB : Got completion from peer 192.0.2.7<1> with status=12 opcode=1 len=0 "
                     "vendor err 129\n");
  EXPECT_EQ(cut.processes.size(), 2u);
}

TEST(NcclLogRealForms, TopologyNetBandwidth) {
  auto log = parse_nccl_log(info("n1", "                + NET[1.2] - NET/0 (0/0/1.250000)"));
  EXPECT_DOUBLE_EQ(log.processes.at(0).topo_net_gbps.at(0), 1.25);
}

// ---------------------------------------------------------------- health

TEST(NcclLogHealth, ClassesOfEachIssueKind) {
  auto cls_of = [](NcclIssueKind k, const std::string& msg, bool warn_level, const std::string& fn = "") {
    parse::NcclIssue is;
    is.kind = k;
    is.message = msg;
    is.warn_level = warn_level;
    is.ibv_function = fn;
    is.status = k == NcclIssueKind::kErrorTrace ? 2 : -1;
    report::NcclErrorClass c;
    bool fatal = false;
    bool is_error = report::classify_issue(is, c, fatal);
    return is_error ? std::string(report::name(c)) + (fatal ? "!" : "") : std::string("-");
  };
  EXPECT_EQ(cls_of(NcclIssueKind::kIbvCall, "Call to ibv_modify_qp failed", true, "ibv_modify_qp"),
            "ib_connect!");
  EXPECT_EQ(cls_of(NcclIssueKind::kIbvCall, "Call to ibv_reg_mr failed", true, "ibv_reg_mr"), "ib_resource!");
  EXPECT_EQ(cls_of(NcclIssueKind::kCompletion, "NET/IB : Got completion", true), "ib_completion!");
  EXPECT_EQ(cls_of(NcclIssueKind::kSocket, "socketProgress: Connection closed by remote peer", true),
            "socket!");
  EXPECT_EQ(cls_of(NcclIssueKind::kSocket, "Connect to 192.0.2.1<1> failed : Connection refused", true),
            "bootstrap!");
  EXPECT_EQ(cls_of(NcclIssueKind::kWarn, "Bootstrap : no socket interface found", true), "bootstrap!");
  EXPECT_EQ(cls_of(NcclIssueKind::kWarn, "Cuda failure 'out of memory'", true), "system_error!");
  EXPECT_EQ(cls_of(NcclIssueKind::kWarn, "NET/IB : Unable to set GID type", true), "other_warn");
  EXPECT_EQ(cls_of(NcclIssueKind::kPlugin, "NET/OFI Initializing plugin failed", true), "plugin");
  EXPECT_EQ(cls_of(NcclIssueKind::kPlugin, "Failed to initialize NET plugin IB", false), "-");
  EXPECT_EQ(cls_of(NcclIssueKind::kNetworkNotFound, "Error: network Foo not found.", true), "plugin!");
  EXPECT_EQ(cls_of(NcclIssueKind::kLibibverbs, "Failed to open libibverbs.so", false), "libibverbs");
  // Traces count where they show the failing phase; plugin probes and transport frames do not.
  EXPECT_EQ(cls_of(NcclIssueKind::kErrorTrace, "bootstrap.cc:82 -> 2", false), "bootstrap!");
  EXPECT_EQ(cls_of(NcclIssueKind::kErrorTrace, "init.cc:1452 -> 2", false), "system_error!");
  EXPECT_EQ(cls_of(NcclIssueKind::kErrorTrace, "net.cc:79 -> 2", false), "-");
  EXPECT_EQ(cls_of(NcclIssueKind::kErrorTrace, "transport/net_ib.cc:1054 -> 2", false), "-");
}

TEST(NcclLogHealth, DecodingsSayWhatTheErrorMeans) {
  EXPECT_NE(report::completion_meaning(4).find("PCIe ACS"), std::string::npos);
  EXPECT_NE(report::completion_meaning(4).find("not the fabric"), std::string::npos);
  EXPECT_NE(report::completion_meaning(12).find("lossy RoCE"), std::string::npos);
  EXPECT_NE(report::completion_meaning(13).find("did not post receives"), std::string::npos);
  EXPECT_NE(report::completion_meaning(5).find("consequence"), std::string::npos);
  EXPECT_NE(report::ibv_call_meaning("ibv_modify_qp", "Connection timed out").find("GID"), std::string::npos);
  EXPECT_NE(report::ibv_call_meaning("ibv_modify_qp", "Network is unreachable").find("no route"),
            std::string::npos);
  EXPECT_NE(report::ibv_call_meaning("ibv_modify_qp", "No such device").find("empty GID slot"),
            std::string::npos);
  EXPECT_NE(report::ibv_call_meaning("ibv_modify_qp", "Invalid argument").find("port not ACTIVE"),
            std::string::npos);
  EXPECT_NE(report::ibv_call_meaning("ibv_reg_mr", "Cannot allocate memory").find("ulimit -l"),
            std::string::npos);
}

TEST(NcclLogHealth, FailedConnectionIsAFailFindingWithCountHostsAndFirstLine) {
  std::string text = info("node01", "NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:192.0.2.1<0>") +
                     info("node01", "Using network IB") +
                     info("node01", "comm 0x1 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0");
  for (int i = 0; i < 17; ++i)
    text += warn_line("node01", "Call to ibv_modify_qp failed with error Network is unreachable");
  text += "node01:100:102 [0] NCCL INFO socketProgress: Connection closed by remote peer node02<1234>\n";
  auto r = analyze(text);
  EXPECT_EQ(r.run.verdict, "rdma");      // what was attempted
  EXPECT_EQ(r.run.gdr, "unknown");       // no connection line says
  EXPECT_EQ(r.health.status, "failed");  // whether it worked
  EXPECT_EQ(report::render_transport(r).substr(0, report::render_transport(r).find('\n')),
            "transport verdict: rdma \u2014 connection setup FAILED on node01 (ibv_modify_qp: Network is "
            "unreachable \u00d717)");
  const report::Finding* f = nullptr;
  for (const auto& x : r.findings)
    if (x.code == "NCCL_IB_CONNECT_FAILED") f = &x;
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, report::Severity::kFail);
  EXPECT_EQ(f->evidence["count"], 17);
  EXPECT_EQ(f->evidence["host"], "node01");
  EXPECT_EQ(f->evidence["first"]["message"],
            "Call to ibv_modify_qp failed with error Network is unreachable");
  EXPECT_NE(f->remedy.find("NCCL_IB_GID_INDEX"), std::string::npos);
  // The INFO-level socket line is not a second finding.
  EXPECT_FALSE(has_code(r, "NCCL_PEER_CONNECTION_LOST"));
}

TEST(NcclLogHealth, HealthyLogIsOkWithZeroErrors) {
  auto r = analyze(info("n1", "Using network IB") + info("n1", "[Proxy Service] Device 0 CPU core 142") +
                   info("n1", "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin."));
  EXPECT_EQ(r.health.status, "ok");
  EXPECT_EQ(r.health.errors, 0u);
  EXPECT_TRUE(report::health_headline(r.health).empty());
  ASSERT_EQ(r.per_host.size(), 1u);
  EXPECT_EQ(r.per_host[0].errors_total, 0u);
  EXPECT_EQ(r.per_host[0].health, "ok");
}

TEST(NcclLogHealth, LibibverbsMissingIsNotNoHardware) {
  auto r = analyze(info("a", "Failed to open libibverbs.so[.1]") +
                   info("a", "NET/Socket : Using [0]eth0:192.0.2.1<0>") + info("a", "Using network Socket") +
                   info("b", "Failed to open libibverbs.so[.1]") + info("b", "Using network Socket"));
  EXPECT_EQ(r.run.network, "socket");
  EXPECT_EQ(r.run.verdict, "unknown");
  EXPECT_EQ(r.run.cause, "libibverbs_missing");
  EXPECT_EQ(r.health.status, "degraded");
  EXPECT_TRUE(has_code(r, "RDMA_SOFTWARE_MISSING"));
  for (const auto& f : r.findings)
    if (f.code == "RDMA_SOFTWARE_MISSING") {
      EXPECT_NE(f.remedy.find("/dev/infiniband"), std::string::npos);
    }
}

TEST(NcclLogHealth, IbChosenWithNothingInterNodeIsUnknown) {
  auto r = analyze(info("n1", "NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB ib0:192.0.2.1<0>") +
                   info("n1", "Using network IB"));
  EXPECT_EQ(r.run.network, "ib_verbs");
  EXPECT_FALSE(r.inter_node.has_value());
  EXPECT_EQ(r.run.verdict, "unknown");
}

TEST(NcclLogHealth, OneProcessSeveralGpusOnlyP2pIsIntraNode) {
  auto r =
      analyze(info("n1", "Using network IB") + info("n1", "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read") +
              info("n1", "Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM/read"));
  ASSERT_TRUE(r.inter_node.has_value());
  EXPECT_FALSE(*r.inter_node);
  EXPECT_EQ(r.run.verdict, "intra_node_only");
}

TEST(NcclLogHealth, SocketOnOneOfSeveralNicsNamesTheCeiling) {
  std::string text;
  for (const char* h : {"node01", "node02"}) {
    text += info(h, "NET/Socket : Using [0]eth0:192.0.2.1<0> [1]eth1:198.51.100.1<0>");
    text += info(h, "Using network Socket");
    text += info(h, "+ NET[1.2] - NET/0 (0/0/1.250000)");
    text += info(h, "Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/0");
    text += info(h, "Channel 01/0 : 1[0] -> 0[0] [receive] via NET/Socket/0");
  }
  auto r = analyze(text);
  const report::Finding* f = nullptr;
  for (const auto& x : r.findings)
    if (x.code == "SOCKET_SINGLE_NIC") f = &x;
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, report::Severity::kWarn);
  EXPECT_EQ(f->evidence["hosts"].size(), 2u);
  EXPECT_DOUBLE_EQ(f->evidence["hosts"][0]["ceiling_gbit"].get<double>(), 10.0);
  EXPECT_NE(f->message.find("NET/Socket/0 (eth0)"), std::string::npos) << f->message;
}

TEST(NcclLogHealth, InstalledPluginWithNoDeviceIsNotHardware) {
  std::string text;
  for (const char* h : {"vm1", "vm2"}) {
    text += info(h, "Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so");
    text += info(h, "P2P plugin IBext");
    text += info(h, "NET/IB : No device found.");
    text += info(h, "Using network Socket");
  }
  auto r = analyze(text);
  EXPECT_EQ(r.run.verdict, "no_rdma_hardware");
  EXPECT_EQ(r.run.cause, "no_device");
  EXPECT_FALSE(has_code(r, "RDMA_FALLBACK_SOCKET"));
  ASSERT_EQ(r.per_host.size(), 2u);
  EXPECT_EQ(r.per_host[0].net_plugin, "IBext (did not come up)");
}

TEST(NcclLogHealth, HealthJsonCarriesClassesAndHeadline) {
  auto r =
      analyze(info("n1", "Using network IB") + info("n1", "comm 0x1 rank 0 nRanks 2 nNodes 2") +
              warn_line("n1",
                        "NET/IB : Got completion from peer 192.0.2.2<1> with status=12 opcode=0 len=0 vendor "
                        "err 129 (Send)"));
  report::Document doc;
  report::add_transport(doc, r);
  const auto& h = doc.json()["transport"]["health"];
  EXPECT_EQ(h["status"], "failed");
  ASSERT_EQ(h["classes"].size(), 1u);
  EXPECT_EQ(h["classes"][0]["class"], "ib_completion");
  EXPECT_EQ(h["classes"][0]["details"]["RETRY_EXC_ERR (12)"], 1);
  EXPECT_EQ(h["headline"], "data transfer FAILED on n1 (RETRY_EXC_ERR (12) \u00d71)");
}

// ---------------------------------------------------------------- edge cases (a hostile reader's cases)

namespace {

std::string two_host_ib() {
  std::string t;
  for (const char* h : {"node01", "node02"}) {
    t += info(h, "NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB ib0:192.0.2.1<0>");
    t += info(h, "Using network IB");
    t += info(h, "comm 0x1 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0");
    t += info(h, "Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/0/GDRDMA");
  }
  return t;
}

const report::Finding* finding_nli(const report::TransportResult& r, const std::string& code) {
  for (const auto& f : r.findings)
    if (f.code == code) return &f;
  return nullptr;
}

}  // namespace

TEST(NcclLogEdgeCases, AsyncFatalEventsFailNonFatalOnesDoNot) {
  for (const char* m :
       {"NET/IB : mlx5_0:1 async fatal event: local catastrophic error",
        "NET/IB : mlx5_0:1 async fatal event on QP (0x1a2b): local access violation work queue error",
        "NET/IB : Got async event : port error"}) {
    auto r = analyze(two_host_ib() + warn_line("node02", m));
    EXPECT_EQ(r.health.status, "failed") << m;
    ASSERT_NE(finding_nli(r, "NCCL_IB_DEVICE_ERROR"), nullptr) << m;
    EXPECT_EQ(finding_nli(r, "NCCL_IB_DEVICE_ERROR")->evidence["host"], "node02");
  }
  for (const char* m : {"NET/IB : mlx5_0:1 Got async event : GID table change",
                        "NET/IB : mlx5_0:1 async non-fatal event: port active",
                        "NET/IB : mlx5_0:1 Got async event : client reregistration",
                        "nvmlDeviceGetNvLinkRemoteDeviceType() failed: Not Supported"}) {
    auto r = analyze(two_host_ib() + warn_line("node02", m));
    EXPECT_EQ(r.health.status, "ok") << m;
  }
}

TEST(NcclLogEdgeCases, ALateRootCauseIsNotLostBehindManyWarnings) {
  std::string t = two_host_ib();
  for (int i = 0; i < 300; ++i) t += warn_line("node01", "nvmlDeviceGetFieldValues() failed: Unknown Error");
  t += warn_line("node01", "Call to ibv_modify_qp failed with error Network is unreachable");
  auto r = analyze(t);
  EXPECT_EQ(r.health.status, "failed");
  EXPECT_NE(finding_nli(r, "NCCL_IB_CONNECT_FAILED"), nullptr);
  // 300 flushed work requests, then the status that caused them: the headline names 12, counts stay whole.
  std::string u = two_host_ib();
  for (int i = 0; i < 300; ++i)
    u += warn_line(
        "node01",
        "NET/IB : Got completion from peer 192.0.2.2<1> with status=5 opcode=0 len=0 vendor err 249");
  u += warn_line(
      "node01",
      "NET/IB : Got completion from peer 192.0.2.2<1> with status=12 opcode=0 len=0 vendor err 129");
  auto q = analyze(u);
  ASSERT_FALSE(q.health.groups.empty());
  EXPECT_EQ(q.health.groups[0].top_detail, "RETRY_EXC_ERR (12)");
  EXPECT_EQ(q.health.groups[0].details.at("WR_FLUSH_ERR (5)"), 300u);
  EXPECT_EQ(q.health.groups[0].count, 301u);
}

TEST(NcclLogEdgeCases, OfiDataPathErrorIsATransferFailure) {
  auto r = analyze(
      info("a", "Using network AWS Libfabric") + info("a", "comm 0x1 rank 0 nRanks 2 nNodes 2") +
      warn_line("a",
                "NET/OFI Request 0x7f completed with error. RC: 5. Error: Input/output error. "
                "Completed length: 0, Request: { dev: 0, size: 1048576, state: CREATED, type: SEND }"));
  EXPECT_EQ(r.health.status, "failed");
  EXPECT_NE(finding_nli(r, "NCCL_IB_COMPLETION_ERROR"), nullptr);
  EXPECT_EQ(finding_nli(r, "NCCL_NET_PLUGIN_FAILED"), nullptr);
}

TEST(NcclLogEdgeCases, ApplicationErrorsCountOnlyWithoutNcclsOwn) {
  // PyTorch's summary and its `Last error:` echo are all the log shows of the failure.
  auto r =
      analyze(two_host_ib() +
              "[rank1]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:2006, remote "
              "process exited or there was a network error, NCCL version 2.21.5\n"
              "[rank1]: Last error:\n"
              "[rank1]: NET/IB : Got completion from peer 192.0.2.11<40000> with status=12 opcode=0 len=0 "
              "vendor err 129 (Send)\n");
  EXPECT_EQ(r.health.status, "failed");
  EXPECT_NE(finding_nli(r, "NCCL_IB_COMPLETION_ERROR"), nullptr);
  ASSERT_EQ(r.per_host.size(), 2u);  // no third host for the echo
  // nccl-tests' own summary line.
  auto t = analyze(two_host_ib() +
                   " node01: Test NCCL failure common.cu:1279 'remote process exited or there was a "
                   "network error / '\n");
  EXPECT_EQ(t.health.status, "failed");
  // When NCCL's lines show the failure, the echo adds nothing.
  auto u = analyze(two_host_ib() +
                   warn_line("node01", "Call to ibv_modify_qp failed with error Network is unreachable") +
                   "Last error:\nCall to ibv_modify_qp failed with error Network is unreachable\n");
  ASSERT_EQ(u.health.groups.size(), 1u);
  EXPECT_EQ(u.health.groups[0].count, 1u);
}

TEST(NcclLogEdgeCases, SocketAndProbeWarnings) {
  auto truncated =
      analyze(two_host_ib() + warn_line("node02",
                                        "NET/Socket : peer 192.0.2.11<40123> message truncated : "
                                        "receiving 1048576 bytes instead of 65536"));
  EXPECT_EQ(truncated.health.status, "failed");
  // NCCL skips an HCA it cannot open and runs on the others: a warning, not a failure.
  auto skipped = analyze(two_host_ib() + warn_line("node01", "Call to ibv_open_device failed") +
                         warn_line("node01", "NET/IB : Unable to open device mlx5_2"));
  EXPECT_EQ(skipped.health.status, "degraded");
  EXPECT_EQ(finding_nli(skipped, "NCCL_IB_RESOURCE_FAILED"), nullptr);
  // socketStartConnect whose frames run through the IB transport is the IB connection setup.
  auto oob = analyze(
      two_host_ib() +
      "node02:100:102 [0] misc/socket.cc:500 NCCL WARN socketStartConnect: Connect to 192.0.2.1<4321> "
      "failed : Connection refused\n" +
      info("node02", "misc/socket.cc:560 -> 6") + info("node02", "transport/net_ib.cc:1054 -> 6"));
  EXPECT_NE(finding_nli(oob, "NCCL_IB_CONNECT_FAILED"), nullptr);
  EXPECT_EQ(finding_nli(oob, "NCCL_BOOTSTRAP_FAILED"), nullptr);
}

TEST(NcclLogEdgeCases, IbDisableIsNcclsIntegerParse) {
  auto base = [](const std::string& v) {
    return info("a", "NCCL_IB_DISABLE set by environment to " + v + ".") + info("a", "Using network Socket") +
           info("b", "Using network Socket") + info("a", "Bootstrap : Using ib0:192.0.2.1<0>");
  };
  EXPECT_EQ(analyze(base("10")).run.verdict, "socket_configured");
  EXPECT_EQ(analyze(base("-1")).run.verdict, "socket_configured");
  EXPECT_NE(analyze(base("0")).run.verdict, "socket_configured");
  EXPECT_NE(analyze(base("true")).run.verdict, "socket_configured");  // strtoll("true") is 0
}

TEST(NcclLogEdgeCases, QuotedOrCommentedLinesAreNotNccl) {
  auto r = analyze(
      two_host_ib() +
      "# previous run: node01:100:102 [0] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_modify_qp failed\n"
      "echo \"node02:100:102 [0] transport/net_ib.cc:1 NCCL WARN NET/IB : Got completion from peer x "
      "with status=12\"\n");
  EXPECT_EQ(r.health.status, "ok");
  for (const auto& h : r.per_host) EXPECT_EQ(h.host.find('"'), std::string::npos) << h.host;
}

TEST(NcclLogEdgeCases, GluedTagOutputLinesKeepTheirHosts) {
  auto log = parse_nccl_log(
      "[1,0]<stdout>:node01:1:2 [0] NCCL INFO Connected all trees[1,1]<stderr>:node02:3:4 [0] "
      "misc/ibvwrap.cc:190 NCCL WARN Call to ibv_modify_qp failed with error Network is "
      "unreachable\n");
  ASSERT_EQ(log.processes.size(), 2u);
  EXPECT_TRUE(log.processes[0].issues.empty());
  ASSERT_EQ(log.processes[1].issues.size(), 1u);
  EXPECT_EQ(log.processes[1].host, "node02");
  EXPECT_EQ(log.processes[1].issues[0].error_text, "Network is unreachable");
  EXPECT_EQ(log.stats.lines, 1u);
  EXPECT_EQ(log.stats.nccl_lines, 1u);
}

TEST(NcclLogEdgeCases, NoNcclLineIsHealthUnknownAndOneRootCarriesTheConsequences) {
  auto empty = analyze("");
  EXPECT_EQ(empty.health.status, "unknown");
  EXPECT_NE(report::render_transport(empty).find("no NCCL line"), std::string::npos);
  auto r = analyze(
      two_host_ib() + warn_line("node01", "Call to ibv_modify_qp failed with error Connection timed out") +
      "node02:100:102 [0] bootstrap.cc:80 NCCL WARN Bootstrap : connect to root failed\n" +
      "node02:100:103 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote "
      "peer node01<1>\n");
  std::size_t carriers = 0;
  for (const auto& f : r.findings) carriers += f.evidence.contains("consequences");
  EXPECT_EQ(carriers, 1u);
}
