#pragma once
// The NCCL message catalogue (private to lib/parse): turns one message (the text after `NCCL INFO `/`NCCL
// WARN `, or a prefix-less line) into facts of a process. Formats and version ranges: the
// NCCL releases that print them, cited form by form in nccl_log_messages.cpp.
#include <cstddef>
#include <string_view>

#include "fabcheck/parse/nccl_log.hpp"

namespace fabcheck::parse::detail {

/// Records the facts of `msg` in `proc`. `warn`: printed at WARN level (always recorded as an issue).
/// `strict`: the line had no NCCL envelope, so only unambiguous NCCL message forms are accepted.
/// @returns true when the message matched a known form.
bool handle_message(NcclProcessLog& proc, std::string_view msg, bool warn, std::size_t lineno, bool strict);

}  // namespace fabcheck::parse::detail
