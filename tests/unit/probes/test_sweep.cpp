// Unit tests of the sweep: busBw factors, nccl-tests geometry, sizes, statistics, clock maths, per-iteration
// stragglers, number formatting and the console table (parsed back by a whitespace splitter).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "../support/text.hpp"
#include "fabcheck/core/clock.hpp"
#include "fabcheck/core/collective.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/core/size.hpp"
#include "fabcheck/core/stats.hpp"
#include "fabcheck/probes/sweep.hpp"
#include "fabcheck/report/sweep.hpp"
#include "fabcheck/report/sweep_json.hpp"

using namespace fabcheck;
using core::Collective;
using core::Dtype;

namespace {

std::vector<std::string> split_ws(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  std::string tok;
  while (in >> tok) out.push_back(tok);
  return out;
}

using fabcheck::testing_fixtures::lines_of;

template <class... A>
std::string cfmt(const char* f, A... a) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

}  // namespace

// --- busBw factors (nccl-tests src/<coll>.cu GetBw)
// ------------------------------------------------------------

TEST(BusBwFactor, EveryCollectiveForManyRankCounts) {
  for (int n : {1, 2, 3, 4, 8, 64}) {
    const double nd = n;
    const double ring = (nd - 1) / nd;
    EXPECT_DOUBLE_EQ(core::busbw_factor(Collective::kAllReduce, n), 2 * (nd - 1) / nd) << n;
    EXPECT_DOUBLE_EQ(core::busbw_factor(Collective::kAllGather, n), ring) << n;
    EXPECT_DOUBLE_EQ(core::busbw_factor(Collective::kReduceScatter, n), ring) << n;
    EXPECT_DOUBLE_EQ(core::busbw_factor(Collective::kAllToAll, n), ring) << n;
    EXPECT_DOUBLE_EQ(core::busbw_factor(Collective::kGather, n), ring) << n;
    EXPECT_DOUBLE_EQ(core::busbw_factor(Collective::kScatter, n), ring) << n;
    EXPECT_DOUBLE_EQ(core::busbw_factor(Collective::kBroadcast, n), 1.0) << n;
    EXPECT_DOUBLE_EQ(core::busbw_factor(Collective::kReduce, n), 1.0) << n;
    EXPECT_DOUBLE_EQ(core::busbw_factor(Collective::kSendRecv, n), 1.0) << n;
  }
  // Known values: 16-rank allreduce 30/16; n = 1 gives exactly 0 for the (n-1) collectives.
  EXPECT_DOUBLE_EQ(core::busbw_factor(Collective::kAllReduce, 16), 1.875);
  EXPECT_EQ(core::busbw_factor(Collective::kAllGather, 1), 0.0);
  EXPECT_THROW(core::busbw_factor(Collective::kAllReduce, 0), std::invalid_argument);
}

TEST(BusBw, WorkedExamplesOfTheReference) {
  // 16-rank allreduce, 8589934592 B in 67689 us -> algbw 126.90, busbw 237.94 (fixture 1).
  const double alg = core::algbw_gbps(8589934592ull, 67689e-6);
  EXPECT_NEAR(alg, 126.90, 0.005);
  EXPECT_NEAR(core::busbw_gbps(Collective::kAllReduce, 16, alg), 237.94, 0.005);
  // 2-rank allgather, 134217728 B in 29255.9 us -> 4.59 / 2.29.
  const double ag = core::algbw_gbps(134217728ull, 29255.9e-6);
  EXPECT_NEAR(ag, 4.59, 0.005);
  EXPECT_NEAR(core::busbw_gbps(Collective::kAllGather, 2, ag), 2.29, 0.005);
}

// --- geometry and 16-byte chunk rounding
// ------------------------------------------------------------------------

TEST(Geometry, Minus_b40_FloatFourRanks) {
  const int n = 4;
  for (Collective c :
       {Collective::kAllReduce, Collective::kBroadcast, Collective::kReduce, Collective::kSendRecv}) {
    const auto g = core::geometry(c, Dtype::kFloat, 40, n);
    EXPECT_EQ(g.count, 10u) << core::name(c);  // whole elements only
    EXPECT_EQ(g.size_bytes, 40u) << core::name(c);
  }
  // Split collectives: (10/4) & ~(16/4 - 1) = 2 & ~3 = 0 -> the row prints size 0, count 0.
  for (Collective c : {Collective::kAllGather, Collective::kReduceScatter, Collective::kAllToAll,
                       Collective::kGather, Collective::kScatter}) {
    const auto g = core::geometry(c, Dtype::kFloat, 40, n);
    EXPECT_EQ(g.count, 0u) << core::name(c);
    EXPECT_EQ(g.size_bytes, 0u) << core::name(c);
  }
}

TEST(Geometry, SplitCollectivesRoundDownToSixteenBytes) {
  // 96 B of float on 4 ranks: 24/4 = 6 -> 4 elements (16 B) per rank, size 64.
  auto ag = core::geometry(Collective::kAllGather, Dtype::kFloat, 96, 4);
  EXPECT_EQ(ag.count, 4u);
  EXPECT_EQ(ag.send_count, 4u);
  EXPECT_EQ(ag.recv_count, 16u);
  EXPECT_EQ(ag.size_bytes, 64u);
  auto rs = core::geometry(Collective::kReduceScatter, Dtype::kFloat, 96, 4);
  EXPECT_EQ(rs.count, 4u);
  EXPECT_EQ(rs.send_count, 16u);
  EXPECT_EQ(rs.recv_count, 4u);
  auto a2a = core::geometry(Collective::kAllToAll, Dtype::kDouble, 1000, 3);  // 125/3 = 41 & ~1 = 40
  EXPECT_EQ(a2a.count, 40u);
  EXPECT_EQ(a2a.size_bytes, 40u * 3 * 8);
  auto i8 = core::geometry(Collective::kScatter, Dtype::kInt8, 100, 4);  // 100/4 = 25 & ~15 = 16
  EXPECT_EQ(i8.count, 16u);
  EXPECT_EQ(i8.size_bytes, 64u);
  EXPECT_EQ(core::geometry(Collective::kScatter, Dtype::kInt8, 60, 4).size_bytes, 0u);  // 15 & ~15 = 0
  auto ar = core::geometry(Collective::kAllReduce, Dtype::kFloat, 3, 4);  // -b 1..3 with float prints size 0
  EXPECT_EQ(ar.size_bytes, 0u);
}

// --- sizes
// ------------------------------------------------------------------------------------------------------

TEST(Sizes, ParseAcceptsBinarySuffixes) {
  EXPECT_EQ(core::parse_size("8", "-b"), 8u);
  EXPECT_EQ(core::parse_size("1K", "-b"), 1024u);
  EXPECT_EQ(core::parse_size("64M", "-b"), 67108864u);
  EXPECT_EQ(core::parse_size("1G", "-b"), 1073741824u);
  EXPECT_EQ(core::parse_size("1g", "-b"), 1073741824u);
}

TEST(Sizes, ParseRefusesBadSizesNamingTheFlag) {
  // 18446744073709551624 = 2^64 + 8: it once wrapped to 8 and ran a sweep at 8 B
  for (const char* bad :
       {"-3", "1X", "99999999999G", "", "1.5K", "18446744073709551624", "4611686018427387905"}) {
    try {
      core::parse_size(bad, "-b/--minbytes");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("-b/--minbytes:", 0), 0u) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

TEST(Sizes, SweepSizesFollowTheNcclTestsLoop) {
  probes::SweepOptions o;
  o.min_bytes = 8;
  o.max_bytes = 64u << 20;
  o.step_factor = 2;
  auto s = probes::sweep_sizes(o);
  ASSERT_EQ(s.size(), 24u);
  EXPECT_EQ(s.front(), 8u);
  EXPECT_EQ(s.back(), 64u << 20);
  for (std::size_t i = 1; i < s.size(); ++i) EXPECT_EQ(s[i], 2 * s[i - 1]);
  o.min_bytes = 1024;
  o.max_bytes = 4096;
  o.step_factor = 1;
  o.step_bytes = 1024;
  EXPECT_EQ(probes::sweep_sizes(o), (std::vector<std::uint64_t>{1024, 2048, 3072, 4096}));
  o.min_bytes = o.max_bytes = 32u << 20;  // defaults: one size
  EXPECT_EQ(probes::sweep_sizes(o).size(), 1u);
}

TEST(Options, ValidateNamesTheFlag) {
  probes::SweepOptions ok;
  EXPECT_NO_THROW(probes::validate(ok));
  // Each change to valid options, and the flag its error names first.
  using Change = std::function<void(probes::SweepOptions&)>;
  const std::pair<Change, std::string> bad[] = {
      {[](auto& o) {
         o.min_bytes = 64u << 20;
         o.max_bytes = 8;
       },
       "-b/--minbytes"},
      {[](auto& o) { o.iters = 0; }, "-n/--iters"},
      {[](auto& o) { o.average = 4; }, "-a/--average"},
      {[](auto& o) { o.blocking = 5; }, "-z/--blocking"},
      {[](auto& o) { o.cycles = 0; }, "-N/--run_cycles"},
      {[](auto& o) { o.root = -2; }, "-r/--root"},
      {[](auto& o) { o.backend = "gloo"; }, "--backend"},
      {[](auto& o) {
         o.min_bytes = 0;
         o.max_bytes = 8;
         o.step_factor = 2;
       },
       "-b/--minbytes"},
  };
  for (const auto& [change, flag] : bad) {
    auto o = ok;
    change(o);
    try {
      probes::validate(o);
      ADD_FAILURE() << "accepted, expected an error naming " << flag;
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(flag, 0), 0u) << e.what();
    }
  }
}

// --- percentiles (DESIGN §4 integer nearest rank)
// ---------------------------------------------------------------

TEST(Percentiles, P999OfReversedVectors) {
  for (int n : {1000, 2000, 10000}) {
    std::vector<double> v(static_cast<std::size_t>(n));
    std::iota(v.begin(), v.end(), 1.0);
    std::reverse(v.begin(), v.end());  // summarize must sort
    const auto s = core::summarize(v);
    const std::size_t idx = (static_cast<std::size_t>(9990) * static_cast<std::size_t>(n) + 9999) / 10000 - 1;
    EXPECT_EQ(s.p999, static_cast<double>(idx + 1)) << n;
    EXPECT_EQ(s.p99, std::ceil(0.99 * n)) << n;
    EXPECT_EQ(s.p50, n / 2.0) << n;
    EXPECT_FALSE(s.low_confidence_p999) << n;
  }
  std::vector<double> v999(999, 1.0), v99(99, 1.0), v100(100, 1.0);
  EXPECT_TRUE(core::summarize(v999).low_confidence_p999);
  EXPECT_TRUE(core::summarize(v99).low_confidence_p99);
  EXPECT_FALSE(core::summarize(v100).low_confidence_p99);
}

// --- clock-offset maths
// -----------------------------------------------------------------------------------------

TEST(Clock, OffsetFromTightestRoundTrip) {
  // Remote clock = local + 1000 µs. Three pings with asymmetric delays; the tightest (rtt 4) wins.
  std::vector<core::ClockSample> s = {{0, 1000 + 30, 40},     // out 30, back 10: rtt 40
                                      {100, 1100 + 3, 104},   // out 3, back 1: rtt 4
                                      {200, 1200 + 5, 220}};  // rtt 20
  const auto o = core::estimate_offset(s);
  EXPECT_DOUBLE_EQ(o.rtt_us, 4.0);
  EXPECT_DOUBLE_EQ(o.error_bound_us, 2.0);
  EXPECT_DOUBLE_EQ(o.remote_minus_local_us, 1103.0 - 102.0);
  EXPECT_LE(std::fabs(o.remote_minus_local_us - 1000.0), o.error_bound_us);  // the bound holds
  std::vector<core::ClockSample> sym = {{10, 60, 30}};                       // symmetric: exact
  EXPECT_DOUBLE_EQ(core::estimate_offset(sym).remote_minus_local_us, 40.0);
  EXPECT_THROW(core::estimate_offset(std::vector<core::ClockSample>{}), std::invalid_argument);
  std::vector<core::ClockSample> bad = {{10, 0, 5}};
  EXPECT_THROW(core::estimate_offset(bad), std::invalid_argument);
}

// --- per-iteration statistics
// ---------------------------------------------------------------------------------

TEST(PerIter, SpanAndStragglerIsTheLastToEnter) {
  const std::size_t m = 20;
  std::vector<std::vector<double>> entry(3, std::vector<double>(m)), exit(3, std::vector<double>(m));
  for (std::size_t i = 0; i < m; ++i) {
    const double t = 1000.0 * static_cast<double>(i);
    for (std::size_t r = 0; r < 3; ++r)
      entry[r][i] = t + static_cast<double>(r) * 0.1;  // rank 2 last by 0.1 µs
    if (i % 5 == 4) entry[1][i] = t + 100;             // rank 1 late by 100 µs
    const double last = std::max({entry[0][i], entry[1][i], entry[2][i]});
    for (std::size_t r = 0; r < 3; ++r)
      exit[r][i] = last + 10 + static_cast<double>(r);  // rank 0 waited longest
  }
  const auto st = probes::per_iter_stats(entry, exit, {"a", "b", "c"}, 8, /*resolution_us=*/1.0);
  EXPECT_EQ(st.samples, m);
  // span = max exit - min entry: 12.2 normally (last entry 0.2, exits 10.2..12.2), 112 when rank 1 is late.
  EXPECT_NEAR(st.min_us, 12.2, 1e-9);
  EXPECT_NEAR(st.max_us, 112.0, 1e-9);
  ASSERT_EQ(st.samples_us.size(), 8u);  // capped
  ASSERT_EQ(st.straggler_ranks.size(), 8u);
  EXPECT_EQ(st.samples_cap, 8u);
  // Sub-resolution leads (0.1 µs < 1 µs) name nobody; the 100 µs lead names rank 1.
  EXPECT_EQ(st.straggler_ranks[0], -1);
  EXPECT_EQ(st.straggler_ranks[4], 1);
  ASSERT_EQ(st.stragglers.size(), 1u);
  EXPECT_EQ(st.stragglers[0].rank, 1);
  EXPECT_EQ(st.stragglers[0].host, "b");
  EXPECT_DOUBLE_EQ(st.stragglers[0].share, 4.0 / 20.0);
  // With no resolution, rank 2 (last by 0.1 µs) is the straggler of the other 16 and comes first.
  const auto st0 = probes::per_iter_stats(entry, exit, {"a", "b", "c"}, 100, 0.0);
  ASSERT_EQ(st0.stragglers.size(), 2u);
  EXPECT_EQ(st0.stragglers[0].rank, 2);
  EXPECT_DOUBLE_EQ(st0.stragglers[0].share, 16.0 / 20.0);
  EXPECT_TRUE(st0.low_confidence);
  EXPECT_THROW(probes::per_iter_stats({{1.0}, {1.0, 2.0}}, {{1.0}, {1.0, 2.0}}, {}, 10),
               std::invalid_argument);
}

// --- number formatting (nccl-tests HEAD getFloatStr)
// -----------------------------------------------------------

TEST(NcclFloat, HeadRule) {
  EXPECT_EQ(report::nccl_float(4366.456, 7), "4366.46");
  EXPECT_EQ(report::nccl_float(14977.14, 7), "14977.1");
  EXPECT_EQ(report::nccl_float(171351.2, 7), " 171351");
  EXPECT_EQ(report::nccl_float(9999.999, 7), "10000.0");  // .2f would need 8 characters
  EXPECT_EQ(report::nccl_float(12345678.0, 7), "1.2e+07");
  EXPECT_EQ(report::nccl_float(0.2449, 6), "  0.24");
  EXPECT_EQ(report::nccl_float(139.08, 6), "139.08");
  EXPECT_EQ(report::nccl_float(1000.51, 6), "1000.5");
  EXPECT_EQ(report::nccl_float(12345.4, 6), " 12345");
  EXPECT_EQ(report::nccl_float(1234567.0, 6), " 1e+06");
  EXPECT_EQ(report::nccl_float(0.0, 6), "  0.00");
}

// --- console table
// --------------------------------------------------------------------------------------------

namespace {

model::SweepResult synthetic_result(int nranks) {
  model::SweepResult r;
  r.options.min_bytes = 8;
  r.options.max_bytes = 1024;
  r.options.step_factor = 2;
  r.options.iters = 20;
  r.topology.nranks = nranks;
  r.topology.backend = "mpi";
  r.topology.hosts = {{"node01", {}}};
  for (int k = 0; k < nranks; ++k) {
    r.topology.hosts[0].ranks.push_back(k);
    r.devices.push_back({k, 4000 + k, "node01", -1, "[cpu] MPI host buffers"});
  }
  auto make_block = [&](Collective c, Dtype d, std::optional<core::RedOp> op, int root) {
    model::SweepBlock b;
    b.collective = c;
    b.dtype = d;
    b.redop = op;
    b.root = root;
    b.nranks = nranks;
    double sum = 0;
    for (std::uint64_t s = 8; s <= 1024; s *= 2) {
      const auto g = core::geometry(c, d, s, nranks);
      model::SweepPoint p;
      p.size_bytes = g.size_bytes;
      p.count = g.count;
      for (auto* pr : {&p.out_of_place, &p.in_place}) {
        pr->time_us = 3.5 + static_cast<double>(s) / 100.0 + (pr == &p.in_place ? 0.25 : 0.0);
        pr->algbw_gbps = core::algbw_gbps(g.size_bytes, pr->time_us * 1e-6);
        pr->busbw_gbps = core::busbw_gbps(c, nranks, pr->algbw_gbps);
        pr->wrong = 0;
        sum += pr->busbw_gbps;
      }
      if (!core::checks_in_place(c)) p.in_place.wrong.reset();
      b.points.push_back(p);
    }
    b.avg_busbw_gbps = sum / static_cast<double>(2 * b.points.size());
    return b;
  };
  r.blocks.push_back(make_block(Collective::kAllReduce, Dtype::kFloat, core::RedOp::kSum, -1));
  r.blocks.push_back(make_block(Collective::kAllReduce, Dtype::kInt32, core::RedOp::kMax, -1));
  r.blocks.push_back(make_block(Collective::kAllToAll, Dtype::kFloat, std::nullopt, -1));
  r.blocks.push_back(make_block(Collective::kReduce, Dtype::kDouble, core::RedOp::kProd, 2));
  r.blocks[1].points[3].in_place.wrong = 3;  // one failed check in the allreduce table
  return r;
}

}  // namespace

TEST(Console, NcclTestsLayoutParsesBack) {
  const auto r = synthetic_result(4);
  const std::string text = report::render_sweep(r);
  const auto lines = lines_of(text);
  // Header lines exactly as nccl-tests HEAD prints them (trailing spaces included).
  const std::string h1 =
      "#                                                              out-of-place                       "
      "in-place    "
      "      ";
  const std::string h2 =
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   "
      "algbw   busbw "
      " #wrong ";
  const std::string h3 =
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  "
      "(GB/s)  (GB/s) "
      "        ";
  EXPECT_EQ(std::count(lines.begin(), lines.end(), h1), 3);  // one block per collective
  EXPECT_EQ(std::count(lines.begin(), lines.end(), h2), 3);
  EXPECT_EQ(std::count(lines.begin(), lines.end(), h3), 3);
  EXPECT_EQ(
      std::count(lines.begin(), lines.end(),
                 "# nThread 1 nGpus 1 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 1 iters: 20 agg "
                 "iters: 1 validation: 1 graph: 0 unalign: 0"),
      3);
  EXPECT_EQ(std::count(lines.begin(), lines.end(),
                       "#  Rank  2 Group  0 Pid   4002 on     node01 device -1 [cpu] MPI host buffers"),
            3);

  // Rows: every non-comment line splits into 13 tokens that match the result.
  std::vector<std::vector<std::string>> rows;
  for (const auto& l : lines) {
    if (l.empty() || l[0] == '#') continue;
    rows.push_back(split_ws(l));
  }
  std::size_t expect_rows = 0;
  for (const auto& b : r.blocks) expect_rows += b.points.size();
  ASSERT_EQ(rows.size(), expect_rows);
  std::size_t k = 0;
  for (const auto& b : r.blocks) {
    for (const auto& p : b.points) {
      const auto& t = rows[k++];
      ASSERT_EQ(t.size(), 13u);
      EXPECT_EQ(std::stoull(t[0]), p.size_bytes);
      EXPECT_EQ(std::stoull(t[1]), p.count);
      EXPECT_EQ(t[2], std::string(core::name(b.dtype)));
      EXPECT_EQ(t[3], b.redop ? std::string(core::name(*b.redop)) : "none");
      EXPECT_EQ(std::stoi(t[4]), b.root);
      const model::PlacementResult* prs[] = {&p.out_of_place, &p.in_place};
      for (int j = 0; j < 2; ++j) {
        const auto& pr = *prs[j];
        const std::size_t o = 5 + 4 * static_cast<std::size_t>(j);
        EXPECT_NEAR(std::stod(t[o]), pr.time_us, 0.005 + 1e-12);
        EXPECT_NEAR(std::stod(t[o + 1]), pr.algbw_gbps, 0.005 + 1e-12);
        EXPECT_NEAR(std::stod(t[o + 2]), pr.busbw_gbps, 0.005 + 1e-12);
        if (pr.wrong) {
          EXPECT_EQ(std::stod(t[o + 3]), static_cast<double>(*pr.wrong));
        } else {
          EXPECT_EQ(t[o + 3], "N/A");
        }
      }
    }
  }
  // Footers: per collective, failed checks and the mean of every printed busBw.
  std::vector<std::string> oob, avg, concluded;
  for (const auto& l : lines) {
    if (l.rfind("# Out of bounds values : ", 0) == 0) oob.push_back(l);
    if (l.rfind("# Avg bus bandwidth    : ", 0) == 0) avg.push_back(l);
    if (l.rfind("# Collective test concluded: ", 0) == 0) concluded.push_back(l);
  }
  ASSERT_EQ(oob.size(), 3u);
  EXPECT_EQ(oob[0], "# Out of bounds values : 1 FAILED");
  EXPECT_EQ(oob[1], "# Out of bounds values : 0 OK");
  ASSERT_EQ(avg.size(), 3u);
  const double ar_mean = (r.blocks[0].avg_busbw_gbps * static_cast<double>(r.blocks[0].points.size()) +
                          r.blocks[1].avg_busbw_gbps * static_cast<double>(r.blocks[1].points.size())) /
                         static_cast<double>(r.blocks[0].points.size() + r.blocks[1].points.size());
  EXPECT_EQ(avg[0], cfmt("# %-20s : %g ", "Avg bus bandwidth", ar_mean));
  EXPECT_EQ(avg[1], cfmt("# %-20s : %g ", "Avg bus bandwidth", r.blocks[2].avg_busbw_gbps));
  EXPECT_EQ(concluded[0], "# Collective test concluded: all_reduce_perf");
  EXPECT_EQ(concluded[1], "# Collective test concluded: alltoall_perf");
  EXPECT_EQ(concluded[2], "# Collective test concluded: reduce_perf");
  // Rows use the exact nccl-tests printf layout.
  const auto& p0 = r.blocks[0].points[0];
  const std::string row0 =
      cfmt("%12li  %12li  %8s  %6s  %6s", static_cast<long>(p0.size_bytes), static_cast<long>(p0.count),
           "float", "sum", "    -1") +
      cfmt("  %7s  %6s  %6s  %6g", report::nccl_float(p0.out_of_place.time_us, 7).c_str(),
           report::nccl_float(p0.out_of_place.algbw_gbps, 6).c_str(),
           report::nccl_float(p0.out_of_place.busbw_gbps, 6).c_str(), 0.0) +
      cfmt("  %7s  %6s  %6s  %6g", report::nccl_float(p0.in_place.time_us, 7).c_str(),
           report::nccl_float(p0.in_place.algbw_gbps, 6).c_str(),
           report::nccl_float(p0.in_place.busbw_gbps, 6).c_str(), 0.0);
  EXPECT_NE(std::find(lines.begin(), lines.end(), row0), lines.end()) << row0;
}

TEST(Report, SweepSectionFindingsAndNulls) {
  auto r = synthetic_result(4);
  r.total_wrong = 3;
  r.failed_checks = 1;
  report::Document doc({"fabcheck", "sweep"});
  report::add_sweep(doc, r);
  const auto& j = doc.json();
  ASSERT_EQ(j["sweeps"].size(), r.blocks.size());
  EXPECT_EQ(j["sweeps"][0]["collective"], "allreduce");
  EXPECT_EQ(j["sweeps"][0]["redop"], "sum");
  EXPECT_TRUE(j["sweeps"][2]["redop"].is_null());  // alltoall has no reduction
  EXPECT_EQ(j["sweeps"][3]["root"], 2);
  EXPECT_EQ(j["sweeps"][0]["points"].size(), 2 * r.blocks[0].points.size());
  const auto& a2a_ip = j["sweeps"][2]["points"][1];
  EXPECT_EQ(a2a_ip["placement"], "in_place");
  EXPECT_TRUE(a2a_ip["wrong"].is_null());
  EXPECT_TRUE(a2a_ip.contains("wrong_reason"));
  EXPECT_EQ(j["topology"]["nranks"], 4);
  EXPECT_EQ(j["run"]["sections"]["sweeps"]["status"], "ok");
  EXPECT_TRUE(doc.has_fail());
  EXPECT_EQ(j["findings"][0]["code"], "WRONG_DATA");
  EXPECT_EQ(j["findings"][0]["evidence"]["total_wrong"], 3);
  EXPECT_FALSE(j.dump().find("NaN") != std::string::npos);

  auto one = synthetic_result(1);
  report::Document d1;
  report::add_sweep(d1, one);
  EXPECT_FALSE(d1.has_fail());
  ASSERT_EQ(d1.json()["findings"].size(), 1u);
  EXPECT_EQ(d1.json()["findings"][0]["code"], "SINGLE_RANK");
  EXPECT_NE(report::render_sweep(one).find("# fabcheck note: 1 rank"), std::string::npos);
}

TEST(Console, CompactFormIsOneLinePerSeries) {
  auto r = synthetic_result(4);
  r.blocks[1].points[3].in_place.wrong_ranks = {2};
  r.blocks[0].truncated_from_bytes = 2048;
  const std::string text = report::render_sweep_compact(r);
  const auto lines = lines_of(text);
  ASSERT_EQ(lines.size(), 1 + r.blocks.size()) << text;
  for (const auto& l : lines) EXPECT_EQ(l.rfind("#", 0), 0u) << l;  // comment lines: table parsers skip them
  // The series with the failed check names the count and the rank that received it.
  EXPECT_NE(lines[2].find("data check 3 WRONG on rank(s) 2"), std::string::npos) << lines[2];
  EXPECT_NE(lines[1].find("data check 0 wrong"), std::string::npos) << lines[1];
  // The largest size measured, and the peak with its size (the synthetic busBw grows with the size).
  EXPECT_NE(lines[1].find("at 1K, avg"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("sizes from 2K not measured (time limit)"), std::string::npos) << lines[1];
}

// --- the average busBw rule and the one writer of sweeps[]
// ------------------------------------------------------------------------

TEST(BusbwMean, IsTheMeanOfEveryBlockInOrder) {
  // nccl-tests' `# Avg bus bandwidth`: the plain mean of busBw over every printed block (out-of-place and
  // in-place rows).
  core::BusbwMean m;
  EXPECT_EQ(m.count(), 0u);
  EXPECT_FALSE(m.value().has_value());  // nothing added: no average (nccl-tests divides 0 by 0)
  for (double v : {1.0, 2.0, 4.0, 9.0}) m.add(v);
  EXPECT_EQ(m.count(), 4u);
  ASSERT_TRUE(m.value().has_value());
  EXPECT_DOUBLE_EQ(*m.value(), 4.0);
  // Summed in the order added, then divided once: the importers' recomputation of a file's footer.
  core::BusbwMean r;
  double sum = 0;
  for (double v : {0.1, 0.2, 0.3}) {
    r.add(v);
    sum += v;
  }
  EXPECT_EQ(*r.value(), sum / 3.0);
}

TEST(SweepJson, OneWriterForEveryEntry) {
  report::SweepPointFields p;
  p.size_bytes = 1024;
  p.count = 256;
  p.cycle = 1;
  p.placement = "in_place";
  p.time_us = 10.0;
  p.algbw_gbps = 0.1;
  p.busbw_gbps = 0.15;
  p.wrong_reason = "unchecked (-c 0)";
  p.per_iter_reason = "off";
  const auto j = report::sweep_point_json(p);
  EXPECT_EQ(j["size_bytes"], 1024u);
  EXPECT_EQ(j["count"], 256u);
  EXPECT_EQ(j["cycle"], 1);
  EXPECT_EQ(j["placement"], "in_place");
  EXPECT_TRUE(j["wrong"].is_null());
  EXPECT_EQ(j["wrong_reason"], "unchecked (-c 0)");
  EXPECT_TRUE(j["per_iter"].is_null());
  EXPECT_EQ(j["per_iter_reason"], "off");
  p.wrong = std::uint64_t{3};
  p.per_iter = nlohmann::json::object();
  p.count.reset();
  p.busbw_gbps.reset();
  const auto k = report::sweep_point_json(p);
  EXPECT_EQ(k["wrong"], 3u);
  EXPECT_FALSE(k.contains("wrong_reason"));
  EXPECT_FALSE(k.contains("per_iter_reason"));
  EXPECT_TRUE(k["count"].is_null());
  EXPECT_TRUE(k["busbw_gbps"].is_null());

  report::SweepSeriesFields s;
  s.collective = "allreduce";
  s.dtype = "float";
  s.redop = "sum";
  s.nranks = 4;
  s.busbw_factor = 1.5;
  s.avg_busbw_gbps = 0.15;
  const auto e = report::sweep_series_json(s, nlohmann::json::array({j, k}));
  for (const char* key :
       {"collective", "dtype", "redop", "root", "nranks", "busbw_factor", "avg_busbw_gbps", "points"}) {
    EXPECT_TRUE(e.contains(key)) << key;
  }
  EXPECT_EQ(e.size(), 8u);
  EXPECT_TRUE(e["root"].is_null());
  EXPECT_EQ(e["points"].size(), 2u);
  report::Document doc({"fabcheck", "sweep"});
  report::set_sweeps(doc, nlohmann::json::array({e}));
  EXPECT_EQ(doc.json()["sweeps"].size(), 1u);
  EXPECT_EQ(doc.json()["run"]["sections"]["sweeps"]["status"], "ok");
}

// nccl-tests' memory cap on -e (common.cu run()): (memory - reserve - 1 GiB) / (3 checked, 2 unchecked),
// reserve 1 GiB per 16 GiB started, at most 4 GiB.
TEST(SweepMemoryCap, NcclTestsFormula) {
  constexpr std::uint64_t kGiB = 1ull << 30;
  // 80 GiB: the reserve is capped at 4 GiB
  EXPECT_EQ(fabcheck::probes::nccl_tests_max_bytes_cap(80 * kGiB, true), 25 * kGiB);
  EXPECT_EQ(fabcheck::probes::nccl_tests_max_bytes_cap(80 * kGiB, false), 75 * kGiB / 2);
  EXPECT_EQ(fabcheck::probes::nccl_tests_max_bytes_cap(16 * kGiB, true), 14 * kGiB / 3);  // reserve 1 GiB
  EXPECT_EQ(fabcheck::probes::nccl_tests_max_bytes_cap(16 * kGiB + 1, true), (13 * kGiB + 1) / 3);  // 2 GiB
  EXPECT_EQ(fabcheck::probes::nccl_tests_max_bytes_cap(2 * kGiB, true), 0u);  // nothing left
  EXPECT_EQ(fabcheck::probes::nccl_tests_max_bytes_cap(0, true), 0u);
  // A public nccl-tests log on H200s (NCCL 2.30.4) printed "Reducing maxBytes to 48247057066": the formula
  // gives that number for a totalGlobalMem of 150109880320 B (143155.5 MiB).
  EXPECT_EQ(fabcheck::probes::nccl_tests_max_bytes_cap(150109880320ull, true), 48247057066ull);
}
