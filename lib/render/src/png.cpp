// The PNG writer of the raster heatmaps (png.hpp): palette pixels, zlib stored blocks, CRC-32, Adler-32,
// base64.
#include "fabcheck/report/png.hpp"

#include <stdexcept>

namespace fabcheck::report {
namespace {

std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t n = 0; n < 256; ++n) {
    std::uint32_t c = n;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    t[n] = c;
  }
  return t;
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xffu);
}

/// One chunk: length, type, data, CRC-32 over type and data.
void chunk(std::string& out, std::string_view type, std::string_view data) {
  put_u32(out, static_cast<std::uint32_t>(data.size()));
  std::string body(type);
  body += data;
  out += body;
  put_u32(out, crc32(body));
}

/// A zlib stream (RFC 1950) of `raw` in stored deflate blocks (RFC 1951 §3.2.4: at most 65535 bytes each).
std::string zlib_stored(std::string_view raw) {
  std::string z = "\x78\x01";  // CM 8, CINFO 7; FCHECK makes 0x7801 a multiple of 31; no dictionary
  constexpr std::size_t kMaxBlock = 65535;
  std::size_t pos = 0;
  do {
    const std::size_t n = std::min(kMaxBlock, raw.size() - pos);
    const bool last = pos + n == raw.size();
    z += static_cast<char>(last ? 1 : 0);  // BFINAL, BTYPE 00 (stored)
    z += static_cast<char>(n & 0xffu);
    z += static_cast<char>((n >> 8) & 0xffu);
    z += static_cast<char>(~n & 0xffu);
    z += static_cast<char>((~n >> 8) & 0xffu);
    z.append(raw.substr(pos, n));
    pos += n;
  } while (pos < raw.size());
  put_u32(z, adler32(raw));
  return z;
}

}  // namespace

std::uint32_t crc32(std::string_view bytes) {
  static const std::array<std::uint32_t, 256> table = make_crc_table();
  std::uint32_t c = 0xffffffffu;
  for (char ch : bytes) c = table[(c ^ static_cast<std::uint8_t>(ch)) & 0xffu] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

std::uint32_t adler32(std::string_view bytes) {
  constexpr std::uint32_t kMod = 65521;
  std::uint32_t a = 1, b = 0;
  std::size_t i = 0;
  while (i < bytes.size()) {
    // 5552 bytes keep b below 2^32 before the modulo (zlib's NMAX).
    const std::size_t end = std::min(bytes.size(), i + 5552);
    for (; i < end; ++i) {
      a += static_cast<std::uint8_t>(bytes[i]);
      b += a;
    }
    a %= kMod;
    b %= kMod;
  }
  return (b << 16) | a;
}

std::string encode_png_indexed(std::uint32_t width, std::uint32_t height, const std::vector<Rgb>& palette,
                               const std::vector<std::uint8_t>& pixels) {
  if (width == 0 || height == 0) throw std::invalid_argument("png: width and height must be positive");
  if (palette.empty() || palette.size() > 256)
    throw std::invalid_argument("png: palette of 1 to 256 entries");
  if (pixels.size() != static_cast<std::size_t>(width) * height)
    throw std::invalid_argument("png: pixel count is not width x height");
  std::string raw;
  raw.reserve((static_cast<std::size_t>(width) + 1) * height);
  for (std::uint32_t y = 0; y < height; ++y) {
    raw += '\0';  // filter type 0 (none) for every scanline
    for (std::uint32_t x = 0; x < width; ++x) {
      const std::uint8_t p = pixels[static_cast<std::size_t>(y) * width + x];
      if (p >= palette.size()) throw std::invalid_argument("png: pixel index beyond the palette");
      raw += static_cast<char>(p);
    }
  }
  std::string out = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  put_u32(ihdr, width);
  put_u32(ihdr, height);
  ihdr += std::string("\x08\x03\x00\x00\x00", 5);  // 8 bits, palette, deflate, adaptive filters, no interlace
  chunk(out, "IHDR", ihdr);
  std::string plte;
  for (const Rgb& c : palette) {
    plte += static_cast<char>(c.r);
    plte += static_cast<char>(c.g);
    plte += static_cast<char>(c.b);
  }
  chunk(out, "PLTE", plte);
  chunk(out, "IDAT", zlib_stored(raw));
  chunk(out, "IEND", "");
  return out;
}

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v = (static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i])) << 16) |
                            (static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i + 1])) << 8) |
                            static_cast<std::uint8_t>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += kAlphabet[(v >> shift) & 63u];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    std::uint32_t v = static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i])) << 16;
    if (rest == 2) v |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[i + 1])) << 8;
    out += kAlphabet[(v >> 18) & 63u];
    out += kAlphabet[(v >> 12) & 63u];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63u] : '=';
    out += '=';
  }
  return out;
}

}  // namespace fabcheck::report
