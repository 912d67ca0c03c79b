// A command's output files (report/sinks.hpp): checked before anything runs, written all or none, never
// through a name another process could have planted, with the mode of the file they replace.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "../support/temp_dir.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/report/sinks.hpp"

using fabcheck::UsageError;
using nlohmann::json;
namespace report = fabcheck::report;

namespace {

class Sinks : public fabcheck::testing_fixtures::TempDirTest {
 protected:
  static std::string read(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::vector<std::string> names() const {
    std::vector<std::string> v;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) v.push_back(e.path().filename().string());
    std::sort(v.begin(), v.end());
    return v;
  }
  static std::string error_of(const std::function<void()>& fn) {
    try {
      fn();
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  }
  static report::Sink text_sink(std::string flag, std::string p, std::string text) {
    return {std::move(flag), std::move(p), [text](const json&) { return text; }};
  }
};

TEST_F(Sinks, AnOutputThatIsAnInputIsRefusedBeforeAnythingIsWritten) {
  const std::string in = write("w.json", "{}");
  report::Sinks s;
  s.input("--workloads", in).json("--json", dir_ + "/./w.json");
  const std::string e = error_of([&] { s.check(); });
  EXPECT_NE(e.find("--json"), std::string::npos) << e;
  EXPECT_NE(e.find("is also the input --workloads"), std::string::npos) << e;
  EXPECT_EQ(read(in), "{}");
}

TEST_F(Sinks, TwoOutputsOnOneFileAreRefusedNamingBothFlags) {
  report::Sinks s;
  s.json("--json", path("o.json")).add({"-J/--output_file", path("o.json"), {}});
  const std::string e = error_of([&] { s.check(); });
  EXPECT_NE(e.find("-J/--output_file"), std::string::npos) << e;
  EXPECT_NE(e.find("also the output of --json"), std::string::npos) << e;
}

TEST_F(Sinks, OnlyAskedOutputsWithATextAreWritten) {
  report::Sinks s;
  s.json("--json", path("r.json"))
      .add(text_sink("--html", "", "<html>"))
      .add({"-J/--output_file", path("j.json"), {}});
  EXPECT_TRUE(s.any());
  s.check();
  s.write(json{{"schema_version", 1}});
  EXPECT_EQ(json::parse(read(path("r.json")))["schema_version"], 1);
  EXPECT_EQ(names(), std::vector<std::string>{"r.json"});  // -J is the command's own, nothing else left
  EXPECT_FALSE(report::Sinks().any());
}

TEST_F(Sinks, AFailureLeavesEveryTargetAsItWasAndNoTemporaryFile) {
  write("a.txt", "old a");
  std::filesystem::create_directory(path("sub"));
  report::Sinks s;
  s.add(text_sink("--a", path("a.txt"), "new a")).add(text_sink("--b", path("sub/b.txt"), "new b"));
  s.check();
  std::filesystem::remove(path("sub"));  // the second output's folder is gone when the run ends
  const std::string e = error_of([&] { s.write(json::object()); });
  EXPECT_NE(e.find("--b: cannot write"), std::string::npos) << e;
  EXPECT_EQ(read(path("a.txt")), "old a");
  EXPECT_EQ(names(), std::vector<std::string>{"a.txt"});
}

TEST_F(Sinks, ARewriteKeepsTheModeOfTheFileItReplaces) {
  const std::string p = write("r.json", "old");
  ASSERT_EQ(::chmod(p.c_str(), 0600), 0);
  report::write_text_atomic(p, "new", "--json");
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(read(p), "new");
}

TEST_F(Sinks, ASymlinkAtTheTargetIsRefusedAndItsTargetUntouched) {
  const std::string victim = write("victim", "keep");
  ASSERT_EQ(::symlink(victim.c_str(), path("r.json").c_str()), 0);
  const std::string e = error_of([&] { report::write_text_atomic(path("r.json"), "x", "--json"); });
  EXPECT_NE(e.find("symbolic link"), std::string::npos) << e;
  EXPECT_EQ(read(victim), "keep");
}

TEST_F(Sinks, APlantedFileUnderTheOldPredictableNameIsNeverWrittenThrough) {
  // The writer once used "<path>.tmp.<pid>": a symlink planted there redirected the report.
  const std::string victim = write("victim", "keep");
  const std::string planted = path("r.json.tmp." + std::to_string(::getpid()));
  ASSERT_EQ(::symlink(victim.c_str(), planted.c_str()), 0);
  report::write_text_atomic(path("r.json"), "report", "--json");
  EXPECT_EQ(read(path("r.json")), "report");
  EXPECT_EQ(read(victim), "keep");
}

TEST_F(Sinks, AFileSizeLimitIsAUsageErrorAndLeavesNothing) {
  // `ulimit -f`: without SIGXFSZ ignored the process would die here and leave its temporary file.
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit small = old;
  small.rlim_cur = 16;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string e =
      error_of([&] { report::write_text_atomic(path("big.json"), std::string(4096, 'x'), "--json"); });
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &old), 0);
  EXPECT_NE(e.find("--json: cannot write"), std::string::npos) << e;
  EXPECT_TRUE(names().empty());
}

TEST_F(Sinks, ANameOfTheLongestLengthIsWritten) {
  // 255 bytes is the longest name a Linux file system takes; its temporary name must still fit.
  const std::string long_name(255, 'r');
  report::write_text_atomic(path(long_name), "ok", "--json");
  EXPECT_EQ(read(path(long_name)), "ok");
  EXPECT_EQ(names().size(), 1u);
}

}  // namespace
