// The PNG writer of the raster heatmaps: the bytes decode as a PNG (signature, IHDR, PLTE, IDAT of
// zlib stored blocks, IEND), every chunk's CRC-32 and the data's Adler-32 check out against independent
// bitwise implementations, and the pixels come back as written; base64 as RFC 4648's test vectors.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "fabcheck/report/png.hpp"
#include "png_decode.hpp"

namespace {

using fabcheck::report::Rgb;
using png_test::adler_slow;
using png_test::decode;
using png_test::Decoded;

TEST(Png, PixelsComeBackFromAValidFileAcrossSeveralStoredBlocks) {
  // 300 x 300 pixels = 90 300 bytes of scanlines: two stored blocks (65 535 at most each).
  const std::uint32_t w = 300, h = 300;
  std::vector<Rgb> palette = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}};
  std::vector<std::uint8_t> px(w * h);
  for (std::size_t i = 0; i < px.size(); ++i) px[i] = static_cast<std::uint8_t>((i * 7 + i / w) % 3);
  const std::string png = fabcheck::report::encode_png_indexed(w, h, palette, px);
  const Decoded d = decode(png);
  EXPECT_EQ(d.width, w);
  EXPECT_EQ(d.height, h);
  EXPECT_EQ(d.chunks, (std::vector<std::string>{"IHDR", "PLTE", "IDAT", "IEND"}));
  ASSERT_EQ(d.palette.size(), 3u);
  EXPECT_EQ(d.palette[2].b, 255);
  EXPECT_EQ(d.pixels, px);
  // Stored, uncompressed: the file is the scanlines plus a small overhead.
  EXPECT_LT(png.size(), (w + 1) * h + 200);
}

TEST(Png, ChecksumsMatchTheirSpecifications) {
  EXPECT_EQ(fabcheck::report::crc32("123456789"), 0xcbf43926u);  // the CRC-32 check value
  EXPECT_EQ(fabcheck::report::adler32("Wikipedia"), 0x11e60398u);
  const std::string big(100000, '\xff');  // past zlib's NMAX, where the sums must be reduced
  EXPECT_EQ(fabcheck::report::adler32(big), adler_slow(big));
}

TEST(Png, Base64AsRfc4648) {
  using fabcheck::report::base64;
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
}

TEST(Png, RefusesWhatIsNotAnImage) {
  using fabcheck::report::encode_png_indexed;
  EXPECT_THROW(encode_png_indexed(0, 1, {{}}, {}), std::invalid_argument);
  EXPECT_THROW(encode_png_indexed(2, 1, {{}}, {0}), std::invalid_argument);
  EXPECT_THROW(encode_png_indexed(1, 1, {{}}, {1}), std::invalid_argument);
  EXPECT_THROW(encode_png_indexed(1, 1, {}, {0}), std::invalid_argument);
}

}  // namespace
