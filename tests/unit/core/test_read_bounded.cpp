#include "fabcheck/core/read_bounded.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>
#include <string>

#include "../support/temp_dir.hpp"
#include "fabcheck/core/error.hpp"

namespace core = fabcheck::core;
using fabcheck::UsageError;

namespace {

class ReadBounded : public fabcheck::testing_fixtures::TempDirTest {};

TEST(ValidUtf8, KeepsWellFormedAndReplacesEachBadByte) {
  EXPECT_EQ(core::valid_utf8("mlx5_0 16.35.2000"), "mlx5_0 16.35.2000");
  EXPECT_EQ(core::valid_utf8("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"), "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  EXPECT_EQ(core::valid_utf8("ab\xFF\xFE"
                             "cd"),
            "ab\xEF\xBF\xBD\xEF\xBF\xBD"
            "cd");
  EXPECT_EQ(core::valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong '/'
  EXPECT_EQ(core::valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(core::valid_utf8("x\xE2\x82"), "x\xEF\xBF\xBD\xEF\xBF\xBD");                // cut at the end
  EXPECT_EQ(core::valid_utf8("\xF4\x90\x80\x80").substr(0, 3), "\xEF\xBF\xBD");         // past U+10FFFF
}

TEST_F(ReadBounded, AttributeRefusesFifoDeviceAndOversize) {
  EXPECT_EQ(core::read_attribute(write("fw_ver", "16.35\n")), std::optional<std::string>("16.35\n"));
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  EXPECT_EQ(core::read_attribute(path("fifo")), std::nullopt);  // returns at once, nobody writes it
  // a private /dev/zero made in this test's own folder: never read without end
  if (::mknod(path("zero").c_str(), S_IFCHR | 0600, ::makedev(1, 5)) == 0) {
    EXPECT_EQ(core::read_attribute(path("zero")), std::nullopt);
  }
  EXPECT_EQ(core::read_attribute(write("big", std::string(5000, 'x')), 4096), std::nullopt);
  EXPECT_EQ(core::read_attribute(path("missing")), std::nullopt);
}

TEST_F(ReadBounded, InputFileNamesTheFileAndTheCap) {
  EXPECT_EQ(core::read_input_file(write("a.json", "{}"), "report a.json", "report file", 1 << 20), "{}");
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  EXPECT_EQ(core::read_input_file(path("fifo"), "--nccl-log fifo", "log", 1 << 20), "");  // no hang
  try {
    core::read_input_file(write("big", std::string(3u << 20, 'x')), "--workloads big", "workloads JSON file",
                          1u << 20);
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "--workloads big: larger than the 1 MiB cap for a workloads JSON file", 0),
              0u)
        << e.what();
  }
  if (::mknod(path("zero").c_str(), S_IFCHR | 0600, ::makedev(1, 5)) == 0) {
    try {
      core::read_input_file(path("zero"), "z", "log", 1u << 20);
      ADD_FAILURE() << "no error";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("z: is a device"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(core::read_input_file(dir_, "d", "log", 1u << 20), UsageError);
  EXPECT_THROW(core::read_input_file(path("missing"), "m", "log", 1u << 20), UsageError);
}

}  // namespace
