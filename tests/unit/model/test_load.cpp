// The shared report loader: every offline command reads report files through load_report, so a
// missing, truncated, foreign or too-new file gives the same one-line UsageError everywhere.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "../support/temp_dir.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/load.hpp"

using fabcheck::UsageError;
using nlohmann::json;
namespace report = fabcheck::report;

namespace {

class LoadReport : public fabcheck::testing_fixtures::TempDirTest {
 protected:
  // The message of the UsageError load_report throws ("" when it does not throw).
  static std::string error_of(const std::string& path, std::string_view what = "report") {
    try {
      report::load_report(path, what);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(LoadReport, ReadsWhatDocumentWrites) {
  report::Document doc({"fabcheck", "sweep"});
  doc.json()["sweeps"] = json::array({{{"collective", "allreduce"}}});
  const std::string p = dir_ + "/r.json";
  doc.write_atomic(p);
  const json back = report::load_report(p);
  EXPECT_EQ(back, doc.json());
}

TEST_F(LoadReport, MissingFileNamesFileAndFix) {
  const auto msg = error_of(dir_ + "/nope.json", "A");
  EXPECT_NE(msg.find("A " + dir_ + "/nope.json: cannot read"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST_F(LoadReport, DirectoryIsRefused) {
  EXPECT_NE(error_of(dir_).find("is a directory"), std::string::npos);
}

TEST_F(LoadReport, EmptyFile) {
  EXPECT_NE(error_of(write("e.json", "  \n")).find("empty file"), std::string::npos);
}

TEST_F(LoadReport, TruncatedJsonSaysTruncated) {
  report::Document doc;
  const std::string full = doc.json().dump(2);
  const auto msg = error_of(write("t.json", full.substr(0, full.size() / 2)));
  EXPECT_NE(msg.find("truncated JSON"), std::string::npos) << msg;
  EXPECT_NE(msg.find("t.json"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST_F(LoadReport, GarbageIsInvalidJson) {
  const auto msg = error_of(write("g.json", "{\"a\": 1,, }"));
  EXPECT_NE(msg.find("not valid JSON"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 1"), std::string::npos) << msg;
}

TEST_F(LoadReport, ValidJsonButNotAReport) {
  EXPECT_NE(error_of(write("a.json", "[1, 2]")).find("not a fabcheck report (top level is a array"),
            std::string::npos);
  EXPECT_NE(error_of(write("b.json", R"({"version": 3, "results": []})")).find("no schema_version"),
            std::string::npos);
  EXPECT_NE(error_of(write("c.json", R"({"schema_version": 1})")).find("no tool.name"), std::string::npos);
  EXPECT_NE(error_of(write("d.json", R"({"schema_version": "1", "tool": {"name": "fabcheck"}})"))
                .find("not an integer"),
            std::string::npos);
  EXPECT_NE(error_of(write("e.json", R"({"schema_version": 1, "tool": {"name": "other"}})")).find("import"),
            std::string::npos);
}

TEST_F(LoadReport, NewerSchemaVersionIsRefusedWithTheWriter) {
  json j = report::Document().json();
  j["schema_version"] = report::kSchemaVersion + 1;
  j["tool"]["version"] = "9.9.9";
  const auto msg = error_of(write("n.json", j.dump()));
  EXPECT_NE(msg.find("schema_version 2 is newer than this fabcheck reads (1)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fabcheck 9.9.9"), std::string::npos) << msg;
}

TEST_F(LoadReport, ParseReportTextChecksToo) {
  EXPECT_THROW(report::parse_report_text("{}", "x"), UsageError);
  const json ok = report::parse_report_text(report::Document().json().dump(), "x");
  EXPECT_EQ(ok["schema_version"], report::kSchemaVersion);
}

}  // namespace
