// The latency analysis on synthetic samples (probes::analyze_section) and its report section / console text.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <regex>
#include <sstream>
#include <string>

#include "fabcheck/probes/latency.hpp"
#include "fabcheck/report/latency.hpp"

using namespace fabcheck;

namespace {

/// Three host pairs of a 4-host ring with 2000 samples each around 10 us; the pair h2-h3 has every 50th
/// sample at 400 us (it owns the tail).
model::LatencyResult synthetic_p2p() {
  model::LatencyResult r;
  r.nranks = 4;
  r.hosts = {"h0", "h1", "h2", "h3"};
  r.fabric_crossed = true;
  r.members = "host leaders";
  r.pattern = "ring";
  r.schedule = {{{0, 1}, {2, 3}}, {{1, 2}, {0, 3}}};
  model::LatencySection s;
  s.kind = "p2p";
  s.pattern = "ring";
  s.size_bytes = 8;
  s.tail_n = 4;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(9.0, 11.0);
  const int pairs[4][2] = {{0, 1}, {2, 3}, {1, 2}, {0, 3}};
  for (auto [a, b] : pairs) {
    model::LatencyPair p;
    p.a_rank = a;
    p.b_rank = b;
    p.a_host = r.hosts[static_cast<std::size_t>(a)];
    p.b_host = r.hosts[static_cast<std::size_t>(b)];
    for (int i = 0; i < 2000; ++i) p.samples_us.push_back(a == 2 && b == 3 && i % 50 == 0 ? 400.0 : u(rng));
    s.per_pair.push_back(std::move(p));
  }
  probes::analyze_section(s, {"h0", "h1", "h2", "h3"});
  r.sections.push_back(std::move(s));
  return r;
}

std::uint64_t json_hist_total(const nlohmann::json& h) {
  std::uint64_t n = 0;
  for (const auto& b : h) n += b[2].get<std::uint64_t>();
  return n;
}

}  // namespace

TEST(LatencyAnalysis, P2PHistogramMergedAndPairOwnsTail) {
  const auto r = synthetic_p2p();
  const auto& s = r.sections[0];
  EXPECT_EQ(s.summary.samples, 8000u);
  EXPECT_EQ(s.histogram.total(), 8000u);
  std::uint64_t per_pair_total = 0;
  for (const auto& p : s.per_pair) per_pair_total += p.histogram.total();
  EXPECT_EQ(per_pair_total, 8000u);
  // 40 samples at 400 us out of 8000: p99 (idx 7919) is an ordinary sample, so all 40 are above it.
  ASSERT_FALSE(s.stragglers.empty());
  EXPECT_EQ(s.stragglers[0].label, "h2-h3");
  EXPECT_EQ(s.stragglers[0].ranks, (std::vector<int>{2, 3}));
  EXPECT_GE(s.stragglers[0].count, 40u);
  EXPECT_EQ(s.spike_count, 40u);
  ASSERT_EQ(s.spike_sources.size(), 1u);
  EXPECT_EQ(s.spike_sources[0].label, "h2-h3");
  ASSERT_EQ(s.tail_cost.size(), 4u);
  EXPECT_EQ(s.tail_cost[0].n, 4u);
  EXPECT_FALSE(s.tail_cost[0].low_confidence);
  EXPECT_TRUE(s.tail_cost[3].low_confidence);  // 8000 < 40960
  // The tail cost grows with N and exceeds the median.
  EXPECT_GT(s.tail_cost[1].expected, s.tail_cost[0].expected);
  EXPECT_GT(s.tail_cost[0].vs_p50, 1.0);
}

TEST(LatencyAnalysis, CollectiveStragglerIsTheRankThatEnteredLast) {
  model::LatencySection s;
  s.kind = "collective";
  s.pattern = "allreduce";
  s.size_bytes = 8;
  s.tail_n = 4;
  for (int k = 0; k < 1000; ++k) {
    const bool slow = k % 100 == 0;
    s.samples_us.push_back(slow ? 500.0 : 20.0 + (k % 7));
    s.straggler_rank.push_back(slow ? 3 : k % 3);
  }
  probes::analyze_section(s, {"a", "a", "b", "b"});
  EXPECT_EQ(s.histogram.total(), 1000u);
  ASSERT_FALSE(s.stragglers.empty());
  EXPECT_EQ(s.stragglers[0].ranks, (std::vector<int>{3}));
  EXPECT_EQ(s.stragglers[0].label, "rank 3 (b)");
  EXPECT_DOUBLE_EQ(s.stragglers[0].share, 1.0);  // p99 is 26 (idx 989); only the 10 slow spans are above it
  const auto j = report::latency_section_json(s);
  EXPECT_EQ(j["stragglers"][0]["rank"], 3);
  EXPECT_EQ(j["stragglers"][0]["host"], "b");
  EXPECT_TRUE(j["per_pair"].is_null());
  EXPECT_EQ(json_hist_total(j["histogram"]), 1000u);
}

TEST(LatencyReport, JsonSectionShape) {
  const auto r = synthetic_p2p();
  report::Document doc({"fabcheck", "latency"});
  report::add_latency(doc, r);
  const auto& lat = doc.json()["latency"];
  ASSERT_EQ(lat.size(), 1u);
  const auto& s = lat[0];
  for (const char* k :
       {"kind", "pattern", "size_bytes", "samples", "p50_us", "p90_us", "p99_us", "p999_us", "max_us",
        "tail_ratio", "histogram", "per_pair", "stragglers", "spikes", "tail_cost"}) {
    EXPECT_TRUE(s.contains(k)) << k;
  }
  EXPECT_EQ(s["kind"], "p2p");
  EXPECT_EQ(s["samples"], 8000);
  EXPECT_EQ(json_hist_total(s["histogram"]), 8000u);
  std::uint64_t pair_samples = 0;
  for (const auto& p : s["per_pair"]) {
    pair_samples += p["samples"].get<std::uint64_t>();
    EXPECT_EQ(json_hist_total(p["histogram"]), p["samples"].get<std::uint64_t>());
  }
  EXPECT_EQ(pair_samples, 8000u);
  EXPECT_EQ(s["stragglers"][0]["pair"], "h2-h3");
  EXPECT_EQ(s["spikes"]["count"], 40);
  EXPECT_EQ(s["tail_cost"][2]["n"], 512);
  EXPECT_TRUE(s["tail_cost"][2]["vs_p50"].is_number());
  // Histogram buckets are half-open, ascending and non-empty.
  std::uint64_t prev_upper = 0;
  for (const auto& b : s["histogram"]) {
    EXPECT_LT(b[0].get<std::uint64_t>(), b[1].get<std::uint64_t>());
    EXPECT_GE(b[0].get<std::uint64_t>(), prev_upper);
    EXPECT_GT(b[2].get<std::uint64_t>(), 0u);
    prev_upper = b[1].get<std::uint64_t>();
  }
  EXPECT_EQ(doc.json()["run"]["sections"]["latency"]["status"], "ok");
  // h2-h3's p99 is 400 us against ~11 us for the others: a LATENCY_PAIR_TAIL warning names it; no fail.
  bool tail = false;
  for (const auto& f : doc.json()["findings"]) {
    if (f["code"] == "LATENCY_PAIR_TAIL") {
      tail = true;
      EXPECT_EQ(f["evidence"]["pair"], "h2-h3");
    }
    EXPECT_NE(f["severity"], "fail");
    EXPECT_NE(f["code"], "LATENCY_FABRIC_NOT_CROSSED");
  }
  EXPECT_TRUE(tail);
  EXPECT_FALSE(doc.has_fail());
}

TEST(LatencyReport, EmptySectionGivesNullsNotNaN) {
  model::LatencySection s;
  s.kind = "p2p";
  s.pattern = "ring";
  s.size_bytes = 8;
  probes::analyze_section(s, {});
  const auto j = report::latency_section_json(s);
  EXPECT_TRUE(j["p50_us"].is_null());
  EXPECT_TRUE(j["tail_ratio"].is_null());
  EXPECT_EQ(j["percentile_reason"], "no samples");
  EXPECT_EQ(j["samples"], 0);
  EXPECT_TRUE(j["tail_cost"].empty());
  EXPECT_EQ(j.dump().find("NaN"), std::string::npos);
}

TEST(LatencyRender, AsciiHistogramCountsAndBuckets) {
  fabcheck::core::Histogram h;
  for (int i = 0; i < 100; ++i) h.add_us(10.0);  // 10000 ns
  for (int i = 0; i < 3; ++i) h.add_us(100.0);   // 100000 ns
  h.add_us(1000.0);
  const std::string text = report::render_histogram(h, 40, 40);
  std::istringstream in(text);
  std::string line;
  std::uint64_t total = 0;
  int lines = 0, max_bar = 0;
  const std::regex re(R"(^  \[\s*([0-9.]+),\s*([0-9.]+)\) us \|(#*)\s+(\d+)$)");
  double prev_hi = -1;
  while (std::getline(in, line)) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, re)) << line;
    ++lines;
    const double lo = std::stod(m[1].str()), hi = std::stod(m[2].str());
    EXPECT_LT(lo, hi);
    if (prev_hi >= 0) {
      EXPECT_NEAR(lo, prev_hi, 1e-9);  // contiguous buckets
    }
    prev_hi = hi;
    const auto n = std::stoull(m[4].str());
    total += n;
    const int bar = static_cast<int>(m[3].str().size());
    max_bar = std::max(max_bar, bar);
    if (n > 0) {
      EXPECT_GE(bar, 1);
    } else {
      EXPECT_EQ(bar, 0);
    }
  }
  EXPECT_EQ(total, 104u);
  EXPECT_EQ(max_bar, 40);
  // 10 us .. 1 ms is about 6.6 powers of two: 4 buckets per power of two fit in 40 lines.
  EXPECT_GE(lines, 25);
  EXPECT_LE(lines, 40);
  EXPECT_TRUE(report::render_histogram(fabcheck::core::Histogram{}).empty());
}

TEST(LatencyRender, ConsoleDetailLevels) {
  const auto r = synthetic_p2p();
  // Standalone default: the per-pair table and the tail lines, no histogram.
  const std::string tables = report::render_latency(r);
  EXPECT_NE(tables.find("h2-h3"), std::string::npos);
  EXPECT_EQ(tables.find(" us |"), std::string::npos) << tables;
  // run's compact form: one line per size, no per-pair rows.
  const std::string compact = report::render_latency(r, model::ConsoleDetail::kCompact);
  EXPECT_EQ(std::count(compact.begin(), compact.end(), '\n'), 1 + static_cast<long>(r.sections.size()))
      << compact;
  EXPECT_NE(compact.find("#   p2p ring 8 B"), std::string::npos) << compact;
  EXPECT_EQ(compact.find("  h2-h3 "), std::string::npos) << compact;  // no per-pair row
  // --verbose: the histogram, without the lines of empty buckets.
  const std::string verbose = report::render_latency(r, model::ConsoleDetail::kVerbose);
  EXPECT_NE(verbose.find(" us |#"), std::string::npos);
  EXPECT_EQ(verbose.find("|                                                   0\n"), std::string::npos);
}

TEST(LatencyRender, ConsoleHasTableHistogramAndSentence) {
  const auto r = synthetic_p2p();
  const std::string text = report::render_latency(r, model::ConsoleDetail::kVerbose);
  EXPECT_NE(text.find("p50_us"), std::string::npos);
  EXPECT_NE(text.find("p999_us"), std::string::npos);
  EXPECT_NE(text.find("h2-h3"), std::string::npos);
  EXPECT_NE(text.find("the fabric was crossed"), std::string::npos);
  const auto& s = r.sections[0];
  char want[128];
  std::snprintf(want, sizeof want, "at 512 ranks the tail makes each exchange %.1fx slower than its median",
                s.tail_cost[2].vs_p50);
  EXPECT_NE(text.find(want), std::string::npos) << text;
  EXPECT_NE(text.find(" us |#"), std::string::npos);
}
