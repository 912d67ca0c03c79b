// `fabcheck import`: every nccl-tests fixture in tests/data/nccl-tests parses and imports; row
// counts, sizes, rank counts and hosts match what the files say; every row's busBw recomputed from size, time
// and nranks agrees with the file at its printed precision; edits to a busBw or #wrong value become findings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <string>

#include "../support/test_data.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/parse/nccl_tests.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/load.hpp"
#include "fabcheck/report/nccl_tests_import.hpp"

using fabcheck::UsageError;
using nlohmann::json;
namespace core = fabcheck::core;
namespace parse = fabcheck::parse;
namespace report = fabcheck::report;

namespace {

std::string read(const std::string& name) {
  return fabcheck::testing_fixtures::read_test_data("nccl-tests/" + name);
}

parse::NcclTestsRun parse_any(const std::string& name, const std::string& text) {
  return parse::looks_like_json(text) ? parse::parse_nccl_tests_json(text, name)
                                      : parse::parse_nccl_tests_text(text);
}

std::set<std::string> codes_rnti(const json& doc) {
  std::set<std::string> out;
  for (const auto& f : doc["findings"]) out.insert(f["code"].get<std::string>());
  return out;
}

/// What each fixture says, read off the file by eye (not from the importer).
struct Fixture {
  std::string file;
  std::string collective;                ///< expected collective of every sweep
  std::optional<std::string> coll_flag;  ///< --coll given
  std::string collective_source;         ///< file | --coll | inferred
  int nranks;
  std::vector<std::string> hosts;
  std::size_t tables, rows;  ///< tables and rows in the file
  std::uint64_t first_size, last_size;
  std::string layout_prefix;  ///< layout of the first table starts with this
  bool tagged;
  std::vector<std::string> findings;  ///< codes that must be present (BUSBW_MISMATCH never)
  std::optional<double> footer_avg;   ///< `# Avg bus bandwidth` as printed
};

void PrintTo(const Fixture& f, std::ostream* os) {
  *os << f.file;
}

class ImportFixture : public ::testing::TestWithParam<Fixture> {};

TEST_P(ImportFixture, ParsesImportsAndRecomputesBusbw) {
  const Fixture& fx = GetParam();
  const std::string text = read(fx.file);
  const auto run = parse_any(fx.file, text);

  // Parser: tables, rows, sizes, devices.
  ASSERT_EQ(run.tables.size(), fx.tables);
  std::size_t rows = 0;
  for (const auto& t : run.tables) rows += t.rows.size();
  EXPECT_EQ(rows, fx.rows);
  EXPECT_EQ(run.tables.front().rows.front().size_bytes, fx.first_size);
  EXPECT_EQ(run.tables.back().rows.back().size_bytes, fx.last_size);
  EXPECT_TRUE(run.tables.front().layout.starts_with(fx.layout_prefix)) << run.tables.front().layout;
  EXPECT_EQ(run.tagged, fx.tagged);
  // Rows are in sweep order within a series and every count matches the size (size = count·elt or
  // n·count·elt).
  for (const auto& t : run.tables) {
    for (const auto& r : t.rows) {
      const auto elt = r.dtype == "bfloat16" ? 2u : 4u;
      EXPECT_TRUE(r.size_bytes == r.count * elt || r.size_bytes == r.count * elt * fx.nranks)
          << fx.file << " size " << r.size_bytes << " count " << r.count;
    }
  }
  // Every parsed busBw together reproduces the file's own footer average (so no row was lost or doubled).
  if (fx.footer_avg) {
    const auto& t = run.tables.front();
    ASSERT_TRUE(t.avg_busbw_gbps.has_value());
    EXPECT_DOUBLE_EQ(t.avg_busbw_gbps->value, *fx.footer_avg);
    double sum = 0, slack = 0;
    std::size_t n = 0;
    for (const auto& r : t.rows) {
      for (const auto* b : {&*r.out_of_place, &r.in_place}) {
        sum += b->busbw_gbps.value;
        slack += b->busbw_gbps.half_ulp;
        ++n;
      }
    }
    EXPECT_NEAR(sum / static_cast<double>(n), *fx.footer_avg, slack / static_cast<double>(n) + 1e-4)
        << fx.file;
  }

  // Import: a normal report that the shared loader accepts.
  report::Document doc({"fabcheck", "import", fx.file});
  report::ImportOptions opts;
  opts.file = fx.file;
  if (fx.coll_flag) opts.collective = core::parse_collective(*fx.coll_flag);
  const auto sum = report::add_import(doc, run, opts);
  doc.finish("complete", doc.has_fail() ? 1 : 0, 0.0);
  const json back = report::parse_report_text(doc.json().dump(), fx.file);

  EXPECT_EQ(sum.nranks, fx.nranks);
  EXPECT_EQ(back["topology"]["nranks"], fx.nranks);
  std::vector<std::string> hosts;
  for (const auto& h : back["topology"]["hosts"]) hosts.push_back(h["host"]);
  EXPECT_EQ(hosts, fx.hosts);
  std::size_t points = 0, blocks = 0;
  for (const auto& s : back["sweeps"]) {
    if (!fx.collective.empty()) {
      EXPECT_EQ(s["collective"], fx.collective);
    }
    EXPECT_EQ(s["nranks"], fx.nranks);
    EXPECT_EQ(s["imported"]["collective_source"], fx.collective_source);
    EXPECT_DOUBLE_EQ(
        s["busbw_factor"].get<double>(),
        core::busbw_factor(*core::parse_collective(s["collective"].get<std::string>()), fx.nranks));
    for (const auto& p : s["points"]) {
      ++points;
      EXPECT_TRUE(p["per_iter"].is_null());
      EXPECT_FALSE(p.contains("samples_us"));
      EXPECT_TRUE(p["busbw_agrees"].get<bool>())
          << fx.file << " " << p["size_bytes"] << " " << p["placement"] << ": file " << p["busbw_gbps"]
          << " recomputed " << p["busbw_recomputed_gbps"];
    }
  }
  for (const auto& s : sum.sweeps) {
    for (const auto& c : s.checks) {
      ++blocks;
      // The recomputation is the nccl-tests formula, independent of the importer's own code path.
      const auto& pt = c;
      EXPECT_LE(std::abs(pt.file_gbps - pt.recomputed_gbps), pt.tolerance_gbps);
    }
  }
  EXPECT_EQ(points, blocks);
  EXPECT_GE(points, fx.rows);  // two placements per row (JSON rows may lack out_of_place)
  EXPECT_EQ(sum.mismatches, 0u);
  const auto got = codes_rnti(back);
  EXPECT_FALSE(got.contains("BUSBW_MISMATCH"));
  for (const auto& c : fx.findings) EXPECT_TRUE(got.contains(c)) << fx.file << " lacks " << c;
  EXPECT_EQ(back["run"]["imported"]["file"], fx.file);
  EXPECT_EQ(back["run"]["imported"]["format"], run.format);
  EXPECT_EQ(back["run"]["sections"]["sweeps"]["status"], "ok");
  EXPECT_EQ(back["run"]["sections"]["latency"]["status"], "skipped");
}

const Fixture kFixtures[] = {
    {"allreduce_16rank_a100_2node_rdma_v2.13.txt",
     "allreduce",
     {},
     "inferred",
     16,
     {"node01", "node02"},
     1,
     31,
     8,
     8589934592ull,
     "2.13",
     false,
     {"IMPORT_COLLECTIVE_INFERRED"},
     66.4834},
    {"allreduce_2rank_t4_efa_tagged_lowbw.txt",
     "allreduce",
     {},
     "inferred",
     2,
     {"node01", "node02"},
     1,
     31,
     0,
     1073741824ull,
     "2.13",
     true,
     {"IMPORT_COLLECTIVE_INFERRED"},
     1.15327},
    {"allreduce_2rank_v100_efa_legacy_lowbw.txt",
     "allreduce",
     {},
     "inferred",
     2,
     {"node01", "node02"},
     1,
     29,
     8,
     2147483648ull,
     "legacy",
     false,
     {"IMPORT_COLLECTIVE_INFERRED"},
     1.16154},
    {"synthetic_allgather_4rank_v2.19_timestamps_srun.txt",
     "allgather",
     {},
     "file",
     4,
     {"node03", "node04"},
     1,
     17,
     1024,
     64ull << 20,
     "2.17.3+timestamp",
     true,
     {},
     {}},
    {"synthetic_reducescatter_8rank_per_iter.txt",
     "reducescatter",
     {},
     "file",
     8,
     {"gpu-a"},
     1,
     15,
     8192,
     128ull << 20,
     "2.17.3+per_iter",
     false,
     {},
     {}},
    {"synthetic_sendrecv_2rank_crashed.txt",
     "sendrecv",
     "sendrecv",
     "--coll",
     2,
     {"node05", "node06"},
     1,
     9,
     1ull << 20,
     256ull << 20,
     "2.13",
     false,
     {"IMPORT_INCOMPLETE"},
     {}},
    {"synthetic_allreduce_nonmpi_duplicated.txt",
     "allreduce",
     {},
     "file",
     1,
     {"node07", "node08"},
     2,
     10,
     1ull << 20,
     16ull << 20,
     "2.17.3",
     true,
     {"SINGLE_RANK"},
     {}},
    {"fabcheck_sweep_2rank_3coll_2dtype.txt",
     "",
     {},
     "file",
     2,
     {"vm"},
     3,
     36,
     8,
     262144,
     "2.17.3",
     false,
     {},
     {}},
    {"synthetic_allreduce_8rank_v3.json",
     "allreduce",
     {},
     "file",
     8,
     {"node10", "node11"},
     1,
     28,
     8,
     1ull << 30,
     "json",
     false,
     {},
     {}},
};

INSTANTIATE_TEST_SUITE_P(Fixtures, ImportFixture, ::testing::ValuesIn(kFixtures), [](const auto& p) {
  std::string n = p.param.file.substr(0, p.param.file.find('.'));
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
});

report::Document import_text(const std::string& text, report::ImportSummary* out = nullptr) {
  report::Document doc;
  report::ImportOptions opts;
  opts.file = "edited.txt";
  const auto s = report::add_import(doc, parse::parse_nccl_tests_text(text), opts);
  if (out) *out = s;
  return doc;
}

TEST(Import, EditedBusbwBecomesAFindingNotAnError) {
  std::string text = read("allreduce_16rank_a100_2node_rdma_v2.13.txt");
  // 8 GiB out-of-place busBw 237.94 → 227.94: one block off by 10 GB/s.
  const auto at = text.find("126.90  237.94");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 14, "126.90  227.94");
  report::ImportSummary sum;
  const auto doc = import_text(text, &sum);
  EXPECT_EQ(sum.mismatches, 1u);
  const auto& f = doc.json()["findings"];
  const auto it =
      std::find_if(f.begin(), f.end(), [](const json& x) { return x["code"] == "BUSBW_MISMATCH"; });
  ASSERT_NE(it, f.end());
  EXPECT_EQ((*it)["severity"], "warn");
  const auto& m = (*it)["evidence"]["mismatches"][0];
  EXPECT_EQ(m["size_bytes"], 8589934592ull);
  EXPECT_EQ(m["placement"], "out_of_place");
  EXPECT_NEAR(m["recomputed_busbw_gbps"].get<double>(), 237.94, 0.01);
  EXPECT_FALSE(doc.has_fail());
}

TEST(Import, WrongRankCountShowsAsMismatches) {
  // The same table read as 8 ranks: 2·7/8 instead of 2·15/16 → every non-zero busBw disagrees.
  const auto run = parse::parse_nccl_tests_text(read("allreduce_16rank_a100_2node_rdma_v2.13.txt"));
  report::Document doc;
  report::ImportOptions opts;
  opts.file = "x";
  opts.nranks = 8;
  const auto sum = report::add_import(doc, run, opts);
  EXPECT_GT(sum.mismatches, 30u);
  EXPECT_EQ(doc.json()["topology"]["nranks_source"], "--nranks");
}

TEST(Import, NonZeroWrongIsWrongData) {
  std::string text = read("synthetic_allgather_4rank_v2.19_timestamps_srun.txt");
  const auto at = text.find("       0  2026-06-01 12:00:03");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 8, "       3");
  const auto doc = import_text(text);
  EXPECT_TRUE(doc.has_fail());
  EXPECT_TRUE(codes_rnti(doc.json()).contains("WRONG_DATA"));
}

TEST(Import, RanksInferredWithoutDeviceLines) {
  // Only the table of the 16-rank run (a user pasted rows and header): nranks from busbw/algbw = 2(n-1)/n.
  const std::string text = read("allreduce_16rank_a100_2node_rdma_v2.13.txt");
  const auto hdr = text.find("#                                                              out-of-place");
  ASSERT_NE(hdr, std::string::npos);
  report::ImportSummary sum;
  import_text(text.substr(hdr), &sum);
  EXPECT_EQ(sum.nranks, 16);
  EXPECT_EQ(sum.nranks_source, "inferred");
  EXPECT_EQ(sum.mismatches, 0u);
}

TEST(Import, CollFlagContradictingTheFileIsAUsageError) {
  const auto run = parse::parse_nccl_tests_text(read("synthetic_reducescatter_8rank_per_iter.txt"));
  report::Document doc;
  report::ImportOptions opts;
  opts.file = "rs.txt";
  opts.collective = core::Collective::kAllReduce;
  EXPECT_THROW(report::add_import(doc, run, opts), UsageError);
}

TEST(Import, NoRowsIsAUsageError) {
  report::Document doc;
  report::ImportOptions opts;
  opts.file = "noise.txt";
  // NCCL lines and a header but not one row (a run that died during init).
  const std::string text =
      "node01:1:1 [0] NCCL INFO Bootstrap : Using eth0:192.0.2.1<0>\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw "
      "  "
      "busbw #wrong\n";
  try {
    report::add_import(doc, parse::parse_nccl_tests_text(text), opts);
    FAIL() << "no throw";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("noise.txt: no nccl-tests result rows"), std::string::npos);
  }
}

TEST(Import, JsonThatIsNotNcclTests) {
  EXPECT_THROW(parse::parse_nccl_tests_json(R"({"schema_version": 1})", "r.json"), UsageError);
  EXPECT_THROW(parse::parse_nccl_tests_json(R"({"version": 3, "results": [)", "t.json"), UsageError);
  EXPECT_THROW(parse::parse_nccl_tests_json(R"({"version": 3, "results": [{"size": 8}]})", "b.json"),
               UsageError);
  // a number past a double is nlohmann's out_of_range, not its parse_error: still one usage line, no crash
  try {
    parse::parse_nccl_tests_json(R"({"version": 3, "results": [{"size": 1E073741824}]})", "o.json");
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("number overflow"), std::string::npos) << e.what();
  }
}

TEST(Import, HypercubeIsRefused) {
  std::string text = read("synthetic_allgather_4rank_v2.19_timestamps_srun.txt");
  const auto at = text.find("all_gather_perf_mpi");
  text.replace(at, 19, "hypercube_perf_mpi");
  EXPECT_THROW(import_text(text), UsageError);
}

TEST(Import, FabcheckSweepOutputSplitsSeries) {
  // fabcheck's own `sweep` console output (mpirun -np 2, --coll allreduce,allgather,broadcast -d
  // float,int32): one table per collective, one sweeps[] entry per (collective, dtype), host buffers ->
  // backend mpi.
  report::Document doc;
  report::ImportOptions opts;
  opts.file = "f.txt";
  const auto run = parse::parse_nccl_tests_text(read("fabcheck_sweep_2rank_3coll_2dtype.txt"));
  EXPECT_EQ(run.format, "fabcheck-sweep-text");
  report::add_import(doc, run, opts);
  std::vector<std::string> got;
  for (const auto& s : doc.json()["sweeps"]) {
    got.push_back(s["collective"].get<std::string>() + "/" + s["dtype"].get<std::string>());
  }
  EXPECT_EQ(got, (std::vector<std::string>{"allreduce/float", "allreduce/int32", "allgather/float",
                                           "allgather/int32", "broadcast/float", "broadcast/int32"}));
  EXPECT_EQ(doc.json()["sweeps"][4]["root"], 0);
  EXPECT_TRUE(doc.json()["sweeps"][2]["redop"].is_null());
  EXPECT_EQ(doc.json()["topology"]["backend"], "mpi");
}

TEST(ParseNcclTests, CputimeExponentWrongAndWideColumns) {
  // -C (cputime header), a %g exponent in #wrong, a busBw >= 1000 that widens its column, %7.1e time, and a
  // "Reducing maxBytes" note; 2 ranks of an allreduce (factor 1).
  const std::string text =
      "# Collective test starting: all_reduce_perf\n"
      "# Using devices\n"
      "#  Rank  0 Group  0 Pid   1 on         n1 device  0 [0000:1b:00] GPU\n"
      "#  Rank  1 Group  0 Pid   2 on         n2 device  0 [0000:1b:00] GPU\n"
      "#\n# Reducing maxBytes to 4294967296 due to memory limitation\n"
      "#       size         count      type   redop    root  cputime   algbw   busbw  #wrong  cputime   "
      "algbw   "
      "busbw  #wrong\n"
      "  4294967296    1073741824     float     sum      -1  4294.97  1000.0  1000.0  1.23457e+06  4.3e+03  "
      "998.87  "
      "998.87       0\n"
      "# Out of bounds values : 1 FAILED\n# Avg bus bandwidth    : 999.435\n";
  const auto run = parse::parse_nccl_tests_text(text);
  ASSERT_EQ(run.tables.size(), 1u);
  ASSERT_EQ(run.tables[0].rows.size(), 1u);
  EXPECT_EQ(run.tables[0].layout, "2.17.3+cputime");
  const auto& r = run.tables[0].rows[0];
  EXPECT_DOUBLE_EQ(*r.out_of_place->wrong, 1.23457e+06);
  EXPECT_DOUBLE_EQ(r.in_place.time_us.value, 4300);
  EXPECT_DOUBLE_EQ(r.in_place.time_us.half_ulp, 50);
  ASSERT_EQ(run.notes.size(), 1u);
  report::ImportSummary sum;
  const auto doc = import_text(text, &sum);
  EXPECT_EQ(sum.mismatches, 0u);
  EXPECT_TRUE(codes_rnti(doc.json()).contains("WRONG_DATA"));
}

TEST(ParseNcclTests, PrintedPrecision) {
  const auto run = parse::parse_nccl_tests_text(read("allreduce_16rank_a100_2node_rdma_v2.13.txt"));
  const auto& last = run.tables[0].rows.back();
  EXPECT_DOUBLE_EQ(last.out_of_place->time_us.value, 67689);
  EXPECT_DOUBLE_EQ(last.out_of_place->time_us.half_ulp, 0.5);
  EXPECT_DOUBLE_EQ(last.out_of_place->busbw_gbps.half_ulp, 0.005);
  ASSERT_EQ(run.devices.size(), 16u);
  EXPECT_EQ(run.devices[15].host, "node02");
  EXPECT_EQ(run.devices[15].bus, "0xda");
  EXPECT_EQ(run.devices[15].name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(run.iters, 20);
  EXPECT_EQ(run.max_bytes, 8589934592ll);
  EXPECT_EQ(run.step_factor, 2);
  EXPECT_GE(run.other_lines, 3u);  // kubectl and ssh noise
}

}  // namespace

TEST(Import, AvgBusBandwidthIsTheFilesOwnPrintedValue) {
  // The footer `# Avg bus bandwidth : 66.4834` is stored exactly as printed; the mean of the rounded rows
  // sits beside it under its own name.
  const auto doc = import_text(read("allreduce_16rank_a100_2node_rdma_v2.13.txt"));
  const auto& s = doc.json()["sweeps"].at(0);
  const auto run = parse::parse_nccl_tests_text(read("allreduce_16rank_a100_2node_rdma_v2.13.txt"));
  ASSERT_TRUE(run.tables.at(0).avg_busbw_gbps.has_value());
  EXPECT_EQ(s["avg_busbw_gbps"].get<double>(), run.tables[0].avg_busbw_gbps->value);
  EXPECT_EQ(s["avg_busbw_source"], "file");
  EXPECT_EQ(s["imported"]["file_avg_busbw_gbps"].get<double>(), run.tables[0].avg_busbw_gbps->value);
  double sum = 0;
  std::size_t n = 0;
  for (const auto& p : s["points"]) {  // one point per printed block (out-of-place and in-place)
    sum += p["busbw_gbps"].get<double>();
    ++n;
  }
  ASSERT_GT(n, 0u);
  EXPECT_DOUBLE_EQ(s["avg_busbw_recomputed_gbps"].get<double>(), sum / static_cast<double>(n));
}

TEST(Import, RowsThatCannotBeReadAreCountedInAFinding) {
  // A row with nan, or a negative size, is not imported — and the report says so, with the count
  // and the first line.
  std::string text = read("allreduce_16rank_a100_2node_rdma_v2.13.txt");
  const auto at = text.find("126.90  237.94");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 14, "126.90     nan");
  const auto row = text.rfind('\n', at) + 1;
  const std::size_t before = parse::parse_nccl_tests_text(read("allreduce_16rank_a100_2node_rdma_v2.13.txt"))
                                 .tables.at(0)
                                 .rows.size();
  const auto run = parse::parse_nccl_tests_text(text);
  EXPECT_EQ(run.tables.at(0).rows.size(), before - 1);
  EXPECT_EQ(run.tables.at(0).rejected_rows, 1u);
  const auto doc = import_text(text);
  const auto& f = doc.json()["findings"];
  const auto it =
      std::find_if(f.begin(), f.end(), [](const json& x) { return x["code"] == "IMPORT_ROWS_DROPPED"; });
  ASSERT_NE(it, f.end());
  EXPECT_EQ((*it)["severity"], "warn");
  EXPECT_EQ((*it)["evidence"]["dropped_rows"], 1);
  EXPECT_NE((*it)["evidence"]["first"]["text"].get<std::string>().find("nan"), std::string::npos);
  EXPECT_EQ((*it)["evidence"]["first"]["text"].get<std::string>().rfind("8589934592", 0),
            0u);  // the 8 GiB row
  EXPECT_EQ((*it)["evidence"]["first"]["line"].get<std::size_t>(),
            static_cast<std::size_t>(
                std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(row), '\n')) +
                1);
}

TEST(Import, JsonNanRowIsDroppedAndCountedNotRefused) {
  // nccl-tests -J writes a NaN as the string "nan": the file it wrote (results[7].in_place.alg_bw) imports,
  // its seven other rows kept, the eighth counted in IMPORT_ROWS_DROPPED; any other non-number stays an
  // error.
  const std::string text = fabcheck::testing_fixtures::read_test_data("nccl-tests-json/allreduce_plain.json");
  const auto run = parse::parse_nccl_tests_json(text, "allreduce_plain.json");
  ASSERT_EQ(run.tables.size(), 1u);
  EXPECT_EQ(run.tables[0].rows.size(), 7u);
  EXPECT_EQ(run.tables[0].rejected_rows, 1u);
  EXPECT_EQ(run.tables[0].first_rejected, "results[7].in_place.alg_bw \"nan\"");
  report::Document doc;
  report::ImportOptions opts;
  opts.file = "allreduce_plain.json";
  report::add_import(doc, run, opts);
  const auto& f = doc.json()["findings"];
  const auto it =
      std::find_if(f.begin(), f.end(), [](const json& x) { return x["code"] == "IMPORT_ROWS_DROPPED"; });
  ASSERT_NE(it, f.end());
  EXPECT_NE((*it)["message"].get<std::string>().find("first: results[7].in_place.alg_bw"), std::string::npos);
  EXPECT_THROW(parse::parse_nccl_tests_json(
                   R"({"results": [{"size": 8, "count": 2, "in_place": {"time": 1, "alg_bw": "fast",
                       "bus_bw": 1}}]})",
                   "s.json"),
               UsageError);
}
