// The report loader's fast path: simdjson, part by part, builds exactly the document nlohmann's parser builds
// (same values, same number types), refuses what nlohmann refuses with nlohmann's message, and each reader's
// LoadOptions leave out only what that reader never reads (its output is the same as with the whole
// document). The gate reader's options, whose checks come from the suite config's validator:
// tests/unit/suite/test_gate_load_options.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "../../../lib/model/src/json_fast_parse.hpp"
#include "../support/test_data.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/report/compare.hpp"
#include "fabcheck/report/compare_render.hpp"
#include "fabcheck/report/gate.hpp"
#include "fabcheck/report/html.hpp"
#include "fabcheck/report/load.hpp"

using nlohmann::json;
namespace report = fabcheck::report;

namespace load_fast {
namespace {

using fabcheck::testing_fixtures::read_test_data;

// Same values and the same nlohmann types all the way down (operator== calls 1.0 and 1 equal); integers of
// either sign type are one class ("-0": nlohmann's signed 0, simdjson's 0 read as unsigned; alike in print).
void expect_same(const json& a, const json& b, const std::string& at = "") {
  if (a.is_number_integer() && b.is_number_integer()) {
    ASSERT_EQ(a.dump(), b.dump()) << at;
    return;
  }
  ASSERT_EQ(a.type(), b.type()) << at;
  if (a.is_object()) {
    ASSERT_EQ(a.size(), b.size()) << at;
    for (auto it = a.begin(); it != a.end(); ++it) {
      ASSERT_TRUE(b.contains(it.key())) << at << "/" << it.key();
      expect_same(*it, b[it.key()], at + "/" + it.key());
    }
  } else if (a.is_array()) {
    ASSERT_EQ(a.size(), b.size()) << at;
    for (std::size_t i = 0; i < a.size(); ++i) expect_same(a[i], b[i], at + "/" + std::to_string(i));
  } else {
    ASSERT_EQ(a.dump(), b.dump()) << at;
  }
}

report::LoadOptions split_every(report::LoadOptions o = {}) {
  o.split_bytes = 1;  // every object and array parsed member by member: the splitter is exercised everywhere
  return o;
}

std::string error_of(const std::string& text, const report::LoadOptions& o = {}) {
  try {
    report::parse_report_text(text, "report r.json", o);
  } catch (const fabcheck::UsageError& e) {
    return e.what();
  }
  return "";
}

const char* kReports[] = {"reports/vfabric-4x2.json", "reports/local-2ranks.json",
                          "reports/local-2ranks-counters.json", "reports/sections-failed-skipped.json"};

TEST(LoadFast, RealReportsLoadAsNlohmannParsesThem) {
  for (const char* rel : kReports) {
    const std::string text = read_test_data(rel);
    ASSERT_FALSE(text.empty()) << rel;
    const json want = json::parse(text);
    SCOPED_TRACE(rel);
    expect_same(report::parse_report_text(text, rel), want);
    expect_same(report::parse_report_text(text, rel, split_every()), want);
  }
}

TEST(LoadFast, NumbersStringsAndDuplicatesAsNlohmann) {
  const std::string text = R"({"schema_version": 1, "tool": {"name": "fabcheck"},
    "n": [0, -0, 1, -1, 18446744073709551615, -9223372036854775808, 9223372036854775808, 1.0, 1e5, -2.5e-3,
          123456789012345678901234567890, 0.1, 5e-324, 1.7976931348623157e308],
    "s": ["", "a\"b", "\\", "\u00e9\u4e2d", "tab\there", "\ud83d\ude00"], "d": {"k": 1, "k": 2},
    "e": {"esc\u0041ped": true, "": null}, "nested": [[[]], {}, [{"a": [1, {"b": []}]}]]})";
  const json want = json::parse(text);
  expect_same(report::parse_report_text(text, "t"), want);
  expect_same(report::parse_report_text(text, "t", split_every()), want);
  EXPECT_EQ(report::parse_report_text(text, "t", split_every())["d"]["k"], 2);  // the last duplicate wins
}

TEST(LoadFast, RefusedTextGetsNlohmannsMessage) {
  const std::string head = R"({"schema_version": 1, "tool": {"name": "fabcheck"}, )";
  for (const std::string& bad :
       {head + R"("a": [1, 2,]})", head + R"("a": 1e999})", head + R"("a": [1 2]})", head + R"("a": "x)",
        head + R"("a": tru})", head + R"("a": 1} x)", head + "\"a\": \"\x01\"}", head + "\"a\": \"\xff\"}",
        head + R"("a": {"b" 1}})", head + R"("a": [}})", head + R"("a": 1,})", std::string("[1]"),
        head + R"("a": 01})", head + R"(a: 1})"}) {
    SCOPED_TRACE(bad);
    const bool slow_refuses = !json::accept(bad);
    const std::string fast = error_of(bad), fast_split = error_of(bad, split_every());
    EXPECT_FALSE(fast.empty());
    EXPECT_EQ(fast, fast_split);
    if (slow_refuses) {
      EXPECT_NE(fast.find("JSON"), std::string::npos) << fast;
    }
  }
  // the messages are nlohmann's, with line and column
  EXPECT_EQ(
      error_of(head + R"("a": [1 2]})"),
      "report r.json: not valid JSON: parse error at line 1, column 61: syntax error while parsing array "
      "- unexpected number literal; expected ']' (give a report written by fabcheck --json)");
}

TEST(LoadFast, SkipLeavesOutOnlyThosePathsAndWildcardsMatchRails) {
  const std::string text = R"({"schema_version": 1, "tool": {"name": "fabcheck"},
    "pairs": {"schedule": [[["a", "b"]]], "bw_gbps": [[null, 1]], "rails": [{"schedule": 1, "x": 2}, {"x": 3}]},
    "other": {"schedule": 7}})";
  report::LoadOptions o;
  o.skip = {{"pairs", "schedule"}, {"pairs", "rails", "*", "schedule"}};
  for (const auto& opts : {o, split_every(o)}) {
    const json d = report::parse_report_text(text, "t", opts);
    EXPECT_FALSE(d["pairs"].contains("schedule"));
    EXPECT_TRUE(d["pairs"].contains("bw_gbps"));
    EXPECT_FALSE(d["pairs"]["rails"][0].contains("schedule"));
    EXPECT_EQ(d["pairs"]["rails"][0]["x"], 2);
    EXPECT_EQ(d["pairs"]["rails"][1]["x"], 3);
    EXPECT_EQ(d["other"]["schedule"], 7);
  }
  // the slow path (text simdjson refuses, nlohmann takes: none here) is not needed for skipping; a text both
  // refuse stays refused whatever is skipped
  const std::string bad_in_skipped =
      R"({"schema_version": 1, "tool": {"name": "fabcheck"}, "pairs": {"schedule": [1,]}})";
  EXPECT_NE(error_of(bad_in_skipped, o).find("not valid JSON"), std::string::npos)
      << error_of(bad_in_skipped, o);
}

TEST(LoadFast, DenseMatricesPackAndReadBackAsTheArrays) {
  const std::string text = R"({"schema_version": 1, "tool": {"name": "fabcheck"},
    "pairs": {"bw_gbps": [[null, 1.5, 2], [3, null], [4, 5, null]], "lat_p50_us": [["x", 1]], "hosts": ["a"]}})";
  report::LoadOptions o;
  o.dense = {{"pairs", "bw_gbps"}, {"pairs", "lat_p50_us"}};
  for (const auto& opts : {o, split_every(o)}) {
    const json d = report::parse_report_text(text, "t", opts);
    ASSERT_TRUE(d["pairs"]["bw_gbps"].is_binary());
    const auto packed = report::dense_matrix(d["pairs"]["bw_gbps"]);
    const auto plain = report::dense_matrix(json::parse(text)["pairs"]["bw_gbps"]);
    ASSERT_TRUE(packed && plain);
    EXPECT_EQ(packed->rows, 3u);
    EXPECT_EQ(packed->cols, 3u);
    ASSERT_EQ(packed->values.size(), plain->values.size());
    for (std::size_t k = 0; k < plain->values.size(); ++k) {
      if (std::isnan(plain->values[k])) {
        EXPECT_TRUE(std::isnan(packed->values[k])) << k;
      } else {
        EXPECT_EQ(packed->values[k], plain->values[k]) << k;
      }
    }
    EXPECT_EQ(packed->at(0, 1), 1.5);
    EXPECT_TRUE(std::isnan(packed->at(1, 2)));  // a short row
    // not a matrix of numbers: loaded as it is
    EXPECT_TRUE(d["pairs"]["lat_p50_us"].is_array());
    EXPECT_EQ(d["pairs"]["lat_p50_us"][0][0], "x");
  }
  EXPECT_FALSE(report::dense_matrix(json(nullptr)));
  EXPECT_FALSE(report::dense_matrix(json::object()));
}

// Each reader's options leave out only what it never reads: its output is the same as with the whole
// document.
TEST(LoadFast, HtmlIsTheSameWithoutWhatItsOptionsLeaveOut) {
  const std::string text = read_test_data("reports/vfabric-4x2.json");
  const json whole = report::parse_report_text(text, "r");
  for (const auto& opts : {report::html_load_options(), split_every(report::html_load_options())}) {
    const json part = report::parse_report_text(text, "r", opts);
    EXPECT_FALSE(part["pairs"].contains("schedule"));
    EXPECT_FALSE(part["pairs"].contains("lat_min_us"));
    EXPECT_EQ(report::render_html(part), report::render_html(whole));
  }
}

TEST(LoadFast, CompareIsTheSameWithoutWhatItsOptionsLeaveOut) {
  const std::string text = read_test_data("reports/vfabric-4x2.json");
  json changed = json::parse(text);
  changed["pairs"]["bw_gbps"][0][1] = changed["pairs"]["bw_gbps"][0][1].get<double>() * 0.5;
  changed["pairs"]["lat_p99_us"][1][2] = changed["pairs"]["lat_p99_us"][1][2].get<double>() * 3;
  const std::string text_b = changed.dump();
  const auto whole = report::compare_reports(json::parse(text), changed, {"A", "A"}, {"B", "B"});
  for (const auto& opts : {report::compare_load_options(), split_every(report::compare_load_options())}) {
    const json a = report::parse_report_text(text, "A", opts),
               b = report::parse_report_text(text_b, "B", opts);
    EXPECT_TRUE(a["pairs"]["bw_gbps"].is_binary());
    const auto part = report::compare_reports(a, b, {"A", "A"}, {"B", "B"});
    EXPECT_EQ(report::render_compare(part), report::render_compare(whole));
    ASSERT_FALSE(part.links.empty());
  }
}

}  // namespace
}  // namespace load_fast
namespace load_fast {
TEST(LoadFast, WildcardsAtTheTopAndUnderArrays) {
  const std::string text = R"({"b": [[[]], {}], "x": {"c": {"c": 1}, "k": 2}, "a": "\"}", "y": [{"c": 1}]})";
  report::LoadOptions o;
  o.skip = {{"a"}, {"b", "*"}, {"*", "c"}};
  const json want = json::parse(R"({"b": [], "x": {"k": 2}, "y": [{"c": 1}]})");
  for (std::size_t split : {std::size_t{4} << 20, std::size_t{1}, std::size_t{16}}) {
    o.split_bytes = split;
    std::string t = text;
    const auto got = report::detail::fast_parse(t, o, 64);
    ASSERT_TRUE(got.has_value()) << split;
    EXPECT_EQ(*got, want) << split << " " << got->dump();
  }
}
}  // namespace load_fast
