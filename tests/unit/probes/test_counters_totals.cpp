// A step's counter totals (report/counters.hpp `totals`) and `compare` of two runs' counters, over the
// recorded trees of tests/data/counters read by the probe's reader, and the `counters` switch of the suite
// config (`--no-counters`).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "fabcheck/core/error.hpp"
#include "fabcheck/model/counters.hpp"
#include "fabcheck/probes/counters.hpp"
#include "fabcheck/report/compare.hpp"
#include "fabcheck/report/compare_render.hpp"
#include "fabcheck/report/counters.hpp"
#include "fabcheck/suite/config.hpp"

namespace {

using nlohmann::json;
using namespace fabcheck;

const std::string kCounterTrees = std::string(FABCHECK_TEST_DATA) + "/counters/";

model::CounterSnapshot read_counter_tree(const std::string& name, const char* when) {
  probes::CounterSources src;
  src.sysfs_root = kCounterTrees + name + "/" + when + "/sys";
  src.proc_root = kCounterTrees + name + "/" + when + "/proc";
  return probes::read_counters(src);
}

/// The counters record of one step: each (case, host) one host of it.
json step_record_of(std::initializer_list<std::pair<const char*, const char*>> cases) {
  model::StepCounters sc;
  sc.duration_s = 12.5;
  for (const auto& [name, host] : cases)
    sc.hosts.push_back(
        model::counter_delta(host, read_counter_tree(name, "before"), read_counter_tree(name, "after")));
  return report::counters_json(sc);
}

json report_with_counters(const std::string& section, const json& record) {
  // A score both sides share, so that a comparison has a metric in common when the counters rows do not.
  json r = {{"schema_version", 1}, {"score", {{"workload", "w"}, {"scaling_efficiency", 0.9}}}};
  r["run"]["sections"][section] = {{"status", "ok"}, {"counters", record}};
  return r;
}

const report::CompareRow* counters_row(const report::CompareResult& r, const std::string& metric) {
  for (const auto& x : r.rows)
    if (x.a_metric.section == "counters" && x.a_metric.metric == metric) return &x;
  return nullptr;
}

}  // namespace

// The totals sum the groups the findings judge, over every host and port (README of tests/data/counters:
// ib-bad-cable symbol_error +1234, link_error_recovery +1, link_downed +1, port_rcv_errors +37;
// eth-drops-tcp-loss rx_dropped +5000, rx_missed_errors +200, 2000 of 100000 TCP segments retransmitted;
// roce-lossy out_of_sequence +500, packet_seq_err +20, local_ack_timeout_err +3).
TEST(CounterTotals, SumTheJudgedGroupsOverEveryHostAndPort) {
  const json rec =
      step_record_of({{"ib-bad-cable", "node07"}, {"eth-drops-tcp-loss", "h3"}, {"roce-lossy", "h4"}});
  const json& t = rec["totals"];
  EXPECT_EQ(t["hosts"], 3);
  EXPECT_EQ(t["rdma_link_events"], 2);
  EXPECT_EQ(t["rdma_link_errors"], 1234 + 37);
  EXPECT_EQ(t["rdma_xmit_discards"], 0);
  EXPECT_EQ(t["roce_seq_errors"], 500 + 20 + 3);
  EXPECT_EQ(t["netdev_drops"], 5000 + 200);
  EXPECT_EQ(t["netdev_errors"], 0);
  EXPECT_EQ(t["tcp_retrans_segs"], 2000);
  EXPECT_GE(t["tcp_out_segs"].get<std::int64_t>(), 100000);
  EXPECT_EQ(t["tcp_lost_segs"], 2000);
  EXPECT_DOUBLE_EQ(t["tcp_lost_share"].get<double>(), 2000.0 / t["tcp_out_segs"].get<double>());
}

TEST(CounterTotals, AQuietStepHasEveryTotalAtZero) {
  const json t = step_record_of({{"ib-healthy", "h1"}})["totals"];
  for (const char* k : {"tcp_lost_segs", "rdma_link_events", "rdma_link_errors", "rdma_xmit_discards",
                        "roce_seq_errors", "netdev_errors", "netdev_drops"})
    EXPECT_EQ(t.at(k), 0) << k;
  EXPECT_EQ(t["tcp_lost_share"], 0.0);
}

// compare sets the two runs' counters side by side per step: a clean pairs step (A) against one whose cable
// went bad (B). One reading per host and step, no samples: the verdict is "noise unknown", never "within
// noise", and the values are there.
TEST(CompareCounters, ACleanAndABadCableRunLineUpPerStep) {
  const json a = report_with_counters("pairs", step_record_of({{"ib-healthy", "node07"}}));
  const json b = report_with_counters("pairs", step_record_of({{"ib-bad-cable", "node07"}}));
  const auto r = report::compare_reports(a, b, {"a.json", "A", {}}, {"b.json", "B", {}});
  for (const char* m : {"tcp_lost_segs", "tcp_lost_share", "rdma_link_events", "rdma_link_errors",
                        "rdma_xmit_discards", "roce_seq_errors", "netdev_errors", "netdev_drops"})
    ASSERT_NE(counters_row(r, m), nullptr) << m;
  const auto* ev = counters_row(r, "rdma_link_events");
  EXPECT_EQ(ev->a, 0);
  EXPECT_EQ(ev->b, 2);
  EXPECT_EQ(ev->better, "a");
  EXPECT_EQ(ev->verdict, report::CompareVerdict::kNoiseUnknown);
  EXPECT_EQ(ev->a_metric.key, (json{{"step", "pairs"}}));
  EXPECT_EQ(ev->a_metric.item, "counters during pairs");
  EXPECT_EQ(counters_row(r, "rdma_link_errors")->b, 1271);
  const std::string text = report::render_compare(r);
  EXPECT_NE(text.find("counters during pairs"), std::string::npos) << text;
  EXPECT_NE(text.find("rdma_link_events"), std::string::npos) << text;
  // The counters at 0 in both runs are in the JSON, not in the text.
  EXPECT_EQ(text.find("netdev_drops"), std::string::npos) << text;
  EXPECT_NE(text.find("6 loss-counter rows at 0 in both runs not shown"), std::string::npos) << text;
  // Steps match by name: the same record under another step is another row.
  const auto r2 =
      report::compare_reports(a, report_with_counters("sweeps", step_record_of({{"ib-bad-cable", "n"}})),
                              {"a.json", "A", {}}, {"b.json", "B", {}});
  EXPECT_EQ(counters_row(r2, "rdma_link_events"), nullptr);
}

// A report written before the totals existed has only per-host deltas: its steps give no counters rows.
TEST(CompareCounters, AReportWithoutTotalsGivesNoRows) {
  json rec = step_record_of({{"ib-bad-cable", "node07"}});
  rec.erase("totals");
  const auto r =
      report::compare_reports(report_with_counters("pairs", rec), report_with_counters("pairs", rec),
                              {"a.json", "A", {}}, {"b.json", "B", {}});
  EXPECT_EQ(counters_row(r, "tcp_lost_segs"), nullptr);
}

TEST(SuiteConfig, CountersSwitchIsATopLevelBoolean) {
  EXPECT_TRUE(suite::make_plan(json::parse(R"({"extends": "default"})"), "t").counters);
  const auto off = suite::make_plan(json::parse(R"({"extends": "default", "counters": false})"), "t");
  EXPECT_FALSE(off.counters);
  EXPECT_EQ(suite::effective_config(off)["counters"], false);
  EXPECT_NE(suite::render_plan(off, 4, 1).find("loss counters not read (counters: false)"),
            std::string::npos);
  try {
    suite::make_plan(json::parse(R"({"counters": "no"})"), "");
    FAIL() << "a string was taken as the counters switch";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/counters: \"no\" is not true or false (the hosts' loss counters around each step)");
  }
}
