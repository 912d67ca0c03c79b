#pragma once
// Reading text the code under test wrote (or a test data file): its lines, how often a string occurs in it,
// whether it says each of several things.
#include <gtest/gtest.h>

#include <cstddef>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::testing_fixtures {

/// The lines of `text`, without their newlines.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

/// How many times `needle` occurs in `hay`, without overlaps.
inline std::size_t count_of(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

/// Fails the test, naming the part and showing `text`, for each of `parts` that `text` does not contain.
inline void expect_contains(const std::string& text, std::initializer_list<std::string_view> parts) {
  for (const auto part : parts)
    EXPECT_NE(text.find(part), std::string::npos) << "no \"" << part << "\" in " << text;
}

}  // namespace fabcheck::testing_fixtures
