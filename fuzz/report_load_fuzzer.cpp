// libFuzzer target: the report loader's fast path (simdjson, part by part; lib/model/src/json_fast_parse.cpp)
// against nlohmann's parser on the same bytes. Invariants besides "no crash / no sanitizer report": whatever
// the fast path returns, nlohmann accepts too and builds the same document (same values and number types),
// whole and split into parts of any size; with keys left out, it is that document without them;
// parse_report_text throws nothing but UsageError.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "../lib/model/src/json_fast_parse.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/report/load.hpp"

using nlohmann::json;
namespace report = fabcheck::report;

namespace {

// Integers of either sign type are one class: "-0" is nlohmann's signed 0 and simdjson's 0 (read as unsigned,
// as nlohmann reads "0"); they compare and print alike.
bool integer(const json& v) {
  return v.is_number_integer();
}

bool same(const json& a, const json& b) {
  if (integer(a) && integer(b)) return a == b && a.dump() == b.dump();
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it)
      if (!b.contains(it.key()) || !same(*it, b[it.key()])) return false;
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i])) return false;
    return true;
  }
  return a.dump() == b.dump();
}

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const bool accepted = json::accept(text);
  for (std::size_t split : {std::size_t{4} << 20, std::size_t{1}, std::size_t{16}}) {
    report::LoadOptions whole;
    whole.split_bytes = split;
    std::string t = text;
    const auto fast = report::detail::fast_parse(t, whole, 64);
    if (!fast) continue;
    check(accepted);
    check(same(*fast, json::parse(text)));
    // keys left out: the same document without them
    report::LoadOptions part = whole;
    part.skip = {{"a"}, {"b", "*"}, {"*", "c"}};
    std::string t2 = text;
    const auto fewer = report::detail::fast_parse(t2, part, 64);
    check(fewer.has_value());
    json want = *fast;
    want.erase("a");
    if (want.contains("b") && (want["b"].is_object() || want["b"].is_array()))
      want["b"] = want["b"].is_object() ? json::object() : json::array();
    for (auto& [k, v] : want.items())
      if (v.is_object()) v.erase("c");
    check(same(*fewer, want));
    // "d" packed: read back by dense_matrix as the arrays are (NaN where a cell is not a number)
    report::LoadOptions packed = whole;
    packed.dense = {{"d"}};
    std::string t3 = text;
    const auto dense = report::detail::fast_parse(t3, packed, 64);
    check(dense.has_value());
    if (fast->contains("d")) {
      const auto x = report::dense_matrix((*dense)["d"]), y = report::dense_matrix((*fast)["d"]);
      check(x.has_value() == y.has_value() || (*dense)["d"].is_array());
      if (x && y) {
        check(x->rows == y->rows && x->cols == y->cols);
        for (std::size_t k = 0; k < x->values.size(); ++k)
          check(x->values[k] == y->values[k] || (std::isnan(x->values[k]) && std::isnan(y->values[k])));
      }
    }
  }
  try {
    report::parse_report_text(text, "fuzz");
  } catch (const fabcheck::UsageError&) {
  }
  return 0;
}
