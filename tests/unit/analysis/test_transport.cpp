// Transport verdict (DESIGN §5): every log in tests/data/nccl-logs (expected.json) and public/ (expected.json
// with findings) must give the expected network, link_layer, gdr, inter_node and verdict; plus the precedence
// rules on inventory evidence, env and the MPI signature, the findings, and the JSON section.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/transport.hpp"
#include "fabcheck/report/transport_accumulator.hpp"
#include "transport_fixtures.hpp"

using namespace fabcheck;
using nlohmann::json;

namespace {

using testing_fixtures::analyze_log;

const std::string kLogs = std::string(FABCHECK_TEST_DATA) + "/nccl-logs";

json load(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

struct Case {
  std::string dir;
  std::string file;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char* dir : {"", "/public", "/real", "/constructed"}) {
    json e = load(kLogs + dir + "/expected.json");
    for (auto it = e.begin(); it != e.end(); ++it) out.push_back({kLogs + dir, it.key()});
  }
  return out;
}

json transport_json(const report::TransportResult& r) {
  report::Document doc;
  report::add_transport(doc, r);
  return doc.json();
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  std::string n = (info.param.dir.find("public") != std::string::npos        ? "public_"
                   : info.param.dir.find("real") != std::string::npos        ? "real_"
                   : info.param.dir.find("constructed") != std::string::npos ? "constructed_"
                                                                             : "fixture_") +
                  info.param.file;
  for (auto& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

class NcclLogExpected : public testing::TestWithParam<Case> {};

}  // namespace

TEST_P(NcclLogExpected, NetworkLinkLayerGdrInterNodeVerdict) {
  const Case& c = GetParam();
  json expected = load(c.dir + "/expected.json").at(c.file);
  report::TransportResult r = analyze_log(parse::parse_nccl_log_file(c.dir + "/" + c.file));
  json doc = transport_json(r);
  const json& t = doc.at("transport");
  for (const char* field : {"network", "link_layer", "gdr", "inter_node", "verdict"})
    EXPECT_EQ(t.at(field), expected.at(field)) << c.file << " field " << field << "\n"
                                               << report::render_transport(r);
  if (expected.contains("findings")) {
    std::set<std::string> want, got;
    for (const auto& f : expected["findings"]) want.insert(f.get<std::string>());
    for (const auto& f : doc.at("findings")) got.insert(f.at("code").get<std::string>());
    EXPECT_EQ(got, want) << c.file << "\n" << report::render_transport(r);
  }
  // Whether the attempted transport worked, why sockets, and which error classes the log shows.
  if (expected.contains("health")) {
    EXPECT_EQ(t.at("health").at("status"), expected.at("health")) << c.file << "\n"
                                                                  << report::render_transport(r);
  }
  if (expected.contains("cause")) {
    EXPECT_EQ(t.at("cause"), expected.at("cause")) << c.file;
  }
  if (expected.contains("error_classes")) {
    std::set<std::string> want, got;
    for (const auto& e : expected["error_classes"]) want.insert(e.get<std::string>());
    for (const auto& g : t.at("health").at("classes")) got.insert(g.at("class").get<std::string>());
    EXPECT_EQ(got, want) << c.file;
  }
  // A failed transport always says so on the console's first line, with a fail finding (never "healthy").
  if (t.at("health").at("status") == "failed") {
    const std::string first = report::render_transport(r).substr(0, report::render_transport(r).find('\n'));
    EXPECT_NE(first.find("FAILED"), std::string::npos) << first;
    bool fail = false;
    for (const auto& f : doc.at("findings")) fail = fail || f.at("severity") == "fail";
    EXPECT_TRUE(fail) << c.file;
  }
  // Every log is accounted line by line.
  const json& log = t.at("logs").at(0);
  EXPECT_EQ(log.at("lines").get<std::size_t>(),
            log.at("nccl_lines").get<std::size_t>() + log.at("message_only_lines").get<std::size_t>() +
                log.at("foreign_lines").get<std::size_t>() + log.at("blank_lines").get<std::size_t>() +
                log.at("skipped_lines").get<std::size_t>());
  EXPECT_FALSE(t.at("evidence").empty());
}

INSTANTIATE_TEST_SUITE_P(Logs, NcclLogExpected, testing::ValuesIn(cases()), case_name);

TEST(NcclLogExpectedFiles, CoverEveryLogInTheFolders) {
  // 13 copied fixtures + 6 public logs + 21 real and 9 constructed logs (nccl-logs/real,
  // nccl-logs/constructed); a log without an expected entry would be silently untested.
  EXPECT_EQ(cases().size(), 49u);
}

// ---------------------------------------------------------------- precedence on inventory, env, signature

namespace {

report::HostRdmaEvidence no_rdma_host(const std::string& h) {
  auto e = testing_fixtures::host_without_rdma(h);
  e.gdr_module = false;
  return e;
}

using testing_fixtures::tcp_signature;

bool has_source(const report::TransportResult& r, const std::string& src) {
  return std::ranges::any_of(r.evidence, [&](const auto& e) { return e.source == src; });
}

}  // namespace

TEST(TransportVerdict, NoLogNoRdmaHardwareIsNoRdmaHardware) {
  // `mpirun -np 2 fabcheck inspect` on a machine where libibverbs answers ENOSYS.
  report::TransportInput in;
  in.hosts.push_back(no_rdma_host("host0"));
  auto r = report::analyze_transport(in);
  EXPECT_EQ(r.run.verdict, "no_rdma_hardware");
  EXPECT_EQ(r.run.network, "none");
  EXPECT_FALSE(r.inter_node.has_value());
  EXPECT_TRUE(has_source(r, "inventory"));
  EXPECT_TRUE(has_source(r, "mpi_config"));
}

TEST(TransportVerdict, VirtualFabricTcpSignatureIsNoRdmaHardwareWithSignatureEvidence) {
  report::TransportInput in;
  for (const char* h : {"h1", "h2", "h3"}) in.hosts.push_back(no_rdma_host(h));
  in.signatures.push_back(tcp_signature("h1", "h2"));
  auto r = report::analyze_transport(in);
  EXPECT_EQ(r.run.verdict, "no_rdma_hardware");
  EXPECT_EQ(r.run.network, "socket");
  EXPECT_EQ(r.inter_node, true);
  EXPECT_TRUE(has_source(r, "signature"));
  EXPECT_EQ(r.per_host.size(), 3u);
}

TEST(TransportVerdict, ActivePortsWithTcpSignatureIsSocketFallback) {
  report::TransportInput in;
  in.hosts.push_back(testing_fixtures::active_port_host("h1", "InfiniBand"));
  in.signatures.push_back(tcp_signature("h1", "h2"));
  auto r = report::analyze_transport(in);
  EXPECT_EQ(r.run.verdict, "socket_fallback");
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].code, "RDMA_FALLBACK_SOCKET");
  EXPECT_FALSE(r.findings[0].remedy.empty());
}

TEST(TransportVerdict, InventoryActivePortTurnsPlainNoDeviceIntoFallback) {
  // DESIGN §5: plain "No device found" with sockets is no_rdma_hardware, unless the inventory has an ACTIVE
  // port.
  std::string log =
      "node01:1:1 [0] NCCL INFO NET/IB : No device found.\n"
      "node01:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:192.0.2.1<0>\n"
      "node01:1:1 [0] NCCL INFO Using network Socket\n"
      "node02:2:2 [0] NCCL INFO Using network Socket\n";
  report::TransportInput in;
  in.nccl_logs.push_back(parse::parse_nccl_log(log));
  EXPECT_EQ(report::analyze_transport(in).run.verdict, "no_rdma_hardware");
  in.hosts.push_back(testing_fixtures::active_port_host("node01", "RoCE"));
  auto r = report::analyze_transport(in);
  EXPECT_EQ(r.run.verdict, "socket_fallback");
  EXPECT_TRUE(has_source(r, "inventory"));
}

TEST(TransportVerdict, EnvNcclNetSocketIsConfigured) {
  report::TransportInput in;
  in.nccl_logs.push_back(
      parse::parse_nccl_log("a:1:1 [0] NCCL INFO Using network Socket\n"
                            "b:2:2 [0] NCCL INFO Using network Socket\n"
                            "a:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:192.0.2.1<0>\n"));
  EXPECT_EQ(report::analyze_transport(in).run.verdict, "socket_fallback");
  in.env["NCCL_NET"] = "Socket";
  auto r = report::analyze_transport(in);
  EXPECT_EQ(r.run.verdict, "socket_configured");
  EXPECT_TRUE(has_source(r, "env"));
}

TEST(TransportVerdict, IntraNodeOnlyBeatsEverythingWhenNNodesIsOne) {
  report::TransportInput in;
  in.nccl_logs.push_back(parse::parse_nccl_log(
      "a:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n"
      "a:1:1 [0] NCCL INFO Using network Socket\n"));
  in.env["NCCL_IB_DISABLE"] = "1";
  auto r = report::analyze_transport(in);
  EXPECT_EQ(r.inter_node, false);
  EXPECT_EQ(r.run.verdict, "intra_node_only");
}

TEST(TransportVerdict, PartialGdrIsOffWithCounts) {
  auto r = analyze_log(
      parse::parse_nccl_log("a:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:192.0.2.1<0>\n"
                            "a:1:1 [0] NCCL INFO Using network IB\n"
                            "a:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n"
                            "a:1:1 [0] NCCL INFO Channel 01/0 : 0[0] -> 8[0] [send] via NET/IB/0\n"));
  EXPECT_EQ(r.run.gdr, "off");
  EXPECT_EQ(r.run.verdict, "rdma_no_gdr");
  EXPECT_NE(r.run.gdr_basis.find("1 of 2"), std::string::npos) << r.run.gdr_basis;
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "GDR_DISABLED");
}

TEST(TransportVerdict, GdrDistanceRemedyNamesTopology) {
  auto r = analyze_log(parse::parse_nccl_log_file(kLogs + "/11-ib-gdr-disabled-distance-2.4.log"));
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].code, "GDR_DISABLED");
  EXPECT_NE(r.findings[0].remedy.find("NCCL_NET_GDR_LEVEL"), std::string::npos);
}

TEST(TransportVerdict, VersionMismatchFromExplicitVersions) {
  auto r =
      analyze_log(parse::parse_nccl_log("a:1:1 [0] NCCL INFO NCCL version 2.25.1+cuda12.8\n"
                                        "b:2:2 [0] NCCL INFO NCCL version 2.23.4+cuda12.6\n"));
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "NCCL_VERSION_MISMATCH");
  EXPECT_EQ(r.findings[0].evidence.at("versions").size(), 2u);
  // Same version everywhere: no finding.
  EXPECT_TRUE(analyze_log(parse::parse_nccl_log("a:1:1 [0] NCCL INFO NCCL version 2.25.1+cuda12.8\n"
                                                "b:2:2 [0] NCCL INFO NCCL version 2.25.1+cuda12.8\n"))
                  .findings.empty());
}

TEST(TransportVerdict, SocketIfnameManagementFromEnv) {
  report::TransportInput in;
  in.env["NCCL_SOCKET_IFNAME"] = "docker0";
  auto r = report::analyze_transport(in);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].code, "SOCKET_IFNAME_MGMT");
  in.env["NCCL_SOCKET_IFNAME"] = "^docker0,lo";  // an exclusion list is the fix, not the fault
  EXPECT_TRUE(report::analyze_transport(in).findings.empty());
  in.env["NCCL_SOCKET_IFNAME"] = "ib0";
  EXPECT_TRUE(report::analyze_transport(in).findings.empty());
}

TEST(TransportVerdict, ManagementInterfaceNames) {
  for (const char* n :
       {"lo", "docker0", "virbr0", "br-1a2b", "veth12", "cni0", "flannel.1", "cali123", "mgmt0"})
    EXPECT_TRUE(report::is_management_iface(n)) << n;
  for (const char* n : {"eth0", "ib0", "ens1f0np0", "bond0", "enp220s0np0", "ibp12s0"})
    EXPECT_FALSE(report::is_management_iface(n)) << n;
}

TEST(TransportVerdict, EmptyInputIsUnknownNotACrash) {
  auto r = report::analyze_transport({});
  EXPECT_EQ(r.run.verdict, "unknown");
  json doc = transport_json(r);
  EXPECT_TRUE(doc["transport"]["inter_node"].is_null());
  EXPECT_TRUE(doc["transport"]["link_layer"].is_null());
  EXPECT_FALSE(doc["transport"]["link_layer_reason"].get<std::string>().empty());
  EXPECT_EQ(doc["run"]["sections"]["transport"]["status"], "ok");
}

TEST(TransportRender, VerdictOnTopThenHostTable) {
  std::string text = report::render_transport(
      analyze_log(parse::parse_nccl_log_file(kLogs + "/06-hpcx-ibext-no-device-socket-2.18.log")));
  EXPECT_EQ(text.rfind("transport verdict: socket_fallback", 0), 0u) << text;
  EXPECT_NE(text.find("<cluster_name>"), std::string::npos);
  EXPECT_NE(text.find("RDMA_FALLBACK_SOCKET"), std::string::npos);
}

TEST(TransportJson, PerHostErrorsCarryStatusNames) {
  json t = transport_json(analyze_log(
      parse::parse_nccl_log_file(kLogs + "/public/p04-ibext-roce-bond-retry-exceeded.log")))["transport"];
  bool found = false;
  for (const auto& h : t["per_host"])
    for (const auto& e : h["errors"])
      if (e["kind"] == "completion" && e["status_name"] == "RETRY_EXC_ERR" && e["status"] == 12) found = true;
  EXPECT_TRUE(found) << t.dump(1);
}

TEST(TransportVerdict, OfiTcpProviderIsSocketsNotRdma) {
  // aws-ofi-nccl on an instance without EFA picks libfabric's tcp provider: data goes over kernel sockets.
  // With EFA the same log is RDMA-class.
  struct Case {
    const char* provider;
    const char* network;
    const char* verdict;
  };
  for (const Case& c :
       {Case{"tcp", "socket", "no_rdma_hardware"}, Case{"efa (found 4 nics)", "ofi", "rdma"}}) {
    auto r = analyze_log(parse::parse_nccl_log("a:1:1 [0] NCCL INFO NET/OFI Selected Provider is " +
                                               std::string(c.provider) +
                                               "\na:1:1 [0] NCCL INFO Using network AWS Libfabric\n"
                                               "b:2:2 [0] NCCL INFO Using network AWS Libfabric\n"));
    EXPECT_EQ(r.run.network, c.network) << c.provider;
    EXPECT_EQ(r.run.verdict, c.verdict) << c.provider;
  }
}

// The transport accumulator: every step's evidence joins one input and the verdict is redrawn
// from all of it. The case behind it: `run --backend nccl` on several hosts wrote NCCL's verdict in the
// sweep, then latency/pairs redrew the verdict from the inventory-time input alone and NCCL's evidence was
// lost.
namespace accumulator_tests {
using namespace fabcheck;

namespace {

const std::string kLogs = std::string(FABCHECK_TEST_DATA) + "/nccl-logs";

report::HostRdmaEvidence ib_host_rt(const std::string& h) {
  auto e = testing_fixtures::active_port_host(h, "InfiniBand");
  e.rdma_netdevs = {"ib0"};
  e.gdr_module = true;
  e.link_rate_gbit = 100;
  return e;
}

using testing_fixtures::tcp_signature;

int count_source(const report::TransportResult& r, const std::string& src) {
  int n = 0;
  for (const auto& e : r.evidence) n += e.source == src ? 1 : 0;
  return n;
}

}  // namespace

TEST(TransportAccumulator, EmptyUntilEvidence) {
  report::TransportAccumulator acc;
  EXPECT_TRUE(acc.empty());
  acc.add_signatures({});
  EXPECT_TRUE(acc.empty());
  acc.add_inventory({ib_host_rt("a")}, {});
  EXPECT_FALSE(acc.empty());
}

TEST(TransportAccumulator, InventoryThenNcclLogThenSignatureKeepsTheNcclEvidence) {
  const auto log = parse::parse_nccl_log_file(kLogs + "/01-ib-gdrdma-loopback-2.7.6.log");
  // What NCCL's log alone says.
  report::TransportAccumulator nccl_only;
  nccl_only.add_nccl_logs({log}, {}, {"rank 3 wrote no log"});
  const auto from_log = nccl_only.result();
  ASSERT_EQ(from_log.run.network, "ib_verbs");
  ASSERT_EQ(from_log.run.network_source, "nccl_log");

  report::TransportAccumulator acc;
  acc.add_inventory({ib_host_rt("a"), ib_host_rt("b")}, {{"NCCL_DEBUG", "INFO"}});
  const auto after_inventory = acc.result();
  const int nccl_lines_before = count_source(after_inventory, "nccl_log");
  acc.add_nccl_logs({log}, {}, {"rank 3 wrote no log"});
  acc.add_signatures({tcp_signature("a", "b")});
  const auto final_verdict = acc.result();

  // NCCL's own log still decides the network after the signature came in, and its lines and notes are kept.
  EXPECT_EQ(final_verdict.run.network, from_log.run.network);
  EXPECT_EQ(final_verdict.run.network_source, "nccl_log");
  EXPECT_EQ(final_verdict.run.verdict, from_log.run.verdict);
  EXPECT_GT(count_source(final_verdict, "nccl_log"), nccl_lines_before);
  // Every line NCCL's log gave on its own is still there, next to the inventory's and the signature's —
  // except the inter_node conclusion, which is redrawn from all evidence (this log is one node's; the
  // signature between hosts a and b attests inter-node traffic).
  for (const auto& e : from_log.evidence) {
    if (e.source != "nccl_log" || e.message.rfind("inter_node ", 0) == 0) continue;
    bool kept = false;
    for (const auto& f : final_verdict.evidence)
      kept = kept || (f.source == e.source && f.message == e.message);
    EXPECT_TRUE(kept) << "lost: " << e.message;
  }
  EXPECT_GE(count_source(final_verdict, "signature"), 1);
  EXPECT_GE(count_source(final_verdict, "inventory"), 1);
  bool note = false;
  for (const auto& e : final_verdict.evidence) note = note || e.message == "rank 3 wrote no log";
  EXPECT_TRUE(note);
  ASSERT_EQ(acc.input().nccl_logs.size(), 1u);
  EXPECT_EQ(acc.input().signatures.size(), 1u);
  EXPECT_EQ(acc.input().hosts.size(), 2u);
}

TEST(TransportAccumulator, NcclEnvironmentWinsOverTheLaunchers) {
  report::TransportAccumulator acc;
  acc.add_inventory({}, {{"NCCL_IB_DISABLE", "0"}});
  acc.add_nccl_logs({}, {{"NCCL_IB_DISABLE", "1"}}, {});
  acc.add_inventory({}, {{"NCCL_IB_DISABLE", "0"}});  // a later launcher view does not overwrite NCCL's
  EXPECT_EQ(acc.input().env.at("NCCL_IB_DISABLE"), "1");
}
}  // namespace accumulator_tests
