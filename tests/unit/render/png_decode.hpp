#pragma once
// Test helper: an independent decoder of what fabcheck's PNG writer produces (palette, 8 bits,
// filter 0, zlib stored blocks), with bitwise CRC-32 and plain Adler-32, and base64 decoding, so that tests
// can read the pixels back out of a page's data URI.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "fabcheck/report/png.hpp"

namespace png_test {

using fabcheck::report::Rgb;

inline std::uint32_t be32(const std::string& s, std::size_t at) {
  return (static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at])) << 24) |
         (static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at + 1])) << 16) |
         (static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at + 2])) << 8) |
         static_cast<std::uint8_t>(s[at + 3]);
}

/// CRC-32 bit by bit (no table): an implementation independent of the one under test.
inline std::uint32_t crc_bitwise(const std::string& s) {
  std::uint32_t c = 0xffffffffu;
  for (char ch : s) {
    c ^= static_cast<std::uint8_t>(ch);
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return ~c;
}

inline std::uint32_t adler_slow(const std::string& s) {
  std::uint64_t a = 1, b = 0;
  for (char ch : s) {
    a = (a + static_cast<std::uint8_t>(ch)) % 65521;
    b = (b + a) % 65521;
  }
  return static_cast<std::uint32_t>((b << 16) | a);
}

struct Decoded {
  std::uint32_t width = 0, height = 0;
  std::vector<Rgb> palette;
  std::vector<std::uint8_t> pixels;
  std::vector<std::string> chunks;
};

/// A decoder for what the writer may produce: palette, 8 bits, filter 0, zlib stored blocks.
inline Decoded decode(const std::string& png) {
  Decoded d;
  if (png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) throw std::runtime_error("signature");
  std::size_t at = 8;
  std::string idat;
  while (at < png.size()) {
    const std::uint32_t len = be32(png, at);
    const std::string type = png.substr(at + 4, 4);
    const std::string data = png.substr(at + 8, len);
    if (crc_bitwise(type + data) != be32(png, at + 8 + len)) throw std::runtime_error("crc of " + type);
    d.chunks.push_back(type);
    if (type == "IHDR") {
      d.width = be32(data, 0);
      d.height = be32(data, 4);
      if (data.substr(8) != std::string("\x08\x03\x00\x00\x00", 5)) throw std::runtime_error("ihdr");
    } else if (type == "PLTE") {
      for (std::size_t i = 0; i + 2 < data.size(); i += 3)
        d.palette.push_back({static_cast<std::uint8_t>(data[i]), static_cast<std::uint8_t>(data[i + 1]),
                             static_cast<std::uint8_t>(data[i + 2])});
    } else if (type == "IDAT") {
      idat += data;
    }
    at += 12 + len;
  }
  if ((static_cast<std::uint8_t>(idat[0]) * 256 + static_cast<std::uint8_t>(idat[1])) % 31 != 0)
    throw std::runtime_error("zlib header");
  std::string raw;
  std::size_t z = 2;
  while (true) {
    const auto head = static_cast<std::uint8_t>(idat[z]);
    if ((head >> 1) != 0) throw std::runtime_error("not a stored block");
    const std::size_t n =
        static_cast<std::uint8_t>(idat[z + 1]) | (static_cast<std::uint8_t>(idat[z + 2]) << 8);
    const std::size_t nn =
        static_cast<std::uint8_t>(idat[z + 3]) | (static_cast<std::uint8_t>(idat[z + 4]) << 8);
    if ((n ^ 0xffffu) != nn) throw std::runtime_error("LEN/NLEN");
    raw += idat.substr(z + 5, n);
    z += 5 + n;
    if (head & 1) break;
  }
  if (adler_slow(raw) != be32(idat, z)) throw std::runtime_error("adler32");
  for (std::uint32_t y = 0; y < d.height; ++y) {
    const std::size_t line = static_cast<std::size_t>(y) * (d.width + 1);
    if (raw[line] != 0) throw std::runtime_error("filter");
    for (std::uint32_t x = 0; x < d.width; ++x)
      d.pixels.push_back(static_cast<std::uint8_t>(raw[line + 1 + x]));
  }
  return d;
}

/// RFC 4648 base64 (with padding) back to bytes.
inline std::string unbase64(const std::string& s) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    const int v = val(c);
    if (v < 0) continue;
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xffu);
    }
  }
  return out;
}

}  // namespace png_test
