#pragma once
// Reading the files of tests/data (FABCHECK_TEST_DATA, which tests/CMakeLists.txt defines) in the unit tests.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace fabcheck::testing_fixtures {

/// The bytes of the file at `path`; fails the test when it cannot be opened.
inline std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The bytes of tests/data/<rel>.
inline std::string read_test_data(const std::string& rel) {
  return read_text_file(std::string(FABCHECK_TEST_DATA) + "/" + rel);
}

}  // namespace fabcheck::testing_fixtures
