// The hosts' CPU load (issue 17): /proc/loadavg parsing, grouping by kernel, and what HOST_CPU_BUSY explains.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fabcheck/core/cpu_load.hpp"
#include "fabcheck/report/cpu_load.hpp"
#include "fabcheck/report/reconcile.hpp"

using namespace fabcheck;
using nlohmann::json;

TEST(CpuLoad, ParsesProcLoadavg) {
  // proc(5): "The first three fields ... load averages over 1, 5, and 15 minutes. The fourth field consists
  // of two numbers separated by a slash: the number of currently runnable kernel scheduling entities ... and
  // the number of kernel scheduling entities that currently exist on the system."
  const auto s = core::parse_loadavg("9.95 8.21 5.08 7/612 123456\n");
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->loadavg_1m, 9.95);
  EXPECT_EQ(s->runnable, 7);
  for (const char* bad : {"", "1.0 2.0 3.0", "x 1 2 3/4 5", "1.0 1 1 34 5", "-1 1 1 3/4 5", "1.0 1 1 a/4 5"})
    EXPECT_FALSE(core::parse_loadavg(bad)) << bad;
  // This machine is Linux: a live reading has CPUs and a boot id.
  const auto now = core::read_cpu_load();
  ASSERT_TRUE(now);
  EXPECT_GE(now->cpus, 1);
  EXPECT_EQ(now->boot_id.size(), 36u) << now->boot_id;
}

TEST(CpuLoad, LineRoundTripAndMalformedLines) {
  core::CpuLoadSample s{4.25, 5, 2, "0f4b7c1e-1111-2222-3333-444455556666", 5.125};
  auto back = core::cpu_load_from_line(core::to_line(s));
  ASSERT_TRUE(back);
  EXPECT_DOUBLE_EQ(back->runnable_mean, 5.125);
  s.runnable_mean = -1;  // not sampled
  back = core::cpu_load_from_line(core::to_line(s));
  ASSERT_TRUE(back);
  EXPECT_LT(back->runnable_mean, 0);
  EXPECT_DOUBLE_EQ(back->loadavg_1m, 4.25);
  EXPECT_EQ(back->runnable, 5);
  EXPECT_EQ(back->cpus, 2);
  EXPECT_EQ(back->boot_id, s.boot_id);
  s.boot_id.clear();
  EXPECT_EQ(core::cpu_load_from_line(core::to_line(s))->boot_id, "");
  for (const char* bad : {"", "1 2 3", "1 2 0 id -", "nan 1 2 id -", "1 2 3 id extra", "1 2 3 id 1 x"})
    EXPECT_FALSE(core::cpu_load_from_line(bad)) << bad;
}

TEST(CpuLoad, GroupsRanksByKernelAndSubtractsOwnRanks) {
  // The virtual fabric: 4 hosts (namespaces) on one 2-core kernel, load 10 -> (10 - 4) / 2 = 3 per core.
  // A real second machine with 2 ranks on 8 cores and load 2.4 -> 0.05 per core.
  std::vector<std::optional<core::CpuLoadSample>> s = {core::CpuLoadSample{10.0, 7, 2, "A"},
                                                       core::CpuLoadSample{9.8, 6, 2, "A"},
                                                       core::CpuLoadSample{10.0, 7, 2, "A"},
                                                       core::CpuLoadSample{10.0, 5, 2, "A"},
                                                       core::CpuLoadSample{2.4, 2, 8, "B"},
                                                       core::CpuLoadSample{2.4, 2, 8, "B"},
                                                       std::nullopt};
  const auto k = core::group_cpu_load(s, {"h1", "h2", "h3", "h4", "big", "big", "lost"});
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].boot_id, "A");
  EXPECT_EQ(k[0].hosts, (std::vector<std::string>{"h1", "h2", "h3", "h4"}));
  EXPECT_EQ(k[0].ranks, 4);
  EXPECT_EQ(k[0].runnable, 7);
  EXPECT_DOUBLE_EQ(k[0].excess_per_core, 3.0);
  EXPECT_EQ(k[1].hosts, (std::vector<std::string>{"big"}));
  EXPECT_NEAR(k[1].excess_per_core, 0.05, 1e-12);
  // The sampler's mean over the step wins over the trailing load average: a hog that stopped a minute ago
  // still weighs on loadavg_1m, not on what the step saw.
  s[0]->runnable_mean = 4.2;
  for (int i = 1; i < 4; ++i) s[static_cast<std::size_t>(i)]->runnable_mean = -1;
  const auto sampled = core::group_cpu_load(s, {"h1", "h2", "h3", "h4", "big", "big", "lost"});
  EXPECT_EQ(sampled[0].boot_id, "A");
  EXPECT_NEAR(sampled[0].excess_per_core, (4.2 - 4) / 2, 1e-12);  // not (10 - 4) / 2
  EXPECT_DOUBLE_EQ(sampled[0].runnable_mean, 4.2);
  // Own ranks alone (4 spinning ranks, load 4.1 on 2 cores) are not other work.
  const auto quiet =
      core::group_cpu_load({core::CpuLoadSample{4.1, 4, 2, ""}, core::CpuLoadSample{4.1, 4, 2, ""},
                            core::CpuLoadSample{4.1, 4, 2, ""}, core::CpuLoadSample{4.1, 4, 2, ""}},
                           {"a", "b", "c", "d"});
  ASSERT_EQ(quiet.size(), 4u);  // no boot id: one host, one kernel
  for (const auto& q : quiet) EXPECT_NEAR(q.excess_per_core, (4.1 - 1) / 2, 1e-12);
}

namespace {

json finding(const std::string& sev, const std::string& code, json evidence = json::object()) {
  return {{"severity", sev}, {"code", code}, {"message", code + " message"}, {"evidence", evidence}};
}

json report_with(double excess_latency, double excess_pairs) {
  auto load = [](double excess) {
    core::KernelLoad k;
    k.boot_id = "A";
    k.hosts = {"h1", "h2", "h3", "h4"};
    k.ranks = 4;
    k.cpus = 2;
    k.loadavg_1m = 4 + 2 * excess;
    k.runnable = 6;
    k.runnable_mean = 4 + 2 * excess;
    k.excess_per_core = excess;
    return report::cpu_load_json({k});
  };
  json d = {{"run",
             {{"sections",
               {{"sweeps", {{"status", "ok"}, {"cpu_load", load(0.1)}}},
                {"latency", {{"status", "ok"}, {"cpu_load", load(excess_latency)}}},
                {"pairs", {{"status", "ok"}, {"cpu_load", load(excess_pairs)}}}}}}},
            {"findings",
             {finding("warn", "LATENCY_PAIR_OUTLIER", {{"hosts", {"h1", "h2"}}}),
              finding("warn", "PAIRS_SLOW_HOST", {{"host", "h2"}, {"by", "latency"}}),
              finding("fail", "PAIRS_SLOW_LINK", {{"from", "h2"}, {"to", "h4"}}),
              finding("warn", "SWEEP_TRUNCATED"), finding("warn", "SCALING_BUSBW_DROP", {{"ratio", 0.3}})}}};
  return d;
}

std::string severity_of(const json& d, const std::string& code) {
  for (const auto& f : d["findings"])
    if (f["code"] == code) return f["severity"];
  return "";
}

}  // namespace

TEST(CpuLoad, BusyStepsExplainTheirLatencyWarningsNeverAFail) {
  auto d = report_with(3.0, 3.0);
  report::explain_cpu_load(d);
  EXPECT_EQ(severity_of(d, "HOST_CPU_BUSY"), "warn");
  EXPECT_EQ(severity_of(d, "LATENCY_PAIR_OUTLIER"), "info");
  EXPECT_EQ(severity_of(d, "PAIRS_SLOW_HOST"), "info");
  EXPECT_EQ(severity_of(d, "PAIRS_SLOW_LINK"), "fail");     // a bandwidth verdict confirmed by retest stands
  EXPECT_EQ(severity_of(d, "SWEEP_TRUNCATED"), "warn");     // the sweep step was not busy (0.1 per core)
  EXPECT_EQ(severity_of(d, "SCALING_BUSBW_DROP"), "warn");  // not a latency symptom
  const json* busy = nullptr;
  for (const auto& f : d["findings"])
    if (f["code"] == "HOST_CPU_BUSY") busy = &f;
  ASSERT_TRUE(busy);
  EXPECT_EQ((*busy)["evidence"]["steps"], json({"latency", "pairs"}));
  EXPECT_EQ((*busy)["evidence"]["shared_kernel"], true);
  EXPECT_EQ((*busy)["evidence"]["explains"].size(), 2u);
  EXPECT_FALSE((*busy)["evidence"].contains("hosts"));  // never folded into a host's headline
  EXPECT_NE(
      (*busy)["message"].get<std::string>().find("3.0 other runnable tasks per core beside fabcheck's 4 "
                                                 "rank(s) of 4 hosts sharing one kernel on 2 cores (10.0 "
                                                 "runnable on average, load average 10.0)"),
      std::string::npos)
      << (*busy)["message"];
  // Idempotent: once more changes nothing, and reconcile (which calls it) keeps one HOST_CPU_BUSY.
  const json once = d;
  report::explain_cpu_load(d);
  EXPECT_EQ(d, once);
  report::reconcile_findings(d);
  int n = 0;
  for (const auto& f : d["findings"]) n += f["code"] == "HOST_CPU_BUSY";
  EXPECT_EQ(n, 1);
}

TEST(CpuLoad, QuietStepsChangeNothing) {
  auto d = report_with(0.1, 0.24);
  const json before = d;
  report::explain_cpu_load(d);
  EXPECT_EQ(d, before);
  // Only the pairs step busy: the latency step's warning stays.
  d = report_with(0.0, 0.25);
  report::explain_cpu_load(d);
  EXPECT_EQ(severity_of(d, "LATENCY_PAIR_OUTLIER"), "warn");
  EXPECT_EQ(severity_of(d, "PAIRS_SLOW_HOST"), "info");
  EXPECT_EQ(severity_of(d, "HOST_CPU_BUSY"), "warn");
}

TEST(CpuLoad, AVictimOnTheIncastsKernelIsContext) {
  core::KernelLoad shared;
  shared.boot_id = "A";
  shared.hosts = {"h1", "h2", "h3", "h4"};
  shared.ranks = 4;
  shared.cpus = 2;
  json d = {
      {"run",
       {{"sections", {{"incast", {{"status", "ok"}, {"cpu_load", report::cpu_load_json({shared})}}}}}}},
      {"findings",
       {finding("warn", "VICTIM_CONGESTION", {{"receiver", "h1"}, {"victim", "h4"}, {"impact_p50", 12.0}})}}};
  report::explain_cpu_load(d);
  EXPECT_EQ(d["findings"][0]["severity"], "info");
  EXPECT_EQ(d["findings"][0]["evidence"]["explained_by"], "shared_kernel");
  EXPECT_EQ(d["findings"].size(), 1u);  // not busy: no HOST_CPU_BUSY
  // Hosts on their own kernels (a cluster): the warning stands.
  std::vector<core::KernelLoad> own;
  for (const char* h : {"h1", "h2", "h3", "h4"}) {
    core::KernelLoad k = shared;
    k.boot_id = h;
    k.hosts = {h};
    k.ranks = 1;
    own.push_back(k);
  }
  d["run"]["sections"]["incast"]["cpu_load"] = report::cpu_load_json(own);
  d["findings"] = json::array(
      {finding("warn", "VICTIM_CONGESTION", {{"receiver", "h1"}, {"victim", "h4"}, {"impact_p50", 12.0}})});
  report::explain_cpu_load(d);
  EXPECT_EQ(d["findings"][0]["severity"], "warn");
}
