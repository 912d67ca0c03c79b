// libFuzzer target: the nccl-tests text reader and the importer on arbitrary bytes.
// Invariants besides "no crash / no sanitizer report": the parse does not depend on CRLF vs LF line ends,
// every row lies inside a table, an import either throws UsageError or yields a report the shared loader
// accepts, with one point per parsed placement block.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fabcheck/core/error.hpp"
#include "fabcheck/parse/nccl_tests.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/load.hpp"
#include "fabcheck/report/nccl_tests_import.hpp"

using namespace fabcheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const parse::NcclTestsRun run = parse::parse_nccl_tests_text(text);

  std::string crlf;
  crlf.reserve(size + size / 8);
  for (char c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  const parse::NcclTestsRun run2 = parse::parse_nccl_tests_text(crlf);
  std::size_t rows = 0, rows2 = 0, blocks = 0;
  for (const auto& t : run.tables) {
    rows += t.rows.size();
    for (const auto& r : t.rows) blocks += r.out_of_place ? 2 : 1;
  }
  for (const auto& t : run2.tables) rows2 += t.rows.size();
  // A lone '\r' before the '\n' is already stripped, so both parses must agree (unless the input itself had
  // '\r' characters that now sit next to the added ones).
  if (text.find('\r') == std::string_view::npos &&
      (rows != rows2 || run.tables.size() != run2.tables.size() || run.devices.size() != run2.devices.size()))
    __builtin_trap();
  if (run.lines > size + 1) __builtin_trap();

  report::Document doc;
  report::ImportOptions opts;
  opts.file = "fuzz";
  try {
    const auto sum = report::add_import(doc, run, opts);
    std::size_t points = 0;
    for (const auto& s : doc.json()["sweeps"]) points += s["points"].size();
    if (points != blocks || sum.nranks < 1) __builtin_trap();
    doc.finish("complete", 0, 0.0);
    const std::string js = doc.json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    report::parse_report_text(js, "fuzz");  // must not throw: an import is a valid report
  } catch (const UsageError&) {
  }
  return 0;
}
