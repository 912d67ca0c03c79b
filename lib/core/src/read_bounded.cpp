#include "fabcheck/core/read_bounded.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fabcheck/core/error.hpp"
#include "fabcheck/core/input_limits.hpp"

namespace fabcheck::core {

namespace {

/// Closes its descriptor on every way out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

/// Reads `fd` to its end in pieces of at most `piece` bytes; false (errno set) on a read error. Stops with
/// `over` set once more than `cap` bytes have come.
bool read_all(int fd, std::uint64_t cap, bool& over, const std::function<void(std::string_view)>& chunk,
              std::size_t piece = std::size_t{1} << 20) {
  std::string buf(piece, '\0');
  std::uint64_t total = 0;
  while (true) {
    const ssize_t got = ::read(fd, buf.data(), buf.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return false;
    if (got == 0) return true;
    total += static_cast<std::uint64_t>(got);
    if (total > cap) {
      over = true;
      return true;
    }
    chunk(std::string_view(buf.data(), static_cast<std::size_t>(got)));
  }
}

/// Length of the well-formed UTF-8 sequence at s[i], 0 when the byte there does not start one
/// (Unicode 15 Table 3-7: no overlongs, no surrogates, nothing past U+10FFFF).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  auto in = [&](std::size_t k, unsigned lo, unsigned hi) {
    return i + k < s.size() && b(k) >= lo && b(k) <= hi;
  };
  if (c >= 0xC2 && c <= 0xDF) return in(1, 0x80, 0xBF) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return in(1, lo, hi) && in(2, 0x80, 0xBF) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return in(1, lo, hi) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

}  // namespace

void read_input_chunks(const std::string& path, std::string_view origin, std::string_view kind,
                       std::uint64_t cap_bytes, const std::function<void(std::string_view)>& chunk) {
  auto too_big = [&] {
    return UsageError(fmt::format("{}: larger than {}", origin, cap_text(cap_bytes, kind)));
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw UsageError(
        fmt::format("{}: cannot read: {} (give an existing {})", origin, std::strerror(errno), kind));
  if (S_ISDIR(st.st_mode)) throw UsageError(fmt::format("{}: is a directory (give a {})", origin, kind));
  // A device is never an input (/dev/zero would fill memory up to the cap): a file, or a pipe (`<(zcat …)`).
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
    throw UsageError(fmt::format("{}: is a device (give a {}, or a pipe that carries one)", origin, kind));
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > cap_bytes) throw too_big();
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0)
    throw UsageError(
        fmt::format("{}: cannot read: {} (check the file's permissions)", origin, std::strerror(errno)));
  // Blocking again once open: a pipe that is being written is read to its end (within the cap).
  if (const int flags = ::fcntl(f.fd, F_GETFL); flags >= 0) ::fcntl(f.fd, F_SETFL, flags & ~O_NONBLOCK);
  bool over = false;
  if (!read_all(f.fd, cap_bytes, over, chunk))
    throw UsageError(fmt::format("{}: read error: {} (check the file)", origin, std::strerror(errno)));
  if (over) throw too_big();
}

std::string read_input_file(const std::string& path, std::string_view origin, std::string_view kind,
                            std::uint64_t cap_bytes, std::size_t reserve_extra) {
  std::string out;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<std::uint64_t>(st.st_size) <= cap_bytes)
    out.reserve(static_cast<std::size_t>(st.st_size) + reserve_extra);
  read_input_chunks(path, origin, kind, cap_bytes, [&](std::string_view c) { out.append(c); });
  return out;
}

std::optional<std::string> read_attribute(const std::string& path, std::size_t cap_bytes) {
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (f.fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::string out;
  bool over = false;
  // A kernel attribute holds a page: small pieces, not a zeroed megabyte per attribute.
  if (!read_all(
          f.fd, cap_bytes, over, [&](std::string_view c) { out.append(c); }, 64 << 10) ||
      over)
    return std::nullopt;
  return out;
}

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    if (const std::size_t n = utf8_length(s, i); n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out.append("\xEF\xBF\xBD");  // U+FFFD
      ++i;
    }
  }
  return out;
}

}  // namespace fabcheck::core
