// Which peer-benchmark reader fits a file, by the headers each tool prints (see each reader's sources);
// dispatch to it.
#include <fmt/format.h>

#include "fabcheck/core/error.hpp"
#include "fabcheck/parse/peer_bench.hpp"
#include "nccl_tests_util.hpp"

namespace fabcheck::parse {

std::string detect_peer_format(std::string_view text) {
  const auto head = text.substr(0, 1 << 20);
  const auto first = head.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && head[first] == '{' &&
      head.find("test_info") != std::string_view::npos && head.find("results") != std::string_view::npos) {
    return "perftest-json";
  }
  if (head.find("# OSU MPI") != std::string_view::npos ||
      head.find("# OSU One Sided") != std::string_view::npos)
    return "osu-text";
  if ((head.find("# Benchmarking ") != std::string_view::npos ||
       head.find("#- Benchmarking ") != std::string_view::npos) &&
      (head.find("#bytes #repetitions") != std::string_view::npos ||
       head.find("#repetitions") != std::string_view::npos)) {
    return "imb-text";
  }
  if (head.find("Intel(R) MPI Benchmarks") != std::string_view::npos) return "imb-text";
  const bool table =
      head.find("#bytes") != std::string_view::npos && (head.find("BW peak[") != std::string_view::npos ||
                                                        head.find("t_min[usec]") != std::string_view::npos ||
                                                        head.find("t_avg[usec]") != std::string_view::npos);
  const bool title =
      head.find(" BW Test") != std::string_view::npos || head.find(" Latency Test") != std::string_view::npos;
  if ((table && title) || head.find("Completion with error at ") != std::string_view::npos ||
      (title && head.find("Data ex. method") != std::string_view::npos)) {
    return "perftest-text";
  }
  return {};
}

PeerRun parse_peer(std::string_view text, std::string_view format, std::string_view origin) {
  if (format == "perftest-text") return parse_perftest_text(text);
  if (format == "perftest-json") return parse_perftest_json(text, origin);
  if (format == "osu-text") return parse_osu_text(text);
  if (format == "imb-text") return parse_imb_text(text);
  throw UsageError(fmt::format("{}: unknown peer format '{}'", origin, format));
}

}  // namespace fabcheck::parse
