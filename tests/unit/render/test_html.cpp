// The HTML renderer without a browser: escaping, robustness on any report shape, one SVG point per
// measured size (also size 0 on the log2 axis), the line-rate line, skipped/failed sections with their
// reasons.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "../support/test_data.hpp"
#include "../support/text.hpp"
#include "fabcheck/model/nics.hpp"
#include "fabcheck/report/html.hpp"
#include "fabcheck/report/nics.hpp"

namespace {

using fabcheck::report::html_escape;
using fabcheck::report::render_html;
using nlohmann::json;

using fabcheck::testing_fixtures::count_of;

json sweep(const char* coll, std::initializer_list<double> sizes) {
  json pts = json::array();
  for (double s : sizes) {
    for (const char* pl : {"out_of_place", "in_place"}) {
      pts.push_back({{"size_bytes", s},
                     {"placement", pl},
                     {"time_us", 10.0},
                     {"algbw_gbps", 1.0},
                     {"busbw_gbps", s == 0 ? 0.0 : 2.0},
                     {"wrong", 0}});
    }
  }
  return {{"collective", coll}, {"dtype", "float"}, {"redop", "sum"}, {"nranks", 4}, {"points", pts}};
}

TEST(ReportHtml, EscapesMarkupQuotesAndControlCharacters) {
  EXPECT_EQ(html_escape("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(html_escape(std::string("a\x01\tb\nc\x7f", 7)), "a\tb\nc");
  EXPECT_EQ(html_escape("µs → ok"), "µs → ok");  // UTF-8 passes through
}

TEST(ReportHtml, AnyShapeRendersEverySectionWithoutThrowing) {
  for (const json& r : {json(), json::object(), json::array(), json{{"schema_version", 1}, {"sweeps", 3}},
                        json{{"run", {{"sections", "x"}}},
                             {"pairs", {{"hosts", {"a", "b"}}, {"bw_gbps", 1}}},
                             {"latency", {{{"histogram", {{1, 2}}}}}},
                             {"incast", {1, 2}},
                             {"scaling", {{"groups", 1}}}},
                        json{{"findings", {{{"severity", 7}}}}, {"gate", {{"passed", "yes"}}}}}) {
    std::string page;
    ASSERT_NO_THROW(page = render_html(r)) << r.dump();
    for (auto id : fabcheck::report::kHtmlSectionIds) {
      EXPECT_NE(page.find("id=\"" + std::string(id) + "\""), std::string::npos) << id << " in " << r.dump();
    }
    EXPECT_EQ(page.find("<script"), std::string::npos);
  }
}

TEST(ReportHtml, HeaderSaysHowTheRanksWereLaunched) {
  const json r = {{"run",
                   {{"launcher",
                     {{"kind", "srun"},
                      {"slurm_job_id", "42"},
                      {"slurm_step_id", "0"},
                      {"nodelist", "fab-h[1-4]"},
                      {"pmi", "pmix"},
                      {"mpijob_role", nullptr},
                      {"mpi_implementation", "Open MPI"},
                      {"mpi_version", "4.1.4"}}}}}};
  const std::string page = render_html(r);
  EXPECT_NE(
      page.find("launched by srun (Slurm job 42, step 0, nodes fab-h[1-4]) · PMI pmix · Open MPI 4.1.4"),
      std::string::npos)
      << page.substr(0, 3000);
  // Older reports have no launcher: no line.
  EXPECT_EQ(render_html(json{{"run", json::object()}}).find("launched by"), std::string::npos);
  EXPECT_NE(render_html(json{{"run", {{"launcher", {{"kind", "mpirun"}}}}}}).find("launched by mpirun</p>"),
            std::string::npos);
}

TEST(ReportHtml, StringsFromTheReportAreEscapedEverywhere) {
  const std::string evil = "<script>alert(1)</script>\"'&";
  json r = {
      {"schema_version", 1},
      {"run", {{"argv", {evil}}, {"sections", {{"latency", {{"status", "failed"}, {"reason", evil}}}}}}},
      {"findings", {{{"severity", "fail"}, {"code", evil}, {"message", evil}, {"remedy", evil}}}},
      {"transport", {{"verdict", evil}}},
      {"topology", {{"nranks", 2}, {"hosts", {{{"host", evil}, {"ranks", {0, 1}}}}}}},
      {"sweeps", {sweep("allreduce", {1024})}}};
  r["sweeps"][0]["collective"] = evil;
  const std::string page = render_html(r);
  EXPECT_EQ(page.find("<script>"), std::string::npos);
  EXPECT_EQ(page.find("\"'&<"), std::string::npos);
  EXPECT_GE(count_of(page, "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"), 6u);
}

// Every string of a whole report (a 4-host run with every section) given markup: none reaches the page as
// markup. Once with every string marked, so values the page reads as names (status, severity) are foreign
// too, and once with those left as they were, so that every section renders its free text.
TEST(ReportHtml, EveryStringFieldOfAWholeReportIsEscaped) {
  const std::string evil = "<form action=//x>\"'&";
  const json base = json::parse(fabcheck::testing_fixtures::read_test_data("reports/vfabric-4x2.json"));
  for (const bool keep_names : {false, true}) {
    json r = base;
    std::size_t marked = 0;
    std::function<void(json&, const std::string&)> mark = [&](json& j, const std::string& key) {
      static const std::vector<std::string> names = {"status",  "severity", "verdict", "kind",
                                                     "pattern", "dtype",    "redop",   "collective"};
      if (j.is_string()) {
        if (keep_names && std::find(names.begin(), names.end(), key) != names.end()) return;
        j = j.get<std::string>() + evil;
        ++marked;
      } else if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) mark(it.value(), it.key());
      } else if (j.is_array()) {
        for (auto& v : j) mark(v, key);
      }
    };
    mark(r, "");
    const std::string page = render_html(r);
    EXPECT_GT(marked, 500u);
    EXPECT_EQ(page.find("<form"), std::string::npos) << "keep_names " << keep_names;
    EXPECT_EQ(page.find("\"'&"), std::string::npos) << "keep_names " << keep_names;
    EXPECT_GE(count_of(page, "&lt;form action=//x&gt;&quot;&#39;&amp;"), keep_names ? 50u : 10u);
  }
}

TEST(ReportHtml, ThePagePolicyForbidsScriptsFormsAndOtherOrigins) {
  const std::string page = render_html(json{{"schema_version", 1}});
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
  EXPECT_NE(page.find("form-action 'none'"), std::string::npos);
}

TEST(ReportHtml, OnePointPerMeasuredSizeAndPlacementIncludingSizeZero) {
  json r = {{"schema_version", 1},
            {"sweeps", {sweep("allreduce", {8, 1024, 1048576}), sweep("reducescatter", {0, 64, 4096})}}};
  const std::string page = render_html(r);
  EXPECT_EQ(count_of(page, "class=\"pt "), 12u);
  EXPECT_EQ(count_of(page, "data-placement=\"out_of_place\" data-size-bytes="), 6u);
  EXPECT_EQ(count_of(page, "data-size-bytes=\"0\""), 2u);
  EXPECT_EQ(count_of(page, "data-size-bytes=\"1048576\""), 2u);
  EXPECT_NE(page.find(">0</text>"), std::string::npos);            // the log2 axis labels its zero position
  EXPECT_EQ(page.find("data-line-rate-gbps"), std::string::npos);  // no line rate known: no reference line
}

TEST(ReportHtml, LineRateFromTheSlowestHostsFastestActivePort) {
  auto host = [](const char* name, double rate, const char* state) {
    return json{{"host", name},
                {"rdma_devices",
                 {{{"name", "mlx5_0"}, {"ports", {{{"port", 1}, {"state", state}, {"rate_gbit", rate}}}}}}}};
  };
  json r = {{"schema_version", 1},
            {"sweeps", {sweep("allreduce", {1024})}},
            {"inventory",
             {{"hosts", {host("a", 400, "ACTIVE"), host("b", 200, "ACTIVE"), host("c", 100, "DOWN")}}}}};
  const std::string page = render_html(r);
  EXPECT_NE(page.find("data-line-rate-gbps=\"25\""), std::string::npos);  // 200 Gbit/s = 25 GB/s
  r["pairs"] = {{"expected_gbps", 50.0}};
  EXPECT_NE(render_html(r).find("data-line-rate-gbps=\"50\""), std::string::npos);  // --line-rate-gbit wins
}

TEST(ReportHtml, SkippedAndFailedSectionsSayWhy) {
  json r = {{"schema_version", 1},
            {"run",
             {{"sections",
               {{"pairs", {{"status", "skipped"}, {"reason", "needs 2 hosts, this run has 1"}}},
                {"incast", {{"status", "failed"}, {"reason", "rank 3 (h4): timeout"}}},
                {"sweeps", {{"status", "ok"}, {"reason", nullptr}}}}}}}};
  const std::string page = render_html(r);
  EXPECT_NE(
      page.find(
          "data-section=\"pairs\" data-status=\"skipped\"><b>pairs skipped:</b> needs 2 hosts, this run "
          "has 1</p>"),
      std::string::npos);
  EXPECT_NE(
      page.find("data-section=\"incast\" data-status=\"failed\"><b>incast failed:</b> rank 3 (h4): timeout"),
      std::string::npos);
  EXPECT_EQ(page.find("data-section=\"sweeps\""), std::string::npos);
}

TEST(ReportHtml, PairsHeatmapMarksOutliersInBothDirectionsForLatency) {
  json r = {
      {"schema_version", 1},
      {"pairs",
       {{"hosts", {"a", "b", "c"}},
        {"bw_gbps", {{nullptr, 1.0, 1.0}, {1.0, nullptr, 0.1}, {1.0, 1.0, nullptr}}},
        {"lat_p50_us", {{nullptr, 5.0, 5.0}, {5.0, nullptr, 50.0}, {5.0, 50.0, nullptr}}},
        {"outliers",
         {{{"kind", "bw"}, {"from", "b"}, {"to", "c"}}, {{"kind", "lat"}, {"from", "b"}, {"to", "c"}}}}}}};
  const std::string page = render_html(r);
  EXPECT_EQ(count_of(page, "<rect class=\"cell"), 12u);    // 3 x 2 per heatmap
  EXPECT_EQ(count_of(page, "data-outlier=\"true\""), 3u);  // b->c bandwidth; b-c latency both ways
}

TEST(ReportHtml, ThrottledHostGetsTheWorstEndOfTheScaleAndTheCaptionMedianIsTheReports) {
  // A real pairs section: one host of the virtual fabric throttled to 500 Mbit/s (tests/data, _source).
  std::ifstream in(std::string(FABCHECK_TEST_DATA) + "/pairs_throttled_host.json");
  ASSERT_TRUE(in.good());
  const json r = json::parse(in);
  const std::string slow = "dev-h3";
  const std::string page = render_html(r);
  const std::regex cell(
      R"re(<rect class="cell[^"]*"[^>]*data-kind="bw" data-from="([^"]+)" data-to="([^"]+)" data-value="([^"]+)" data-scale="([^"]+)")re");
  int slow_cells = 0, good_cells = 0;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), cell); it != std::sregex_iterator(); ++it) {
    const double scale = std::stod((*it)[4].str());
    if ((*it)[1] == slow || (*it)[2] == slow) {
      ++slow_cells;
      EXPECT_EQ(scale, 0.0) << (*it)[1] << " -> " << (*it)[2];  // the worst end: red
    } else {
      ++good_cells;
      // the good links (0.96..1.68 GB/s against a median of 1.35) stay well away from the red end
      EXPECT_GT(scale, 0.3) << (*it)[1] << " -> " << (*it)[2];
    }
  }
  EXPECT_EQ(slow_cells, 6);
  EXPECT_EQ(good_cells, 6);
  // The caption's median is the report's own (the outlier rule's), for both matrices.
  const std::regex med(R"re(class="median" data-median="([^"]+)")re");
  std::vector<double> medians;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), med); it != std::sregex_iterator(); ++it)
    medians.push_back(std::stod((*it)[1].str()));
  ASSERT_EQ(medians.size(), 2u);
  EXPECT_NEAR(medians[0], r["pairs"]["bw_median_gbps"].get<double>(), 1e-9);
  EXPECT_NEAR(medians[1], r["pairs"]["lat_median_us"].get<double>(), 1e-9);
  // And the scale has a legend.
  EXPECT_EQ(count_of(page, "class=\"legend\""), 2u);
}

}  // namespace

TEST(ReportHtml, CitesTheDesignDocumentThatIsInTheRepository) {
  const std::string html =
      render_html({{"schema_version", 1}, {"sweeps", json::array({sweep("allreduce", {8})})}});
  EXPECT_EQ(count_of(html, "docs/DESIGN.md"), 1u);
  std::ifstream design(std::string(FABCHECK_SOURCE_DIR) + "/docs/DESIGN.md");
  ASSERT_TRUE(design.good()) << "the page cites docs/DESIGN.md, which must be in the repository";
  std::string first;
  std::getline(design, first);
  EXPECT_EQ(first, "# fabcheck design");
  std::ifstream readme(std::string(FABCHECK_SOURCE_DIR) + "/README.md");
  const std::string text((std::istreambuf_iterator<char>(readme)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("(docs/DESIGN.md)"), std::string::npos) << "README links the design document";
}

TEST(ReportHtml, FailedTransportIsNeverAGoodCard) {
  // The verdict says what was attempted (rdma), the health whether it worked (failed).
  json r = {{"schema_version", 1},
            {"transport",
             {{"verdict", "rdma"},
              {"network", "ib_verbs"},
              {"health",
               {{"status", "failed"},
                {"headline",
                 "connection setup FAILED on node01 (ibv_modify_qp: Network is unreachable \u00d717)"}}}}}};
  const std::string page = render_html(r);
  EXPECT_NE(page.find("<div class=\"card bad\" id=\"transport\">"), std::string::npos);
  EXPECT_NE(page.find("connection setup FAILED on node01"), std::string::npos);
  r["transport"]["health"] = {{"status", "ok"}};
  EXPECT_NE(render_html(r).find("<div class=\"card good\" id=\"transport\">"), std::string::npos);
}

TEST(ReportHtml, OverlapSectionTablesEveryPointOrSaysItIsAbsent) {
  const json summary = {{"samples", 4}, {"p50", 100.0}, {"p99", 120.0}};
  json r = {{"schema_version", 1},
            {"overlap",
             {{"backend", "mpi"},
              {"nranks", 4},
              {"poll_us", 100},
              {"points",
               {{{"coll", "allreduce"},
                 {"size_bytes", 8 << 20},
                 {"t_comm_us", summary},
                 {"t_compute_us", summary},
                 {"t_both_us", summary},
                 {"overlap", 0.125},
                 {"t_both_poll_us", nullptr},
                 {"overlap_poll", nullptr}}}}}}};
  const std::string page = render_html(r);
  EXPECT_NE(page.find("<td>allreduce</td><td>8M</td><td>100 / 120</td>"), std::string::npos) << page;
  EXPECT_NE(page.find("<td>0.125</td>"), std::string::npos);
  EXPECT_NE(page.find("docs/DESIGN.md §5"), std::string::npos);
  const std::string empty = render_html(json{{"schema_version", 1}});
  EXPECT_NE(empty.find("no overlap measurement in this report"), std::string::npos);
}

// The nics section lists every NIC, the rail x rail reachability and each rail's bandwidth matrix
// with its suspect marked; a report without it says so (the real local report's nics is null: one host).
// The section is written by the probe's own writer (report::nics_json) from a 2-host, 2-rail result whose
// rails cannot reach each other; rail 1's suspect (h1 eth1) is set by hand (2 hosts are too few for the
// DESIGN §4 rule) and confirmed by its retest.
TEST(ReportHtml, NicsSectionShowsReachabilityAndRailMatrices) {
  fabcheck::model::NicsResult res;
  res.hosts = {"h1", "h2"};
  for (int h = 0; h < 2; ++h) {
    const std::string host = std::to_string(h + 1);
    res.nics.push_back({{"eth0", "198.18.10." + host, 24, true, true, std::nullopt, -1},
                        {"eth1", "198.18.11." + host, 24, true, true, std::nullopt, -1}});
  }
  res.nics[0].push_back({"mgmt0", "198.18.20.1", 24, true, false, 1000.0, -1});
  const double bw[2][2] = {{1.25, 1.5}, {0.125, 1.5}};  // [rail][from host]
  for (int a = 0; a < 2; ++a)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        fabcheck::model::NicLink l;
        l.from_host = a, l.to_host = 1 - a, l.from_nic = i, l.to_nic = j;
        l.reachable = i == j;
        if (l.reachable) l.bw_gbps = bw[i][a];
        res.links.push_back(l);
      }
  fabcheck::model::assign_rails(res);
  res.rails[0].analysis.bw.median = 1.375;
  res.rails[1].analysis.bw.median = 0.8125;
  fabcheck::core::HostSuspect h1;
  h1.host = 0;
  res.rails[1].analysis.suspects.push_back(h1);
  res.rails[1].confirmed = {true};
  res.duration_s = 4.5;
  const json r = {{"schema_version", 1}, {"nics", fabcheck::report::nics_json(res)}};
  const std::string page = render_html(r);
  EXPECT_NE(page.find("<section id=\"nics\">"), std::string::npos);
  EXPECT_NE(page.find("<span class=\"muted\">mgmt0 (not measured)</span>"), std::string::npos) << page;
  EXPECT_NE(page.find("<td><span class=\"bad\">0/2</span></td>"), std::string::npos);   // cross-rail
  EXPECT_NE(page.find("<td><span class=\"good\">2/2</span></td>"), std::string::npos);  // same rail
  EXPECT_NE(page.find("Rail 1 (198.18.11.0/24): bandwidth GB/s"), std::string::npos);
  EXPECT_NE(page.find("<td><span class=\"warn\">0.125</span></td>"), std::string::npos);
  EXPECT_NE(page.find("slow NIC suspects on this rail: h1 eth1 (confirmed by retest)"), std::string::npos);
  EXPECT_NE(page.find("<td><span class=\"bad\">h1</span></td>"), std::string::npos);
  res.rails[1].confirmed = {false};  // refuted by its retest: named, amber, never red
  const std::string refuted =
      render_html({{"schema_version", 1}, {"nics", fabcheck::report::nics_json(res)}});
  EXPECT_NE(refuted.find("<td><span class=\"warn\">h1</span></td>"), std::string::npos);
  EXPECT_EQ(refuted.find("<td><span class=\"bad\">h1</span></td>"), std::string::npos);
  EXPECT_NE(refuted.find("h1 eth1 (not confirmed)"), std::string::npos);
  EXPECT_NE(page.find("docs/DESIGN.md §5 &quot;NICs&quot;"), std::string::npos);
  std::ifstream in(std::string(FABCHECK_TEST_DATA) + "/reports/local-2ranks-counters.json");
  const std::string real = render_html(json::parse(in));
  EXPECT_NE(real.find("no NIC measurement in this report"), std::string::npos);
}

// The nics section's RDMA verbs part — the skip reason as a note, or one row per directed port pair
// with an unreachable one in red — written by the probe's own writer (report::nics_json).
TEST(ReportHtml, NicsSectionShowsTheVerbsPart) {
  fabcheck::model::NicsResult res;
  res.hosts = {"h1", "h2"};
  res.nics = {{{"eth0", "198.18.10.1", 24, true, true, std::nullopt, -1}},
              {{"eth0", "198.18.10.2", 24, true, true, std::nullopt, -1}}};
  fabcheck::model::assign_rails(res);
  res.verbs.skipped = "no RDMA device (ibv_get_device_list returned 0)";
  std::string page = render_html({{"schema_version", 1}, {"nics", fabcheck::report::nics_json(res)}});
  EXPECT_NE(page.find("RDMA verbs: skipped: no RDMA device (ibv_get_device_list returned 0)"),
            std::string::npos);
  EXPECT_EQ(page.find("nics-verbs-table"), std::string::npos);
  res.verbs.skipped.clear();
  const fabcheck::model::VerbsNicPort port{
      "mlx5_0", 1, "Ethernet", "eth2", 3, "nccl_auto", "0000:0000:0000:0000:0000:ffff:0a00:0001", 0, 4096};
  res.verbs.hosts = {{{port}, ""}, {{port}, ""}};
  res.verbs.links = {{0, 0, 1, 0, true, "", 4096, 46.5, 2.25, 3.5},
                     {1, 0, 0, 0, false, "work completion 0: transport retry counter exceeded", 0,
                      std::nullopt, std::nullopt, std::nullopt}};
  page = render_html({{"schema_version", 1}, {"nics", fabcheck::report::nics_json(res)}});
  EXPECT_NE(page.find("nics-verbs-table"), std::string::npos) << page;
  EXPECT_NE(
      page.find("<td>h1 mlx5_0/1 (eth2)</td><td>h2 mlx5_0/1 (eth2)</td><td>3</td><td>4096</td><td>46.5</td>"
                "<td>2.25</td><td>3.5</td>"),
      std::string::npos)
      << page;
  EXPECT_NE(page.find("<span class=\"bad\">unreachable: work completion 0: transport retry counter exceeded"),
            std::string::npos);
}

TEST(ReportHtml, StepSectionShowsMeasuredBesideProjectedOrSaysItIsAbsent) {
  const json t_step = {{"samples", 5}, {"p50", 200000.0}, {"p99", 210000.0}};
  const json t_compute = {{"samples", 5}, {"p50", 150000.0}, {"p99", 151000.0}};
  json r = {{"schema_version", 1},
            {"step",
             {{"workload", "vfabric-demo"},
              {"buckets", 4},
              {"real_buckets", 4},
              {"t_step_us", t_step},
              {"t_compute_us", t_compute},
              {"exposed_us", 50000.0},
              {"measured_efficiency", 0.75},
              {"projected", {{"efficiency", 0.8}, {"overlap", 0.5}}},
              {"measured_vs_projected", 0.9375},
              {"agreement_factor", 1.5},
              {"scaled_note", "scaled step: 4 of 4 buckets"}}}};
  const std::string page = render_html(r);
  EXPECT_NE(page.find("<td>vfabric-demo</td><td>4 of 4</td><td>200000 / 210000</td><td>150000 / 151000</td>"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<td>0.75</td><td>0.8</td><td>0.938</td>"), std::string::npos) << page;
  EXPECT_NE(page.find("docs/DESIGN.md §5 &quot;Training step&quot;"), std::string::npos) << page;
  const std::string empty = render_html(json{{"schema_version", 1}});
  EXPECT_NE(empty.find("no emulated training step in this report"), std::string::npos);
}
