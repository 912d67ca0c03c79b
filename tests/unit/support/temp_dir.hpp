#pragma once
// A test fixture with a folder of its own under /tmp (made in SetUp, removed with everything in it in
// TearDown) and a writer of small files there.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace fabcheck::testing_fixtures {

class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fabcheck-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  /// dir_/name
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  /// Writes `text` to dir_/name; returns the path.
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }
  std::string dir_;
};

}  // namespace fabcheck::testing_fixtures
