// Pure helpers of the NCCL backend (fabcheck/comm/nccl_support.hpp). Built in every configuration — hence not
// named nccl_*.cpp, which lib/comm/CMakeLists.txt keeps for the files that need nccl.h.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "fabcheck/comm/nccl_support.hpp"
#include "fabcheck/core/ascii.hpp"
#include "fabcheck/core/enum_table.hpp"

namespace fabcheck::comm::nccl {

namespace {

std::string one_line(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  // trim the spaces left by leading/trailing line breaks (NCCL's WARN texts start with one)
  const auto b = out.find_first_not_of(' ');
  if (b == std::string::npos) return {};
  const auto e = out.find_last_not_of(' ');
  return out.substr(b, e - b + 1);
}

std::vector<std::string> split_commas(std::string_view s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const auto comma = s.find(',', start);
    const auto item =
        s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

std::string result_name(int result) {
  static constexpr std::array<std::string_view, 8> kNames = {
      "ncclSuccess",         "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
      "ncclInvalidArgument", "ncclInvalidUsage",       "ncclRemoteError", "ncclInProgress"};
  const std::string_view known = core::enum_lookup(kNames, result, std::string_view());
  return known.empty() ? fmt::format("ncclResult({})", result) : std::string(known);
}

std::string log_hostname(std::string_view hostname) {
  std::string h(hostname.substr(0, hostname.find('.')));
  std::replace(h.begin(), h.end(), '%', '-');
  std::replace(h.begin(), h.end(), '/', '-');
  return h;
}

std::string expand_debug_file(std::string_view pattern, std::string_view hostname, long long pid) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 >= pattern.size()) {
      out += pattern[i];
      continue;
    }
    const char c = pattern[++i];
    if (c == '%') {
      out += '%';
    } else if (c == 'h') {
      out += log_hostname(hostname);
    } else if (c == 'p') {
      out += std::to_string(pid);
    } else {
      out += '%';
      out += c;
    }
  }
  return out;
}

LogCapture plan_log_capture(const EnvLookup& env, std::string_view dir, std::string_view hostname,
                            long long pid) {
  LogCapture cap;
  const auto level = env("NCCL_DEBUG");
  const std::string level_up = level ? core::ascii_upper(*level) : std::string();
  const auto user_file = env("NCCL_DEBUG_FILE");
  if (user_file && !user_file->empty()) {
    cap.user_file = true;
    cap.pattern = *user_file;
    cap.path = expand_debug_file(*user_file, hostname, pid);
    if (level_up != "INFO" && level_up != "TRACE") {
      cap.note = fmt::format(
          "NCCL_DEBUG_FILE is set by the user but NCCL_DEBUG is {}: NCCL writes no INFO lines there (set "
          "NCCL_DEBUG=INFO, or unset NCCL_DEBUG_FILE to let fabcheck capture the log)",
          level ? "\"" + *level + "\"" : std::string("unset"));
    }
    return cap;
  }
  cap.set_env.emplace_back("NCCL_DEBUG", level_up == "TRACE" ? *level : std::string("INFO"));
  std::string subsys(kDebugSubsys);
  if (const auto user = env("NCCL_DEBUG_SUBSYS"); user && !user->empty()) {
    const std::string up = core::ascii_upper(*user);
    const auto items = split_commas(up);
    if (up.front() == '^' || std::find(items.begin(), items.end(), "ALL") != items.end()) {
      subsys = *user;
    } else {
      subsys = *user;
      for (const auto& want : split_commas(kDebugSubsys)) {
        if (std::find(items.begin(), items.end(), want) == items.end()) subsys += "," + want;
      }
    }
  }
  cap.set_env.emplace_back("NCCL_DEBUG_SUBSYS", subsys);
  std::string d(dir.empty() ? std::string_view("/tmp") : dir);
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  cap.pattern = d + "/" + std::string(kDebugFileName);
  cap.set_env.emplace_back("NCCL_DEBUG_FILE", cap.pattern);
  cap.path = expand_debug_file(cap.pattern, hostname, pid);
  return cap;
}

std::string format_call_error(std::string_view host, int rank, int device, std::string_view call,
                              std::string_view error, std::string_view detail) {
  const std::string where = device >= 0 ? fmt::format("rank {} (host {}, GPU {})", rank, host, device)
                                        : fmt::format("rank {} (host {})", rank, host);
  std::string msg = fmt::format("nccl backend: {}: {} failed: {}", where, call, one_line(error));
  const std::string d = one_line(detail);
  if (!d.empty()) msg += ": " + d;
  return msg;
}

std::string no_device_message(int failing_ranks, int nranks, int first_rank, std::string_view first_host,
                              std::string_view reason) {
  return fmt::format(
      "--backend nccl: no usable CUDA device on {} of {} ranks (first: rank {} on host {}: {}); run on GPU "
      "nodes with one rank per GPU, or use --backend mpi",
      failing_ranks, nranks, first_rank, first_host, one_line(reason));
}

}  // namespace fabcheck::comm::nccl
