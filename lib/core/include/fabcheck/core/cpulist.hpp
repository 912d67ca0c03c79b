#pragma once
/// @file The kernel's CPU list format, "0-11,24-35" (Linux Documentation/admin-guide/cgroup-v2.rst
/// "cpuset.cpus"; bitmap_parselist in lib/bitmap.c): comma-separated numbers and inclusive ranges, as
/// sysfs prints `local_cpulist` and `/sys/devices/system/node/node<N>/cpulist`.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::core {

/// The CPUs of a list, sorted and unique; nullopt when the text is not a CPU list (a range whose end is below
/// its start, a stray character). "" and a lone newline are the empty list. Strides ("0-31:2/4") are not
/// read.
std::optional<std::vector<int>> parse_cpulist(std::string_view text);

/// The list form of a set of CPUs (sorted or not): runs of consecutive CPUs become ranges.
std::string format_cpulist(std::vector<int> cpus);

}  // namespace fabcheck::core
