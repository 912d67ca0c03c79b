#pragma once
/// @file A tiny PNG writer for the HTML report's raster heatmaps (a matrix of 2048 hosts is one
/// image, not four million SVG elements). Palette images only (colour type 3, 8 bits per pixel), the image
/// data in zlib "stored" blocks (no compression: the project links no zlib; a 512 × 512 image is 257 KiB),
/// CRC-32 per chunk and Adler-32 over the data as the PNG and zlib specifications require (RFC 2083, 1950,
/// 1951).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::report {

/// One palette entry.
struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
};

/// CRC-32 (ISO 3309, the PNG chunk checksum) of `bytes`.
std::uint32_t crc32(std::string_view bytes);
/// Adler-32 (RFC 1950) of `bytes`.
std::uint32_t adler32(std::string_view bytes);

/// The bytes of a PNG file of `width` × `height` pixels, each pixel an index into `palette` (row-major,
/// `pixels.size() == width * height`, every index < palette.size() ≤ 256).
/// @throws std::invalid_argument on a size mismatch, an empty or too long palette, an index out of range, or
///         a width or height of 0.
std::string encode_png_indexed(std::uint32_t width, std::uint32_t height, const std::vector<Rgb>& palette,
                               const std::vector<std::uint8_t>& pixels);

/// Standard base64 (RFC 4648, with padding) of `bytes`, for a `data:image/png;base64,` URI.
std::string base64(std::string_view bytes);

}  // namespace fabcheck::report
