// The pairs heatmaps at scale: up to 64 hosts one SVG cell per link, as before; above, one inline
// PNG per matrix (a pixel per link, or per block of hosts coloured by its worst link), no per-cell element,
// the worst links and a capped outlier table; the page of 1200 hosts stays small.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "../support/text.hpp"
#include "fabcheck/report/html.hpp"
#include "png_decode.hpp"

namespace {

using fabcheck::report::render_html;
using nlohmann::json;

using fabcheck::testing_fixtures::count_of;

std::string host_name(std::size_t i) {
  return "h" + std::to_string(i);
}

/// A pairs section of n hosts: bandwidth 10 GB/s, latency 5 us, except link slow_from -> slow_to at 2 GB/s
/// and `outliers` outlier entries (the first one that link).
json pairs_report_rhr(std::size_t n, std::size_t slow_from, std::size_t slow_to, std::size_t outliers = 1) {
  json hosts = json::array(), bw = json::array(), lat = json::array();
  for (std::size_t i = 0; i < n; ++i) {
    hosts.push_back(host_name(i));
    json b = json::array(), l = json::array();
    for (std::size_t j = 0; j < n; ++j) {
      b.push_back(i == j ? json(nullptr) : json(i == slow_from && j == slow_to ? 2.0 : 10.0));
      l.push_back(i == j ? json(nullptr) : json(5.0));
    }
    bw.push_back(b);
    lat.push_back(l);
  }
  json out = json::array();
  for (std::size_t k = 0; k < outliers; ++k) {
    out.push_back({{"kind", "bw"},
                   {"from", host_name(k == 0 ? slow_from : k % n)},
                   {"to", host_name(k == 0 ? slow_to : (k + 1) % n)},
                   {"value", 2.0},
                   {"median", 10.0},
                   {"z", k == 0 ? -50.0 : -4.0}});
  }
  return {{"schema_version", 1},
          {"pairs",
           {{"hosts", hosts},
            {"bw_gbps", bw},
            {"lat_p50_us", lat},
            {"bw_median_gbps", 10.0},
            {"lat_median_us", 5.0},
            {"outliers", out}}}};
}

/// The PNG of the figure `id` in the page, decoded.
png_test::Decoded image_of(const std::string& page, const std::string& id) {
  const std::size_t fig = page.find("id=\"" + id + "\"");
  const std::string marker = "src=\"data:image/png;base64,";
  const std::size_t at = page.find(marker, fig);
  if (fig == std::string::npos || at == std::string::npos) throw std::runtime_error("no image for " + id);
  const std::size_t start = at + marker.size();
  return png_test::decode(png_test::unbase64(page.substr(start, page.find('"', start) - start)));
}

TEST(ReportHtmlRaster, UpTo64HostsTheMatrixIsStillOneSvgCellPerLink) {
  const std::string page = render_html(pairs_report_rhr(64, 1, 2));
  EXPECT_EQ(count_of(page, "<rect class=\"cell"), 2u * 64 * 63);
  EXPECT_EQ(count_of(page, "heat-raster\""), 0u);
  EXPECT_EQ(count_of(page, "data-outlier=\"true\""), 1u);
}

TEST(ReportHtmlRaster, Above64HostsOneImagePerMatrixAndNoElementPerCell) {
  const std::size_t n = 65;
  const std::string page = render_html(pairs_report_rhr(n, 3, 40));
  EXPECT_EQ(count_of(page, "<rect class=\"cell"), 0u);
  EXPECT_EQ(count_of(page, "<img class=\"heat-raster\""), 2u);  // bandwidth and latency
  const auto bw = image_of(page, "pairs-bw");
  ASSERT_EQ(bw.width, n);  // one pixel per link below kRasterMaxSide hosts
  ASSERT_EQ(bw.height, n);
  const auto px = [&](std::size_t i, std::size_t j) { return bw.pixels[i * n + j]; };
  const std::uint8_t worst = px(3, 40), best = px(3, 41), self = px(5, 5);
  EXPECT_EQ(worst, 0);  // 0.2 x the median: the red end of the scale
  EXPECT_NE(best, worst);
  EXPECT_NE(self, best);
  // The colours are the SVG scale's: red at the worst end, green at the best.
  EXPECT_GT(bw.palette[worst].r, bw.palette[worst].g);
  EXPECT_GT(bw.palette[best].g, bw.palette[best].r);
  // Every other link is at the median: one colour.
  std::size_t at_best = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) at_best += i != j && px(i, j) == best;
  EXPECT_EQ(at_best, n * (n - 1) - 1);
  // The worst links: the slow one first.
  const std::size_t worst_table = page.find("class=\"worst-links\"");
  ASSERT_NE(worst_table, std::string::npos);
  EXPECT_NE(page.find("<td>h3</td><td>h40</td><td>2</td>", worst_table), std::string::npos);
}

TEST(ReportHtmlRaster, ManyHostsAreBlocksColouredByTheirWorstLinkAndThePageStaysSmall) {
  const std::size_t n = 1200;  // blocks of 3 x 3 hosts: 400 x 400 pixels
  const std::string page = render_html(pairs_report_rhr(n, 700, 13, 150));
  const auto bw = image_of(page, "pairs-bw");
  ASSERT_EQ(bw.width, 400u);
  const std::uint8_t slow = bw.pixels[(700 / 3) * 400 + 13 / 3];
  const std::uint8_t other = bw.pixels[(700 / 3) * 400 + 13 / 3 + 1];
  EXPECT_EQ(slow, 0);  // one slow link among the block's nine: the block shows it
  EXPECT_NE(other, slow);
  EXPECT_NE(page.find("data-block=\"3\""), std::string::npos);
  // The outlier table: the 100 most extreme of 150, the slow link (|z| 50) first.
  EXPECT_NE(page.find("The 100 most extreme of 150 outlier links"), std::string::npos);
  const std::size_t table = page.find("<table class=\"outliers\">");
  ASSERT_NE(table, std::string::npos);
  const std::size_t rows = count_of(page.substr(table, page.find("</table>", table) - table), "<tr>");
  EXPECT_EQ(rows, 1u + 100u);  // header + rows
  EXPECT_NE(page.find("<td>bw</td><td>h700</td><td>h13</td>", table), std::string::npos);
  // 1.44 million links, two matrices: well under a megabyte of page.
  EXPECT_LT(page.size(), 1'000'000u);
}

}  // namespace
