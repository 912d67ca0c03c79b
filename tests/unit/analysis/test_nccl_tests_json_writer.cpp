// `fabcheck sweep -J`: the nccl-tests JSON writer against files written by nccl-tests' own writer
// (tests/data/nccl-tests-json/, made by its src/util.cu v2.19.6: README.md there). The sweep results below
// carry the numbers the harness fed that writer, so the files must come out byte for byte (env aside:
// fabcheck appends its two entries); every key, its order, its JSON type and its quirks (string booleans,
// "%6i" root, %lf doubles, "nan", null nwrong, [""] errors) are compared field by field; and the importer
// reads the writer's output back with every row equal to the result that produced it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "../support/test_data.hpp"
#include "fabcheck/parse/nccl_tests.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/nccl_tests_import.hpp"
#include "fabcheck/report/nccl_tests_json_writer.hpp"

namespace core = fabcheck::core;
namespace model = fabcheck::model;
namespace parse = fabcheck::parse;
namespace report = fabcheck::report;
using ojson = nlohmann::ordered_json;

namespace {

std::string read_rntjw(const std::string& name) {
  return fabcheck::testing_fixtures::read_test_data("nccl-tests-json/" + name);
}

/// The harness's numbers (tests/data/nccl-tests-json/harness/layout_harness.cc), as a fabcheck result of 2
/// ranks: allreduce float sum, iters 5, warmup 1; 256 B out-of-place has 3 wrong elements, 64 B in-place is
/// unchecked, 1024 B in-place algBw is NaN (unless `with_nan` is false: the importer refuses a "nan"); -C
/// runs (cputime) check nothing.
model::SweepResult harness_result(const std::string& mode, const ojson& ref, bool with_nan = true) {
  model::SweepResult r;
  auto& o = r.options;
  o.min_bytes = 8;
  o.max_bytes = 1024;
  o.iters = 5;
  o.warmup_iters = 1;
  const bool cputime = mode == "cputime";
  o.step_factor = cputime ? 1 : 2;
  o.step_bytes = 512;
  o.check = cputime ? 0 : 1;
  r.topology.nranks = 2;
  r.topology.nccl_version = "NCCL 2.28.3";
  for (int rank = 0; rank < 2; ++rank) {
    model::RankDevice d;
    d.rank = rank;
    d.pid = ref["config"]["devices"][rank]["pid"].get<int>();
    d.host = "node01";
    d.device = rank;
    d.label = rank == 0 ? "[0000:1b:00] NVIDIA H100 80GB HBM3" : "[0000:1c:00] NVIDIA H100 80GB HBM3";
    r.devices.push_back(d);
  }
  model::SweepBlock b;
  b.redop = core::RedOp::kSum;
  b.nranks = 2;
  for (std::uint64_t size = 8; size <= 1024; size = cputime ? size + 512 : size * 2) {
    model::SweepPoint p;
    p.size_bytes = size;
    p.count = size / 4;
    for (int in_place = 0; in_place < 2; ++in_place) {
      auto& pr = in_place ? p.in_place : p.out_of_place;
      const double t = 10.0 + static_cast<double>(size) / 1000.0 + (in_place ? 0.25 : 0.0) + 1.0 / 3.0;
      const double alg = static_cast<double>(size) / 1.0E9 / (t * 1e-6);
      pr.time_us = t;
      pr.algbw_gbps = with_nan && size == 1024 && in_place ? NAN : alg;
      pr.busbw_gbps = alg * 2.0 * (2 - 1) / 2;
      if (!cputime && !(size == 64 && in_place)) pr.wrong = size == 256 && !in_place ? 3 : 0;
      if (mode == "per_iter") {
        model::PerIterStats s;
        for (int i = 0; i < 5; ++i) s.samples_us.push_back(t + (i == 0 ? 7.0 : 0.5 * i));
        s.samples = 5;
        pr.per_iter = s;
      }
    }
    b.points.push_back(p);
  }
  r.blocks.push_back(b);
  return r;
}

report::NcclTestsJsonRun harness_run(const std::string& mode, const ojson& ref) {
  report::NcclTestsJsonRun run;
  for (const auto& a : ref["args"]) run.args.push_back(a.get<std::string>());
  for (const auto& e : ref["env"]) run.env.push_back(e.get<std::string>());
  run.start_time = ref["start_time"];
  run.end_time = ref["end_time"];
  run.fabcheck_version = "9.9.9";
  run.report_cputime = mode == "cputime";
  run.per_iter_timing = mode == "per_iter";
  run.per_iter_skip = mode == "per_iter" ? 1 : 0;
  return run;
}

/// The reference text with fabcheck's two env entries appended (the only bytes fabcheck adds).
std::string with_fabcheck_env(std::string text) {
  const auto env = text.find("\"env\":[");
  const auto end = text.find("],\"nccl_version\"", env);
  EXPECT_NE(end, std::string::npos);
  text.insert(end, ",\"FABCHECK_VERSION=9.9.9\",\"FABCHECK_COLLECTIVE=allreduce\"");
  return text;
}

// The JSON type of `v` as the layout comparison names it: nlohmann's type name, numbers split into integer
// and float.
std::string kind(const ojson& v) {
  if (v.is_number_integer()) return "integer";
  return v.is_number_float() ? "float" : v.type_name();
}

/// Same keys in the same order, same JSON types, same strings; numbers within `tol`. Keys named in `skip`
/// are left out on both sides. Returns the number of leaves compared.
std::size_t same_layout(const ojson& ref, const ojson& got, const std::string& at, double tol,
                        const std::vector<std::string>& skip = {}) {
  EXPECT_EQ(kind(ref), kind(got)) << at;
  if (kind(ref) != kind(got)) return 0;
  std::size_t n = 0;
  if (ref.is_object()) {
    std::vector<std::string> rk, gk;
    for (const auto& [k, v] : ref.items())
      if (std::find(skip.begin(), skip.end(), k) == skip.end()) rk.push_back(k);
    for (const auto& [k, v] : got.items())
      if (std::find(skip.begin(), skip.end(), k) == skip.end()) gk.push_back(k);
    EXPECT_EQ(rk, gk) << at;
    for (const auto& k : rk)
      if (got.contains(k)) n += same_layout(ref[k], got[k], at + "/" + k, tol, skip);
  } else if (ref.is_array()) {
    EXPECT_EQ(ref.size(), got.size()) << at;
    for (std::size_t i = 0; i < std::min(ref.size(), got.size()); ++i)
      n += same_layout(ref[i], got[i], at + "/" + std::to_string(i), tol, skip);
  } else if (ref.is_number()) {
    EXPECT_NEAR(ref.get<double>(), got.get<double>(), tol) << at;
    ++n;
  } else {
    EXPECT_EQ(ref, got) << at;
    ++n;
  }
  return n;
}

}  // namespace

// The plain and -C files come out byte for byte as nccl-tests' writer printed them for the same numbers.
TEST(NcclTestsJsonWriter, ByteForByteWithNcclTestsWriter) {
  for (const std::string mode : {"plain", "cputime"}) {
    const std::string text = read_rntjw("allreduce_" + mode + ".json");
    const auto ref = ojson::parse(text);
    const auto got = report::nccl_tests_json(harness_result(mode, ref), harness_run(mode, ref));
    EXPECT_EQ(got, with_fabcheck_env(text)) << mode;
  }
}

// Field by field against every reference file: keys, order, types, quirks. The -I file's summaries are
// computed by fabcheck from its own samples (in µs, nccl-tests in seconds: last-digit differences allowed),
// and fabcheck writes no per_process_max_times_us (its span is already the max over ranks).
TEST(NcclTestsJsonWriter, EveryFieldMatchesTheReferenceLayout) {
  for (const std::string mode : {"plain", "per_iter", "cputime"}) {
    const auto ref = ojson::parse(read_rntjw("allreduce_" + mode + ".json"));
    const auto got = ojson::parse(report::nccl_tests_json(harness_result(mode, ref), harness_run(mode, ref)));
    const std::size_t leaves = same_layout(ref, got, mode, 2e-6, {"env", "per_process_max_times_us"});
    EXPECT_GT(leaves, 60u) << mode;  // 2 rows in the -C file, 8 in the others
    ASSERT_TRUE(got["env"].is_array());
    for (const auto& e : got["env"]) EXPECT_TRUE(e.is_string());
    // The quirks, spelled out.
    EXPECT_EQ(got["version"], 3);
    EXPECT_EQ(got["nccl_version"], 22803);
    EXPECT_EQ(got["config"]["blocking_collectives"], "false");
    EXPECT_EQ(got["config"]["per_iter_timing"], mode == "per_iter" ? "true" : "false");
    EXPECT_EQ(got["results"][0]["root"], "    -1");
    EXPECT_EQ(got["errors"], ojson::array({""}));
    EXPECT_EQ(got["average_bus_bandwidth"]["okay"], "unchecked");
    if (mode == "cputime") {
      EXPECT_TRUE(got["results"][0]["out_of_place"].contains("cpu_time"));
      EXPECT_TRUE(got["results"][0]["out_of_place"]["nwrong"].is_null());
      EXPECT_EQ(got["config"]["step_bytes"], 512);
    } else {
      EXPECT_EQ(got["results"][3]["in_place"]["nwrong"], nullptr);  // 64 B in-place: unchecked
      EXPECT_EQ(got["results"][5]["out_of_place"]["nwrong"], 3.0);  // 256 B out-of-place: 3 wrong
      EXPECT_EQ(got["results"][7]["in_place"]["alg_bw"], "nan");
      EXPECT_EQ(got["out_of_bounds"]["count"], 1);
      EXPECT_EQ(got["out_of_bounds"]["okay"], "false");
    }
  }
}

// The importer reads the writer's output back: every row equals the result that produced it (at %lf's
// precision), both placements, and the collective comes from fabcheck's env entry.
TEST(NcclTestsJsonWriter, ImportReadsEveryRowBack) {
  for (const std::string mode : {"plain", "per_iter", "cputime"}) {
    const auto ref = ojson::parse(read_rntjw("allreduce_" + mode + ".json"));
    const auto r = harness_result(mode, ref, false);
    const auto text = report::nccl_tests_json(r, harness_run(mode, ref));
    const auto run = parse::parse_nccl_tests_json(text, "x.json");
    ASSERT_EQ(run.tables.size(), 1u);
    EXPECT_EQ(run.tables[0].program, "all_reduce_perf");
    const auto& rows = run.tables[0].rows;
    ASSERT_EQ(rows.size(), r.blocks[0].points.size()) << mode;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& p = r.blocks[0].points[i];
      EXPECT_EQ(rows[i].size_bytes, p.size_bytes);
      EXPECT_EQ(rows[i].count, p.count);
      EXPECT_EQ(rows[i].dtype, "float");
      EXPECT_EQ(rows[i].redop, "sum");
      EXPECT_EQ(rows[i].root, -1);
      ASSERT_TRUE(rows[i].out_of_place.has_value());
      const std::pair<const parse::NcclTestsBlock*, const model::PlacementResult*> both[] = {
          {&*rows[i].out_of_place, &p.out_of_place}, {&rows[i].in_place, &p.in_place}};
      for (const auto& [got, want] : both) {
        EXPECT_NEAR(got->time_us.value, want->time_us, 5.0000001e-7);
        EXPECT_NEAR(got->algbw_gbps.value, want->algbw_gbps, 5.0000001e-7);
        EXPECT_NEAR(got->busbw_gbps.value, want->busbw_gbps, 5.0000001e-7);
        EXPECT_EQ(got->wrong.has_value(), want->wrong.has_value());
        if (want->wrong) {
          EXPECT_EQ(*got->wrong, static_cast<double>(*want->wrong));
        }
      }
    }
  }
  // The import as a report: the sweeps' points equal the result's, collective named by the file.
  const auto ref = ojson::parse(read_rntjw("allreduce_cputime.json"));
  const auto r = harness_result("cputime", ref, false);
  const auto run =
      parse::parse_nccl_tests_json(report::nccl_tests_json(r, harness_run("cputime", ref)), "x.json");
  report::Document doc({"fabcheck", "import", "x.json"});
  report::ImportOptions opts;
  opts.file = "x.json";
  const auto sum = report::add_import(doc, run, opts);
  EXPECT_EQ(sum.nranks, 2);
  ASSERT_EQ(sum.sweeps.size(), 1u);
  EXPECT_EQ(sum.sweeps[0].collective_source, "file");
  EXPECT_EQ(sum.mismatches, 0u);
  const auto& pts = doc.json()["sweeps"][0]["points"];
  ASSERT_EQ(pts.size(), 2 * r.blocks[0].points.size());
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const auto& p = r.blocks[0].points[i / 2];
    const auto& pr = i % 2 ? p.in_place : p.out_of_place;
    EXPECT_EQ(pts[i]["size_bytes"], p.size_bytes);
    EXPECT_EQ(pts[i]["placement"], i % 2 ? "in_place" : "out_of_place");
    EXPECT_NEAR(pts[i]["time_us"].get<double>(), pr.time_us, 5.0000001e-7);
    EXPECT_NEAR(pts[i]["busbw_gbps"].get<double>(), pr.busbw_gbps, 5.0000001e-7);
    EXPECT_TRUE(pts[i]["wrong"].is_null());
  }
}

// util.cu's sanitizeJson and jsonDouble, quirk by quirk.
TEST(NcclTestsJsonWriter, StringsAndDoublesAsUtilCuWritesThem) {
  EXPECT_EQ(report::nccl_tests_json_string("./build/x \"q\" a\\b\tc\nd"),
            "\".\\/build\\/x \\\"q\\\" a\\\\b\\tc\\nd\"");
  EXPECT_EQ(report::nccl_tests_json_string("ab\rcd"), "\"ab\"");         // ends at a control character
  EXPECT_EQ(report::nccl_tests_json_string("caf\xc3\xa9!"), "\"caf\"");  // and at a non-ASCII byte
  EXPECT_EQ(report::nccl_tests_json_string(std::string(5000, 'x')).size(), 2047u + 2u);
  EXPECT_EQ(report::nccl_tests_json_double(0.1), "0.100000");
  EXPECT_EQ(report::nccl_tests_json_double(NAN), "\"nan\"");
  EXPECT_EQ(report::nccl_tests_json_double(INFINITY), "\"inf\"");
  EXPECT_EQ(report::nccl_version_code(std::string("NCCL 2.28.3")), 22803);
  EXPECT_EQ(report::nccl_version_code(std::nullopt), 0);  // the MPI backend: common.cu:34's initial value
}

// Every env value through core::redact_value; inherited FABCHECK_* entries replaced, not repeated;
// one collective per file.
TEST(NcclTestsJsonWriter, EnvRedactedAndOneCollectivePerFile) {
  const auto ref = ojson::parse(read_rntjw("allreduce_plain.json"));
  auto r = harness_result("plain", ref);
  auto run = harness_run("plain", ref);
  run.env = {"GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "NCCL_IB_HCA=mlx5",
             "FABCHECK_VERSION=0.0.1", "PLAIN=Bearer abc.def"};
  const auto got = ojson::parse(report::nccl_tests_json(r, run));
  EXPECT_EQ(got["env"], ojson::array({"GITHUB_TOKEN=<redacted>", "NCCL_IB_HCA=mlx5", "PLAIN=<redacted>",
                                      "FABCHECK_VERSION=9.9.9", "FABCHECK_COLLECTIVE=allreduce"}));
  r.blocks.push_back(r.blocks[0]);
  r.blocks.back().collective = core::Collective::kAllGather;
  EXPECT_THROW(report::nccl_tests_json(r, run), std::invalid_argument);
}
