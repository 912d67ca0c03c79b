// The hosts' own counters around a step — the /proc/net parser, the sysfs/procfs reader on recorded
// trees (tests/data/counters, README there), the deltas, and the findings each recorded case gives.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../support/text.hpp"
#include "fabcheck/model/counters.hpp"
#include "fabcheck/parse/ethtool_stats.hpp"
#include "fabcheck/parse/proc_net.hpp"
#include "fabcheck/probes/counters.hpp"
#include "fabcheck/report/counters.hpp"
#include "fabcheck/report/html.hpp"
#include "fabcheck/report/reconcile.hpp"

namespace {

using nlohmann::json;
using namespace fabcheck;

const std::string kCounters = std::string(FABCHECK_TEST_DATA) + "/counters/";

std::string counters_file_text(const std::string& name) {
  std::ifstream in(kCounters + name);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::int64_t value_of(const parse::ProcNetCounters& c, const std::string& k) {
  for (const auto& [n, v] : c.values)
    if (n == k) return v;
  ADD_FAILURE() << "no counter " << k;
  return -999;
}

model::CounterSnapshot read_case(const std::string& name, const char* when) {
  probes::CounterSources src;
  src.sysfs_root = kCounters + name + "/" + when + "/sys";
  src.proc_root = kCounters + name + "/" + when + "/proc";
  return probes::read_counters(src);
}

/// A report whose `section` step recorded the case's deltas on `host`.
report::Document doc_of_case(const std::string& name, const std::string& section,
                             const std::string& host = "h1") {
  report::Document doc;
  model::StepCounters sc;
  sc.duration_s = 12.5;
  sc.hosts.push_back(model::counter_delta(host, read_case(name, "before"), read_case(name, "after")));
  doc.json()["run"]["sections"][section] = {{"status", "ok"}, {"counters", report::counters_json(sc)}};
  return doc;
}

/// doc_of_case with the counter findings of its step added.
report::Document judged_case(const std::string& name, const std::string& section,
                             const std::string& host = "h1") {
  auto doc = doc_of_case(name, section, host);
  report::add_counter_findings(doc, section);
  return doc;
}

std::vector<std::string> codes(const report::Document& doc) {
  std::vector<std::string> out;
  for (const auto& f : doc.json()["findings"])
    out.push_back(f["code"].get<std::string>() + ":" + f["severity"].get<std::string>());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ProcNetCounters, ReadsTheRealSnmpAndNetstatLayout) {
  const auto snmp = parse::parse_proc_net_counters(counters_file_text("snmp-linux-6.18.txt"));
  EXPECT_EQ(snmp.skipped_fields, 0);
  EXPECT_EQ(value_of(snmp, "Tcp.RetransSegs"), 160);
  EXPECT_EQ(value_of(snmp, "Tcp.OutSegs"), 1094384);
  EXPECT_EQ(value_of(snmp, "Tcp.MaxConn"), -1);  // signed, as the kernel prints it
  EXPECT_EQ(value_of(snmp, "Udp.InDatagrams") > 0, true);
  const auto netstat = parse::parse_proc_net_counters(counters_file_text("netstat-linux-6.18.txt"));
  EXPECT_EQ(netstat.skipped_fields, 0);
  EXPECT_EQ(value_of(netstat, "TcpExt.TCPTimeouts"), 19);
}

TEST(ProcNetCounters, MalformedLinesAreCountedNotGuessed) {
  // A header without its value line, a value line one field short, a value that is not a number.
  const auto c =
      parse::parse_proc_net_counters("Tcp: A B\nUdp: 1 2\nIp: X Y Z\nIp: 1 2\nIcmp: P Q\nIcmp: 7 x\n");
  EXPECT_EQ(c.skipped_fields, 2 + 3 + 1);
  ASSERT_EQ(c.values.size(), 1u);
  EXPECT_EQ(c.values[0].first, "Icmp.P");
  EXPECT_EQ(c.values[0].second, 7);
  EXPECT_TRUE(parse::parse_proc_net_counters("").values.empty());
}

TEST(CountersReader, ReadsPortNetdevAndTcpCountersAndSaysWhatItSkipped) {
  const auto s = read_case("ib-bad-cable", "after");
  EXPECT_EQ(s.values.at("rdma.mlx5_0.1.symbol_error"), 1234);
  EXPECT_EQ(s.values.at("rdma.mlx5_0.1.hw.out_of_sequence"), 0);
  EXPECT_EQ(s.values.at("net.eth0.rx_packets"), 1000000);
  EXPECT_EQ(s.values.at("Tcp.RetransSegs"), 160);
  EXPECT_EQ(s.values.count("net.lo.rx_packets"), 0u) << "lo never leaves the host";
  ASSERT_EQ(s.skipped.size(), 1u);  // the tree has no proc/net/netstat
  EXPECT_NE(s.skipped[0].find("net/netstat: cannot read"), std::string::npos) << s.skipped[0];
  EXPECT_GE(s.read_us, 0.0);
}

TEST(CountersReader, AMissingTreeIsSkippedNotAnError) {
  probes::CounterSources src{"/nonexistent-fabcheck/sys", "/nonexistent-fabcheck/proc"};
  const auto s = probes::read_counters(src);
  EXPECT_TRUE(s.values.empty());
  EXPECT_EQ(s.skipped.size(), 3u);  // snmp, netstat, class/net
}

TEST(CounterDelta, KeepsWhatMovedAndListsResets) {
  const auto d =
      model::counter_delta("h1", read_case("eth-reset", "before"), read_case("eth-reset", "after"));
  EXPECT_TRUE(d.deltas.empty());
  ASSERT_EQ(d.reset.size(), 1u);
  EXPECT_EQ(d.reset[0], "net.eth0.rx_dropped");
  auto doc = judged_case("eth-reset", "pairs");
  EXPECT_TRUE(doc.json()["findings"].empty());
}

TEST(CounterDelta, SnapshotLineRoundTrips) {
  const auto s = read_case("roce-lossy", "after");
  const auto back = model::counter_snapshot_from_line(model::to_line(s));
  EXPECT_EQ(back.values, s.values);
  EXPECT_EQ(back.skipped, s.skipped);
  const auto bad = model::counter_snapshot_from_line("not json");
  EXPECT_TRUE(bad.values.empty());
  ASSERT_EQ(bad.skipped.size(), 1u);
}

/// A recorded case that must give no finding and no console block.
void expect_quiet_case(const std::string& name) {
  auto doc = judged_case(name, "sweep");
  EXPECT_TRUE(doc.json()["findings"].empty()) << name << ": " << doc.json()["findings"].dump(2);
  EXPECT_EQ(report::render_counters(doc.json()["run"]["sections"]["sweep"]["counters"], "sweep"), "") << name;
}

TEST(CounterFindings, HealthyHostGivesNone) {
  expect_quiet_case("ib-healthy");
}

TEST(CounterFindings, BadCableFailsNamingHostAndPort) {
  auto doc = judged_case("ib-bad-cable", "pairs", "node07");
  ASSERT_EQ(codes(doc), std::vector<std::string>{"RDMA_LINK_ERRORS:fail"});
  const auto& f = doc.json()["findings"][0];
  EXPECT_EQ(f["evidence"]["host"], "node07");
  EXPECT_EQ(f["evidence"]["port"], "mlx5_0 port 1");
  EXPECT_EQ(f["evidence"]["deltas"]["symbol_error"], 1234);
  EXPECT_EQ(f["evidence"]["deltas"]["link_downed"], 1);
  testing_fixtures::expect_contains(f["remedy"].get<std::string>(), {"cable"});
  const auto text = report::render_counters(doc.json()["run"]["sections"]["pairs"]["counters"], "pairs");
  testing_fixtures::expect_contains(text, {"node07: mlx5_0 port 1"});
}

// Symbol errors without a link event are bit errors a healthy link shows too: a warning, not a verdict.
TEST(CounterFindings, SymbolErrorsAloneAreAWarning) {
  report::Document doc;
  model::StepCounters sc;
  model::HostCounterDelta d;
  d.host = "node07";
  d.deltas = {{"rdma.mlx5_0.1.symbol_error", 12}, {"rdma.mlx5_0.1.port_xmit_data", 90000000}};
  sc.hosts.push_back(d);
  doc.json()["run"]["sections"]["pairs"] = {{"counters", report::counters_json(sc)}};
  report::add_counter_findings(doc, "pairs");
  ASSERT_EQ(codes(doc), std::vector<std::string>{"RDMA_LINK_ERRORS:warn"});
  EXPECT_EQ(doc.json()["findings"][0]["evidence"]["deltas"], (json{{"symbol_error", 12}}));
}

TEST(CounterFindings, LossyRoceWithoutCnpSaysNoEcn) {
  auto doc = judged_case("roce-lossy", "sweep");
  ASSERT_EQ(codes(doc), std::vector<std::string>{"ROCE_PACKET_LOSS:warn"});
  const auto& f = doc.json()["findings"][0];
  EXPECT_EQ(f["evidence"]["ecn_seen"], false);
  testing_fixtures::expect_contains(f["message"].get<std::string>(), {"without ECN/DCQCN"});
  EXPECT_EQ(f["evidence"]["deltas"]["hw.out_of_sequence"], 500);
}

TEST(CounterFindings, RoceLossWithCnpSaysNotificationsFlowed) {
  auto doc = judged_case("roce-loss-with-ecn", "sweep");
  ASSERT_EQ(codes(doc), std::vector<std::string>{"ROCE_PACKET_LOSS:warn"});
  const auto& f = doc.json()["findings"][0];
  EXPECT_EQ(f["evidence"]["ecn_seen"], true);
  testing_fixtures::expect_contains(f["message"].get<std::string>(),
                                    {"although congestion notifications flowed"});
}

TEST(CounterFindings, DropsAndTcpLossAreWarnings) {
  auto doc = judged_case("eth-drops-tcp-loss", "latency", "h3");
  ASSERT_EQ(codes(doc), (std::vector<std::string>{"NETDEV_DROPS:warn", "TCP_RETRANSMITS:warn"}));
  for (const auto& f : doc.json()["findings"]) {
    EXPECT_EQ(f["evidence"]["host"], "h3");
    if (f["code"] == "TCP_RETRANSMITS") {
      EXPECT_EQ(f["evidence"]["retrans_segs"], 2000);
      EXPECT_EQ(f["evidence"]["out_segs"], 100000);
      EXPECT_NE(f["message"].get<std::string>().find(
                    "TCP lost 2000 of 100000 segments (2.00 %; 2000 retransmitted, 0 "
                    "of them spurious)"),
                std::string::npos)
          << f["message"];
    }
  }
}

TEST(CounterFindings, TcpLossBelowTheThresholdIsQuiet) {
  report::Document doc;
  model::StepCounters sc;
  sc.duration_s = 3;
  model::HostCounterDelta d;
  d.host = "h1";
  d.deltas = {{"Tcp.OutSegs", 1000000}, {"Tcp.RetransSegs", 999}};  // 0.0999 %: under 0.1 %
  sc.hosts.push_back(d);
  d.host = "h2";
  d.deltas = {{"Tcp.OutSegs", 1000}, {"Tcp.RetransSegs", 19}};  // 1.9 % but fewer than 20 segments
  sc.hosts.push_back(d);
  doc.json()["run"]["sections"]["pairs"] = {{"counters", report::counters_json(sc)}};
  report::add_counter_findings(doc, "pairs");
  EXPECT_TRUE(doc.json()["findings"].empty()) << doc.json()["findings"].dump();
}

TEST(CounterFindings, IncastSendersLossNamesTheReceiverOnce) {
  report::Document doc;
  doc.json()["incast"] = json::array({{{"receiver", "h1"}, {"fan_in", 1}, {"senders", {"h2"}}},
                                      {{"receiver", "h1"}, {"fan_in", 2}, {"senders", {"h2", "h3"}}}});
  model::StepCounters sc;
  sc.duration_s = 1.6;
  for (auto [h, out, re] : {std::tuple{"h2", 11802, 67}, {"h3", 5952, 105}, {"h4", 632, 1}}) {
    model::HostCounterDelta d;
    d.host = h;
    d.deltas = {{"Tcp.OutSegs", out}, {"Tcp.RetransSegs", re}};
    sc.hosts.push_back(d);
  }
  doc.json()["run"]["sections"]["incast"] = {{"counters", report::counters_json(sc)}};
  report::add_counter_findings(doc, "incast");
  ASSERT_EQ(codes(doc), std::vector<std::string>{"INCAST_LOSS:warn"});
  const auto& f = doc.json()["findings"][0];
  EXPECT_EQ(f["evidence"]["receiver"], "h1");
  EXPECT_EQ(f["evidence"]["senders"]["h3"]["retrans_segs"], 105);
  EXPECT_NE(f["message"].get<std::string>().find("incast into h1: the senders h2, h3 lost 172 of 17754"),
            std::string::npos)
      << f["message"];
  EXPECT_EQ(report::hosts_named(f), std::vector<std::string>{"h1"});
}

// Retransmissions the receivers reported as duplicates (DSACK) were spurious, not loss: the clean virtual
// fabric's pairs step retransmitted 2746 of 1039072 segments on one host with 2453 of them DSACKed.
TEST(CounterFindings, DsackedRetransmissionsAreNotLoss) {
  report::Document doc;
  model::StepCounters sc;
  sc.duration_s = 5.5;
  model::HostCounterDelta d;
  d.host = "h1";
  d.deltas = {{"Tcp.OutSegs", 1039072}, {"Tcp.RetransSegs", 2746}, {"TcpExt.TCPDSACKRecvSegs", 2453}};
  sc.hosts.push_back(d);
  d.host = "h2";  // the same retransmissions without DSACKs: 0.26 % lost
  d.deltas = {{"Tcp.OutSegs", 1039072}, {"Tcp.RetransSegs", 2746}};
  sc.hosts.push_back(d);
  doc.json()["run"]["sections"]["pairs"] = {{"counters", report::counters_json(sc)}};
  report::add_counter_findings(doc, "pairs");
  ASSERT_EQ(doc.json()["findings"].size(), 1u) << doc.json()["findings"].dump();
  const auto& f = doc.json()["findings"][0];
  EXPECT_EQ(f["evidence"]["host"], "h2");
  EXPECT_EQ(f["evidence"]["lost_segs"], 2746);
  EXPECT_EQ(f["evidence"]["spurious_segs"], 0);
}

// The HTML lists the step/host readings where something moved and counts the quiet ones.
TEST(CounterHtml, ListsWhatMovedAndCountsTheRest) {
  auto doc = doc_of_case("ib-bad-cable", "pairs", "node07");
  model::StepCounters quiet;
  quiet.hosts.push_back(
      model::counter_delta("node08", read_case("ib-healthy", "before"), read_case("ib-healthy", "before")));
  doc.json()["run"]["sections"]["sweeps"] = {{"status", "ok"}, {"counters", report::counters_json(quiet)}};
  const std::string page = report::render_html(doc.json());
  const auto at = page.find("id=\"counters\"");
  ASSERT_NE(at, std::string::npos);
  const std::string sec = page.substr(at, page.find("</section>", at) - at);
  testing_fixtures::expect_contains(sec, {"<td>node07</td>", "rdma.mlx5_0.1.symbol_error +1234"});
  EXPECT_EQ(sec.find("<td>node08</td>"), std::string::npos) << "a quiet reading is counted, not listed";
  testing_fixtures::expect_contains(sec, {"1 step/host reading(s) with no retransmission"});
  // The recorded trees have no proc/net/netstat: the page says so, once per host.
  testing_fixtures::expect_contains(sec, {"skipped: node07: ", "net/netstat: cannot read"});
  const std::string old = report::render_html(json{{"schema_version", 1}});
  EXPECT_NE(old.find("no counter records"), std::string::npos);
}

// The NIC drivers' pause statistics (`ethtool -S`): parser, reader filter, and the pause findings.
TEST(EthtoolStats, ParsesTheEthtoolLayoutAndCountsWhatIsNotAStatistic) {
  const auto st = parse::parse_ethtool_stats(
      "NIC statistics:\n     rx_packets: 12\n     tx_priority_0_xoff.nic: 6434\n     bad line\n"
      "     rx_pause_ctrl_phy: -3\n\n     tx_pause_storm_error_events: 0");
  ASSERT_EQ(st.values.size(), 3u);
  EXPECT_EQ(st.values[0], (std::pair<std::string, std::int64_t>{"rx_packets", 12}));
  EXPECT_EQ(st.values[1], (std::pair<std::string, std::int64_t>{"tx_priority_0_xoff.nic", 6434}));
  EXPECT_EQ(st.values[2].first, "tx_pause_storm_error_events");
  EXPECT_EQ(st.skipped_lines, 2);  // "bad line" and the negative value
}

TEST(CountersReader, KeepsThePauseStatisticsOfARecordedNicAndNotItsRings) {
  const auto s = read_case("roce-pause-storm", "after");
  EXPECT_EQ(s.values.at("ethtool.ens1f0np0/tx_prio3_pause_duration"), 9000000);
  EXPECT_EQ(s.values.at("ethtool.ens1f0np0/tx_pause_storm_error_events"), 1);
  EXPECT_EQ(s.values.at("ethtool.ens1f0np0/rx_discards_phy"), 0);
  EXPECT_EQ(s.values.at("ethtool.ens1f0np0/rx_prio3_buf_discard"), 0);
  for (const char* gone : {"ethtool.ens1f0np0/rx0_packets", "ethtool.ens1f0np0/ch0_events",
                           "ethtool.ens1f0np0/rx_packets", "ethtool.ens1f0np0/rx_prio3_bytes"})
    EXPECT_EQ(s.values.count(gone), 0u) << gone;
  EXPECT_EQ(s.values.at("net.ens1f0np0.rx_packets"), 2000000);
}

TEST(CounterFindings, HealthyLosslessPortIsQuiet) {
  expect_quiet_case("roce-pfc-healthy");
}

TEST(CounterFindings, PauseStormFailsNamingHostAndInterfaceOnce) {
  auto doc = judged_case("roce-pause-storm", "incast", "gpu12");
  EXPECT_EQ(codes(doc), std::vector<std::string>{"PFC_PAUSE_STORM:fail"});
  const auto& f = doc.json()["findings"][0];
  EXPECT_EQ(f["evidence"]["host"], "gpu12");
  EXPECT_EQ(f["evidence"]["interface"], "ens1f0np0");
  EXPECT_EQ(f["evidence"]["tx_pause_storm_error_events"], 1);
  EXPECT_EQ(f["evidence"]["tx_pause"]["where"], "priority 3");
  EXPECT_DOUBLE_EQ(f["evidence"]["tx_pause"]["share"].get<double>(), 9e6 / 12.5e6);
  const std::string msg = f["message"];
  testing_fixtures::expect_contains(
      msg, {"gpu12 ens1f0np0: pause storm during the incast step", "72.0 % of the step (priority 3)"});
  const auto text = report::render_counters(doc.json()["run"]["sections"]["incast"]["counters"], "incast");
  testing_fixtures::expect_contains(text,
                                    {"tx_pause_storm_error_events", "\"tx_prio3_pause_duration\":9000000"});
}

TEST(CounterFindings, PausedByTheNetworkIsAWarningAboutCongestionFurtherOn) {
  auto doc = judged_case("roce-paused-by-network", "pairs");
  EXPECT_EQ(codes(doc), std::vector<std::string>{"PFC_PAUSE_HIGH:warn"});
  const std::string msg = doc.json()["findings"][0]["message"];
  testing_fixtures::expect_contains(msg, {"the network paused it for 24.0 % of the step (priority 3)"});
  EXPECT_EQ(msg.find("it paused the network"), std::string::npos) << msg;
  // Just under the share (10 % of 12.5 s = 1.25 s): quiet.
  report::Document under;
  model::StepCounters sc;
  sc.duration_s = 12.5;
  model::HostCounterDelta d;
  d.host = "h1";
  d.deltas["ethtool.ens1f0np0/rx_prio3_pause_duration"] = 1'249'999;
  sc.hosts.push_back(d);
  under.json()["run"]["sections"]["pairs"] = {{"status", "ok"}, {"counters", report::counters_json(sc)}};
  report::add_counter_findings(under, "pairs");
  EXPECT_TRUE(under.json()["findings"].empty()) << under.json()["findings"].dump();
  EXPECT_TRUE(report::is_shown_counter("ethtool.ens1f0np0/rx_prio3_pause_duration"));
  EXPECT_TRUE(report::is_shown_counter("ethtool.eth0.100/tx_pause_storm_error_events"));
  EXPECT_FALSE(report::is_shown_counter("ethtool.ens1f0np0/rx_prio3_marked"));
}

}  // namespace
