// libFuzzer target: the nccl-tests -J JSON reader and the importer on arbitrary bytes. Invariants besides
// "no crash / no sanitizer report": the reader either throws UsageError or returns one table; an import
// either throws UsageError or yields a report the shared loader accepts; the loader itself never throws
// anything but UsageError on the same bytes.
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
  try {
    report::parse_report_text(text, "fuzz");
  } catch (const UsageError&) {
  }
  parse::NcclTestsRun run;
  try {
    run = parse::parse_nccl_tests_json(text, "fuzz");
  } catch (const UsageError&) {
    return 0;
  }
  if (run.tables.size() != 1) __builtin_trap();
  report::Document doc;
  report::ImportOptions opts;
  opts.file = "fuzz";
  try {
    report::add_import(doc, run, opts);
    doc.finish("complete", 0, 0.0);
    const std::string js = doc.json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    report::parse_report_text(js, "fuzz");
  } catch (const UsageError&) {
  }
  return 0;
}
