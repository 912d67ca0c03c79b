// compare per link: the pairs matrices are summarized, not one row per link: counts, the
// distribution of the per-link deltas, and exactly the links that changed by min_delta or more, matched by
// host name (another host order, a missing host), in the JSON, the console text and the HTML.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "fabcheck/report/compare.hpp"
#include "fabcheck/report/compare_render.hpp"

using namespace fabcheck::report;
using json = nlohmann::json;

namespace {

using Link = std::pair<std::string, std::string>;

std::string host(std::size_t i) {
  return "h" + std::to_string(i);
}

/// A pairs report of `names` (in that order): bandwidth 10 GB/s, latency 5 us, times factor(from, to).
template <typename F>
json pairs_report(const std::vector<std::string>& names, F factor) {
  json bw = json::array(), lat = json::array();
  for (const auto& a : names) {
    json b = json::array(), l = json::array();
    for (const auto& c : names) {
      b.push_back(a == c ? json(nullptr) : json(10.0 * factor("bw", a, c)));
      l.push_back(a == c ? json(nullptr) : json(5.0 * factor("lat", std::min(a, c), std::max(a, c))));
    }
    bw.push_back(b);
    lat.push_back(l);
  }
  return {{"schema_version", 1},
          {"pairs",
           {{"size_bytes", 1 << 20},
            {"hosts", names},
            {"bw_gbps", bw},
            {"lat_p50_us", lat},
            {"bw_median_gbps", 10.0},
            {"lat_median_us", 5.0}}}};
}

std::vector<std::string> hosts(std::size_t n) {
  std::vector<std::string> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(host(i));
  return v;
}

const auto same = [](const char*, const std::string&, const std::string&) { return 1.0; };

/// B: three bandwidth links 30 % slower, one 5 % slower (within the rule), one latency pair 50 % slower.
double changed(const char* kind, const std::string& a, const std::string& b) {
  const std::string k = kind;
  if (k == "bw" && ((a == "h1" && b == "h4") || (a == "h4" && b == "h1") || (a == "h5" && b == "h0")))
    return 0.7;
  if (k == "bw" && a == "h2" && b == "h3") return 0.95;
  if (k == "lat" && a == "h0" && b == "h2") return 1.5;
  return 1.0;
}

const LinkSummary* by_metric(const CompareResult& r, const std::string& metric) {
  for (const auto& l : r.links)
    if (l.metric == metric) return &l;
  return nullptr;
}

std::set<Link> changed_links(const LinkSummary& l) {
  std::set<Link> s;
  for (const auto& c : l.changed) s.emplace(c.from, c.to);
  return s;
}

TEST(CompareLinks, NamesExactlyTheChangedLinksAndMakesNoRowPerLink) {
  const json a = pairs_report(hosts(6), same);
  // B lists the hosts in another order: links match by name.
  std::vector<std::string> shuffled = hosts(6);
  std::reverse(shuffled.begin(), shuffled.end());
  const json b = pairs_report(shuffled, changed);
  const CompareResult r = compare_reports(a, b, {"a.json", "A"}, {"b.json", "B"});
  for (const auto& row : r.rows) EXPECT_FALSE(row.a_metric.key.contains("from")) << row.a_metric.item;
  const LinkSummary* bw = by_metric(r, "bw_gbps");
  const LinkSummary* lat = by_metric(r, "lat_p50_us");
  ASSERT_TRUE(bw && lat);
  EXPECT_EQ(bw->compared, 30u);
  EXPECT_EQ(lat->compared, 15u);  // one value per unordered pair
  EXPECT_EQ(changed_links(*bw), (std::set<Link>{{"h1", "h4"}, {"h4", "h1"}, {"h5", "h0"}}));
  EXPECT_EQ(bw->worse, 3u);
  EXPECT_EQ(bw->improved, 0u);
  EXPECT_EQ(changed_links(*lat), (std::set<Link>{{"h0", "h2"}}));
  EXPECT_EQ(lat->worse, 1u);
  ASSERT_EQ(bw->delta_quantiles.size(), kLinkDeltaQuantilesBp.size());
  EXPECT_NEAR(bw->delta_quantiles.front(), -30.0, 1e-9);  // min
  EXPECT_NEAR(bw->delta_quantiles[4], 0.0, 1e-9);         // median
  EXPECT_NEAR(bw->delta_quantiles.back(), 0.0, 1e-9);     // max
  ASSERT_FALSE(bw->changed.empty());
  EXPECT_NEAR(*bw->changed.front().delta_pct, -30.0, 1e-9);

  // The JSON keeps what a script needs: counts and every changed link.
  const json j = compare_json(r);
  ASSERT_EQ(j["links"].size(), 2u);
  EXPECT_EQ(j["links"][0]["metric"], "bw_gbps");
  EXPECT_EQ(j["links"][0]["changed"], 3);
  EXPECT_EQ(j["links"][0]["within_min_delta"], 27);
  EXPECT_EQ(j["links"][0]["changed_links"].size(), 3u);
  EXPECT_EQ(j["summary"]["links_changed"], 4);

  // The console: one line per changed link, none for the 41 others.
  const std::string text = render_compare(r);
  EXPECT_NE(text.find("30 links compared, 3 changed by 10 % or more"), std::string::npos) << text;
  EXPECT_NE(text.find("bw_gbps h1 -> h4"), std::string::npos);
  EXPECT_EQ(text.find("h2 -> h3"), std::string::npos);  // 5 %: within the rule
  std::size_t link_lines = 0;
  for (const char* line : {"\n#   bw_gbps ", "\n#   lat_p50_us "})
    for (std::size_t p = text.find(line); p != std::string::npos; p = text.find(line, p + 1)) ++link_lines;
  EXPECT_EQ(link_lines, 4u);

  // The HTML: the same counts and links.
  const std::string html = render_compare_html(r);
  EXPECT_NE(html.find("data-metric=\"bw_gbps\" data-compared=\"30\" data-changed=\"3\""), std::string::npos);
  EXPECT_NE(html.find("<td>h5</td><td>h0</td>"), std::string::npos);
}

TEST(CompareLinks, AHostMissingInBIsCountedNotCompared) {
  const json a = pairs_report(hosts(5), same);
  const json b = pairs_report(hosts(4), same);  // h4 gone
  const CompareResult r = compare_reports(a, b, {"a.json", "A"}, {"b.json", "B"});
  const LinkSummary* bw = by_metric(r, "bw_gbps");
  ASSERT_TRUE(bw);
  EXPECT_EQ(bw->compared, 12u);
  EXPECT_EQ(bw->only_in_a, 8u);  // h4's 4 outgoing and 4 incoming links
  EXPECT_EQ(bw->only_in_b, 0u);
  EXPECT_TRUE(bw->changed.empty());
}

TEST(CompareLinks, WithSeveralRunsALinkMustAlsoBeatItsRunSpread) {
  // A's two runs disagree on h0 -> h1 by 40 %: B's 30 % drop there is within 3x that spread; h1 -> h2's is
  // not.
  const json a1 = pairs_report(hosts(4), same);
  const json a2 = pairs_report(hosts(4), [](const char* k, const std::string& x, const std::string& y) {
    return std::string(k) == "bw" && x == "h0" && y == "h1" ? 1.4 : 1.0;
  });
  const json b = pairs_report(hosts(4), [](const char* k, const std::string& x, const std::string& y) {
    const bool hit = std::string(k) == "bw" && ((x == "h0" && y == "h1") || (x == "h1" && y == "h2"));
    return hit ? 0.7 : 1.0;
  });
  const CompareResult r =
      compare_reports(std::vector<json>{a1, a2}, std::vector<json>{b}, {"a1,a2", "A"}, {"b.json", "B"});
  const LinkSummary* bw = by_metric(r, "bw_gbps");
  ASSERT_TRUE(bw);
  EXPECT_EQ(changed_links(*bw), (std::set<Link>{{"h1", "h2"}}));
}

}  // namespace
