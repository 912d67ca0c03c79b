// Findings reconciled before they are shown: one fault gives one headline with the other probes'
// evidence folded into it, refuted latency symptoms are context, the order is fail -> warn -> info with root
// causes first; and the run's verdict block states it first and last.
#include <gtest/gtest.h>

#include <map>

#include <string>
#include <vector>

#include "../support/text.hpp"
#include "fabcheck/report/reconcile.hpp"
#include "fabcheck/report/summary_text.hpp"

using nlohmann::json;
using namespace fabcheck;

namespace {

json finding_rr(const char* sev, const char* code, const char* msg, json ev) {
  return {{"severity", sev}, {"code", code}, {"message", msg}, {"evidence", std::move(ev)}, {"remedy", "r"}};
}

/// A 4-host report in the order the probes write it: latency symptoms first, pairs' verdict later, the
/// gate's restatement last (as `run` leaves it before reconciling).
json slow_host_report() {
  json d;
  d["pairs"] = {{"hosts", {"h1", "h2", "h3", "h4"}}, {"retest", true}};
  d["findings"] = json::array({
      finding_rr("warn", "LATENCY_PAIR_OUTLIER", "pair h2-h3 slower",
                 {{"pair", "h2-h3"}, {"hosts", {"h2", "h3"}}}),
      finding_rr("warn", "LATENCY_PAIR_OUTLIER", "pair h1-h4 slower",
                 {{"pair", "h1-h4"}, {"hosts", {"h1", "h4"}}}),
      finding_rr("info", "LATENCY_SPIKES", "spikes", {{"count", 3}}),
      finding_rr("warn", "INCAST_COLLAPSE", "goodput into h3 fell", {{"receiver", "h3"}, {"fan_in", 2}}),
      finding_rr("warn", "SCALING_BUSBW_DROP", "busBw falls", {{"groups", json::array()}}),
      finding_rr("fail", "PAIRS_SLOW_HOST", "host h3: 3/3 outgoing ... confirmed",
                 {{"host", "h3"}, {"confirmed", true}}),
      finding_rr("fail", "GATE_CHECK_FAILED", "gate check findings.severity=fail#count == 0: failed",
                 {{"metric", "findings.severity=fail#count"}}),
  });
  return d;
}

std::vector<std::string> codes_rr(const json& d) {
  std::vector<std::string> v;
  for (const auto& f : d["findings"]) v.push_back(f["code"]);
  return v;
}

}  // namespace

TEST(Reconcile, SlowHostIsOneHeadlineWithEveryProbesEvidence) {
  json d = slow_host_report();
  report::reconcile_findings(d);
  const auto& f = d["findings"];
  ASSERT_GE(f.size(), 1u);
  // The headline is first and names the host.
  EXPECT_EQ(f[0]["code"], "PAIRS_SLOW_HOST");
  EXPECT_EQ(f[0]["evidence"]["host"], "h3");
  std::vector<std::string> folded;
  for (const auto& c : f[0]["evidence"]["corroborated_by"]) folded.push_back(c["code"]);
  // latency (the pair with h3), incast (into h3), the fabric-wide scaling drop and the gate's restatement.
  EXPECT_EQ(folded, (std::vector<std::string>{"LATENCY_PAIR_OUTLIER", "INCAST_COLLAPSE", "SCALING_BUSBW_DROP",
                                              "GATE_CHECK_FAILED"}));
  // Nothing else is a fail or a warn: the h1-h4 latency outlier was refuted by pairs (it measured both hosts
  // and flagged neither).
  int fails = 0, warns = 0;
  for (const auto& x : f) {
    fails += x["severity"] == "fail";
    warns += x["severity"] == "warn";
    if (x["code"] == "LATENCY_PAIR_OUTLIER") {
      EXPECT_EQ(x["severity"], "info");
      EXPECT_EQ(x["evidence"]["refuted_by"], "pairs");
      EXPECT_EQ(x["evidence"]["pair"], "h1-h4");
    }
  }
  EXPECT_EQ(fails, 1);
  EXPECT_EQ(warns, 0);
}

TEST(Reconcile, IsIdempotent) {
  json d = slow_host_report();
  report::reconcile_findings(d);
  const json once = d;
  report::reconcile_findings(d);
  EXPECT_EQ(d, once);
}

TEST(Reconcile, LinkHeadlineTakesOnlyThatPairAndBlamesNoHost) {
  json d;
  d["pairs"] = {{"hosts", {"h1", "h2", "h3", "h4"}}};
  d["findings"] = json::array({
      finding_rr("warn", "LATENCY_PAIR_TAIL", "pair h1-h2 tail",
                 {{"pair", "h1-h2"}, {"hosts", {"h1", "h2"}}}),
      finding_rr("warn", "INCAST_COLLAPSE", "into h1", {{"receiver", "h1"}}),
      finding_rr("fail", "PAIRS_SLOW_LINK", "link h1 -> h2: 0.059 GB/s",
                 {{"from", "h1"}, {"to", "h2"}, {"confirmed", true}}),
  });
  report::reconcile_findings(d);
  ASSERT_EQ(d["findings"][0]["code"], "PAIRS_SLOW_LINK");
  ASSERT_EQ(d["findings"][0]["evidence"]["corroborated_by"].size(), 1u);
  EXPECT_EQ(d["findings"][0]["evidence"]["corroborated_by"][0]["code"], "LATENCY_PAIR_TAIL");
  // The incast finding names only h1: a link fault does not explain it, it stays a warning of its own.
  EXPECT_EQ(codes_rr(d), (std::vector<std::string>{"PAIRS_SLOW_LINK", "INCAST_COLLAPSE"}));
  // No finding names a host with evidence.host (the good-hosts file keeps both ends of a slow link).
  for (const auto& f : d["findings"]) EXPECT_FALSE(f["evidence"].contains("host"));
}

TEST(Reconcile, OrderIsSeverityThenRootCauseThenImpact) {
  json d;
  d["findings"] = json::array({
      finding_rr("info", "LATENCY_SPIKES", "s", json::object()),
      finding_rr("warn", "X_SMALL", "small", {{"impact", 1.5}}),
      finding_rr("warn", "X_BIG", "big", {{"impact", 9.0}}),
      finding_rr("fail", "GATE_CHECK_FAILED", "busbw floor", {{"metric", "m1"}}),
      finding_rr("fail", "GATE_CHECK_FAILED", "second floor", {{"metric", "m2"}}),
      finding_rr("fail", "PAIRS_SLOW_HOST", "h2", {{"host", "h2"}}),
      finding_rr("fail", "WRONG_DATA", "wrong", {{"total_wrong", 4}}),
  });
  report::reconcile_findings(d);
  // Two root causes: the gate's checks are not folded into either (which one would they restate?), they go
  // last among the fails.
  EXPECT_EQ(codes_rr(d),
            (std::vector<std::string>{"WRONG_DATA", "PAIRS_SLOW_HOST", "GATE_CHECK_FAILED",
                                      "GATE_CHECK_FAILED", "X_BIG", "X_SMALL", "LATENCY_SPIKES"}));
}

TEST(Reconcile, GateRestatesAPlacelessRootCause) {
  json d;
  d["findings"] = json::array({
      finding_rr("fail", "GATE_CHECK_FAILED", "wrong@32M", {{"metric", "sweeps.allreduce.wrong@32M"}}),
      finding_rr("fail", "WRONG_DATA", "3 elements differed, received on rank 2 (h3)", {{"total_wrong", 3}}),
  });
  report::reconcile_findings(d);
  ASSERT_EQ(d["findings"].size(), 1u);
  EXPECT_EQ(d["findings"][0]["code"], "WRONG_DATA");
  EXPECT_EQ(d["findings"][0]["evidence"]["corroborated_by"][0]["code"], "GATE_CHECK_FAILED");
}

TEST(Reconcile, HostsNamedReadsEveryPlaceField) {
  const json f =
      finding_rr("warn", "VICTIM_CONGESTION", "m", {{"receiver", "h1/rank0"}, {"victim", "h4/rank3"}});
  EXPECT_EQ(report::hosts_named(f), (std::vector<std::string>{"h1", "h4"}));
  EXPECT_TRUE(report::hosts_named(json::object()).empty());
}

TEST(RunSummary, VerdictFirstAndLastNamesTheHost) {
  json d = slow_host_report();
  report::reconcile_findings(d);
  d["run"] = {{"exit_code", 1},
              {"sections",
               {{"sweeps", {{"status", "ok"}, {"elapsed_s", 12.0}}},
                {"inventory", {{"status", "ok"}, {"elapsed_s", 0.1}}},
                {"pairs", {{"status", "ok"}, {"elapsed_s", 2.0}}}}}};
  d["transport"] = {{"verdict", "no_rdma_hardware"},
                    {"network", "none"},
                    {"link_layer", nullptr},
                    {"gdr", "off"},
                    {"inter_node", nullptr}};
  d["gate"] = {{"passed", false}, {"checks", {{{"passed", false}}, {{"passed", true}}}}};
  report::SummaryFacts facts;
  facts.nranks = 4;
  facts.nhosts = 4;
  facts.duration_s = 20;
  facts.budget_s = 75;
  facts.report_path = "r.json";
  const std::string text = report::render_summary(d, facts);
  const std::vector<std::string> lines = fabcheck::testing_fixtures::lines_of(text);
  ASSERT_GE(lines.size(), 8u);
  EXPECT_EQ(lines[1], "# fabcheck run: FAIL - 1 fail finding: PAIRS_SLOW_HOST (h3)");
  EXPECT_EQ(lines[2],
            "# findings: 1 fail, 0 warn, 2 info (info: context, listed in the report and its HTML)");
  EXPECT_EQ(lines[3].rfind("#   [fail] PAIRS_SLOW_HOST: host h3", 0), 0u) << lines[3];
  // What the other probes saw under it: the gate's failed check first, then the warnings.
  EXPECT_EQ(lines[4].rfind("#          also: GATE_CHECK_FAILED (fail): gate check findings.severity", 0), 0u)
      << lines[4];
  EXPECT_EQ(lines[5].rfind("#          also: LATENCY_PAIR_OUTLIER (warn): pair h2-h3", 0), 0u) << lines[5];
  EXPECT_NE(
      text.find("# transport: no_rdma_hardware (network none, link_layer -, gdr off, inter_node unknown)"),
      std::string::npos);
  // Steps in run order, whatever the JSON object's order.
  EXPECT_NE(text.find("inventory ok 0.1 s; sweeps ok 12.0 s; pairs ok 2.0 s"), std::string::npos) << text;
  EXPECT_NE(text.find("# gate: FAILED (1 of 2 checks passed)"), std::string::npos);
  EXPECT_EQ(lines.back(), "# fabcheck run: FAIL (exit 1); report: r.json");
  EXPECT_EQ(report::verdict_word(d), "FAIL");
}

TEST(RunSummary, CleanOneHostRunSaysWhatWasNotTested) {
  json d;
  d["findings"] = json::array({finding_rr("info", "INCAST_NOT_FABRIC", "local", json::object())});
  d["run"] = {{"exit_code", 0}, {"sections", {{"sweeps", {{"status", "ok"}}}}}};
  report::SummaryFacts facts;
  facts.nhosts = 1;
  const std::string text = report::render_summary(d, facts);
  EXPECT_NE(
      text.find("# fabcheck run: PASS - no fail or warn finding (one host: the fabric between hosts was "
                "not tested)"),
      std::string::npos)
      << text;
  d["findings"].push_back(finding_rr("warn", "X", "m", json::object()));
  EXPECT_EQ(report::verdict_word(d), "PASS with 1 warning");
  d["run"]["exit_code"] = 3;
  EXPECT_EQ(report::verdict_word(d), "INCOMPLETE");
  // Every step skipped: nothing was measured, which is not a pass.
  d["run"] = {{"exit_code", 0},
              {"sections", {{"sweeps", {{"status", "skipped"}}}, {"gate", {{"status", "ok"}}}}}};
  EXPECT_EQ(report::verdict_word(d), "NOTHING RUN");
  EXPECT_NE(report::render_summary(d, facts).find("nothing was measured"), std::string::npos);
}

// `fabcheck report FILE` prints the first screen from a saved report, also one written before its run ended
// (run.exit_code null until then): INCOMPLETE, no exit code yet, and the facts read from the report's keys.
TEST(RunSummary, SnapshotOfAnUnfinishedRunPrints) {
  json d;
  d["findings"] = json::array();
  d["topology"] = {{"nranks", 8}, {"hosts", {{{"host", "a"}}, {{"host", "b"}}}}};
  d["run"] = {
      {"exit_code", nullptr},
      {"duration_s", nullptr},
      {"budget_s", 95},
      {"sections",
       {{"sweeps", {{"status", "ok"}, {"elapsed_s", 40.0}}},
        {"gate", {{"status", "skipped"}, {"reason", "not reached: the run had not got to this step"}}}}}};
  const report::SummaryFacts facts = report::summary_facts_of(d, "r.json");
  EXPECT_EQ(facts.nranks, 8);
  EXPECT_EQ(facts.nhosts, 2);
  EXPECT_EQ(facts.duration_s, 0);
  EXPECT_EQ(facts.budget_s, 95);
  EXPECT_EQ(facts.gate_disabled_reason, "not reached: the run had not got to this step");
  const std::string text = report::render_summary(d, facts);
  EXPECT_NE(text.find("# fabcheck run: INCOMPLETE (exit none yet); report: r.json\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("# steps (8 ranks on 2 hosts, 0.0 s of a 95 s budget): sweeps ok 40.0 s"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# gate: not reached: the run had not got to this step"), std::string::npos) << text;
}

TEST(Reconcile, ModerateScalingDropThatPairsDoesNotReproduceIsContext) {
  json d;
  d["pairs"] = {{"hosts", {"h1", "h2", "h3", "h4"}}};
  d["findings"] = json::array({finding_rr("warn", "SCALING_BUSBW_DROP", "0.79", {{"ratio", 0.79}}),
                               finding_rr("warn", "SCALING_BUSBW_DROP", "0.30", {{"ratio", 0.30}})});
  report::reconcile_findings(d);
  EXPECT_EQ(d["findings"][0]["severity"], "warn");  // below half: still a warning, first
  EXPECT_EQ(d["findings"][0]["evidence"]["ratio"], 0.30);
  EXPECT_EQ(d["findings"][1]["severity"], "info");
  EXPECT_EQ(d["findings"][1]["evidence"]["refuted_by"], "pairs");
  // Without a pairs section nothing refutes it.
  json e;
  e["findings"] = json::array({finding_rr("warn", "SCALING_BUSBW_DROP", "0.79", {{"ratio", 0.79}})});
  report::reconcile_findings(e);
  EXPECT_EQ(e["findings"][0]["severity"], "warn");
}

// A slow link pairs flagged keeps its own pair's latency symptoms, not those of other pairs that share a host
// with it; a slow host keeps every pair with it (measured: h2 -> h4 throttled, the h1-h2 and h3-h4 latency
// outliers at +21 % stayed warnings beside it).
TEST(Reconcile, ALinkKeepsItsOwnPairOnlyAHostKeepsAllItsPairs) {
  json d;
  d["pairs"] = {{"hosts", {"h1", "h2", "h3", "h4"}}};
  d["findings"] =
      json::array({finding_rr("fail", "PAIRS_SLOW_LINK", "h2 -> h4", {{"from", "h2"}, {"to", "h4"}}),
                   finding_rr("warn", "LATENCY_PAIR_OUTLIER", "h1-h2", {{"hosts", {"h1", "h2"}}}),
                   finding_rr("warn", "LATENCY_PAIR_OUTLIER", "h2-h4", {{"hosts", {"h2", "h4"}}})});
  report::reconcile_findings(d);
  std::map<std::string, std::string> sev;
  for (const auto& f : d["findings"]) sev[f["message"].get<std::string>().substr(0, 5)] = f["severity"];
  EXPECT_EQ(sev["h1-h2"], "info");  // refuted: pairs measured h1 and h2 and flagged no host and not this pair
  // h2-h4 names only the link's two hosts: folded into the link's headline as evidence.
  EXPECT_EQ(d["findings"][0]["evidence"]["corroborated_by"].size(), 1u);
  d["findings"] =
      json::array({finding_rr("fail", "PAIRS_SLOW_HOST", "h2", {{"host", "h2"}}),
                   finding_rr("warn", "LATENCY_PAIR_OUTLIER", "h1-h2", {{"hosts", {"h1", "h2"}}})});
  report::reconcile_findings(d);
  ASSERT_EQ(d["findings"].size(), 1u);  // kept, and folded into the host's headline
  EXPECT_EQ(d["findings"][0]["evidence"]["corroborated_by"][0]["severity"], "warn");
}

// The retransmissions a slow link's sending host counted are that link's evidence; the receiving
// host's own loss is another symptom and stays.
TEST(Reconcile, SenderCountersFoldIntoTheirLink) {
  json d;
  d["findings"] = json::array({
      finding_rr("warn", "TCP_RETRANSMITS", "h2: TCP retransmitted 900 of 9000 segments", {{"host", "h2"}}),
      finding_rr("warn", "TCP_RETRANSMITS", "h4: TCP retransmitted 50 of 9000 segments", {{"host", "h4"}}),
      finding_rr("fail", "PAIRS_SLOW_LINK", "link h2 -> h4: 0.02 GB/s", {{"from", "h2"}, {"to", "h4"}}),
  });
  report::reconcile_findings(d);
  EXPECT_EQ(codes_rr(d), (std::vector<std::string>{"PAIRS_SLOW_LINK", "TCP_RETRANSMITS"}));
  ASSERT_EQ(d["findings"][0]["evidence"]["corroborated_by"].size(), 1u);
  EXPECT_EQ(d["findings"][0]["evidence"]["corroborated_by"][0]["message"],
            "h2: TCP retransmitted 900 of 9000 segments");
  EXPECT_EQ(d["findings"][1]["evidence"]["host"], "h4");
}
