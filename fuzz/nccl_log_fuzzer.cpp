// libFuzzer target: the NCCL debug-log reader and the transport verdict on arbitrary bytes.
// Invariants checked besides "no crash / no sanitizer report": the result does not depend on how the input is
// chunked, and every line lands in exactly one counter.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/transport.hpp"

using namespace fabcheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  parse::NcclLog whole = parse::parse_nccl_log(text, "fuzz");

  parse::NcclLogParser chunked("fuzz");
  std::size_t step = size == 0 ? 1 : static_cast<std::size_t>(data[0] % 23) + 1;
  for (std::size_t off = 0; off < size; off += step) chunked.feed(text.substr(off, step));
  parse::NcclLog split = chunked.finish();

  const auto& s = whole.stats;
  if (s.lines != split.stats.lines || s.nccl_lines != split.stats.nccl_lines ||
      whole.processes.size() != split.processes.size())
    __builtin_trap();
  if (s.lines != s.nccl_lines + s.message_only_lines + s.foreign_lines + s.blank_lines + s.skipped_overlong +
                     s.skipped_binary)
    __builtin_trap();

  report::TransportInput in;
  in.nccl_logs.push_back(std::move(whole));
  report::TransportResult r = report::analyze_transport(in);
  std::string text_out = report::render_transport(r);
  report::Document doc;
  report::add_transport(doc, r);
  std::string js = doc.json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text_out.empty() || js.empty()) __builtin_trap();
  return 0;
}
