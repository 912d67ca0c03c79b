#pragma once
/// @file One reader for every input fabcheck reads (reports, configs, tables, NCCL logs, workloads, and the
/// sysfs/proc/etc attributes of the inventory): never blocks on a FIFO nobody writes, never reads past a cap
/// (also a device or a pipe that never ends), and never lets a byte that is not UTF-8 reach a JSON writer.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace fabcheck::core {

/// The most one sysfs/procfs/etc attribute may hold. The kernel's attributes hold a page (4 KiB) and
/// /proc/cpuinfo about 1.5 KiB per CPU; anything larger is not the attribute it claims to be.
inline constexpr std::size_t kAttributeCapBytes = std::size_t{4} << 20;

/// Calls `chunk` with the bytes of `path` in file order, in pieces of at most 1 MiB. The file is opened
/// without blocking (a FIFO nobody writes to reads as empty instead of hanging); a pipe that is being
/// written is read to its end, within the cap.
/// @param origin how errors name the input ("report r.json", "--nccl-log x.log").
/// @param kind   what the caller expects, used in the fixes ("report file", "NCCL_DEBUG=INFO log file").
/// @throws UsageError "<origin>: <problem> (<fix>)" when the file is missing, a directory, a device (a
/// character or
///         block device: /dev/zero never ends), unreadable, a read fails, or it holds more than `cap_bytes`.
void read_input_chunks(const std::string& path, std::string_view origin, std::string_view kind,
                       std::uint64_t cap_bytes, const std::function<void(std::string_view)>& chunk);

/// The whole of `path` (read_input_chunks), with `reserve_extra` bytes of capacity spare past a regular
/// file's size (the JSON parser's padding, so that a report is parsed where it was read).
std::string read_input_file(const std::string& path, std::string_view origin, std::string_view kind,
                            std::uint64_t cap_bytes, std::size_t reserve_extra = 0);

/// One attribute of a sysfs/procfs/etc tree: nullopt when it is missing or unreadable, when it is not a
/// regular file (a FIFO, a device node or a socket planted in a recorded tree), or when it holds more than
/// `cap_bytes`. The bytes as read (a text attribute goes through valid_utf8 before it is kept).
std::optional<std::string> read_attribute(const std::string& path,
                                          std::size_t cap_bytes = kAttributeCapBytes);

/// `s` with every byte that does not belong to a well-formed UTF-8 sequence replaced by U+FFFD, the
/// replacement character (Unicode 15, §3.9 "U+FFFD Substitution of Maximal Subparts", one per byte here).
std::string valid_utf8(std::string_view s);

}  // namespace fabcheck::core
