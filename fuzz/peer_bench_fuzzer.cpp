// libFuzzer target for one peer-benchmark reader, chosen at build time by FUZZ_FORMAT
// ("perftest-text", "perftest-json", "osu-text", "imb-text"), then the import.
// Invariants besides "no crash / no sanitizer report": the text readers give the same tables and rows for LF
// and CRLF line ends, every row points at a line of the input, and an import either throws UsageError or
// yields a report the shared loader accepts, with one latency entry or link/sweep point per parsed row.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fabcheck/core/error.hpp"
#include "fabcheck/parse/peer_bench.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/load.hpp"
#include "fabcheck/report/peer_import.hpp"

using namespace fabcheck;

namespace {

std::size_t rows_of(const parse::PeerRun& r) {
  std::size_t n = 0;
  for (const auto& t : r.tables) n += t.rows.size();
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string_view format = FUZZ_FORMAT;
  parse::PeerRun run;
  try {
    run = parse::parse_peer(text, format, "fuzz");
  } catch (const UsageError&) {
    if (format != "perftest-json") __builtin_trap();  // the text readers never throw
    return 0;
  }
  if (format != "perftest-json") {
    std::string crlf;
    crlf.reserve(size + size / 8);
    for (char c : text) {
      if (c == '\n') crlf += '\r';
      crlf += c;
    }
    const auto run2 = parse::parse_peer(crlf, format, "fuzz");
    if (text.find('\r') == std::string_view::npos &&
        (rows_of(run) != rows_of(run2) || run.tables.size() != run2.tables.size()))
      __builtin_trap();
    for (const auto& t : run.tables) {
      for (const auto& r : t.rows) {
        if (r.line == 0 || r.line > run.lines) __builtin_trap();
      }
    }
  }
  (void)parse::detect_peer_format(text);
  report::Document doc;
  try {
    report::add_peer_import(doc, {{"fuzz", run}}, {});
    std::size_t placed = 0;
    const auto& j = doc.json();
    if (j["latency"].is_array()) placed += j["latency"].size();
    if (j["pairs"].is_object())
      for (const auto& l : j["pairs"]["links"]) placed += l["points"].size();
    if (j["sweeps"].is_array())
      for (const auto& s : j["sweeps"]) placed += s["points"].size();
    if (placed != rows_of(run)) __builtin_trap();
    doc.finish("complete", 0, 0.0);
    const std::string js = doc.json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    report::parse_report_text(js, "fuzz");  // must not throw: an import is a valid report
  } catch (const UsageError&) {
  }
  return 0;
}
