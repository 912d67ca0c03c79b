#pragma once
/// @file nccl-tests' time stamps: util.cu:54 TIME_STRING_FORMAT "%Y-%m-%d %H:%M:%S" in local time
/// (util.cu:302-308 formatNow), as its `-S` rows and its `-J` file's start_time/end_time print them.
#include <cstdint>
#include <string>

namespace fabcheck::core {

/// `unix_s` (seconds since 1970) as "%Y-%m-%d %H:%M:%S" in local time.
std::string local_time_text(std::int64_t unix_s);

}  // namespace fabcheck::core
