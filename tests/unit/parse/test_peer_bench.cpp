// perftest / OSU / IMB readers and their import: every real output under tests/data/peers imports
// with every row exact against the file (each parsed row is checked against its own line, and the number of
// rows against the row-shaped lines of the file); units, statistics, hosts and the error findings.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../support/test_data.hpp"
#include "../support/text.hpp"
#include "fabcheck/core/error.hpp"
#include "fabcheck/parse/peer_bench.hpp"
#include "fabcheck/report/document.hpp"
#include "fabcheck/report/load.hpp"
#include "fabcheck/report/peer_import.hpp"

using namespace fabcheck;

namespace {

std::string data(const std::string& rel) {
  return std::string(FABCHECK_TEST_DATA) + "/peers/" + rel;
}

using testing_fixtures::lines_of;
using testing_fixtures::read_text_file;

parse::PeerRun parse_file(const std::string& rel) {
  const std::string text = read_text_file(data(rel));
  const std::string fmt = parse::detect_peer_format(text);
  EXPECT_FALSE(fmt.empty()) << rel;
  return parse::parse_peer(text, fmt, rel);
}

// The report `fabcheck import` makes of `run` (read from a file named `name`).
nlohmann::json imported(const std::string& name, const parse::PeerRun& run) {
  report::Document doc;
  report::add_peer_import(doc, {{name, run}}, {});
  return doc.json();
}

/// Checks every parsed row against its line: the first token is the size, each later token (after an
/// optional HH:MM:SS prefix) is the column's value as printed; and the row count equals the file's
/// row-shaped lines (digits first, then a number).
void expect_rows_exact(const std::string& rel, const parse::PeerRun& run) {
  const auto lines = lines_of(read_text_file(data(rel)));
  std::size_t rows = 0;
  for (const auto& t : run.tables) {
    for (const auto& r : t.rows) {
      ++rows;
      ASSERT_GE(r.line, 1u);
      ASSERT_LE(r.line, lines.size());
      std::string line = lines[r.line - 1];
      line = std::regex_replace(line, std::regex("^[0-9]{2}:[0-9]{2}:[0-9]{2}[ \t]"), "");
      std::stringstream ss(line);
      std::vector<std::string> toks;
      for (std::string tok; ss >> tok;) toks.push_back(tok);
      ASSERT_EQ(toks.size(), t.columns.size()) << rel << ":" << r.line;
      for (std::size_t c = 0; c < toks.size(); ++c) {
        const auto& col = t.columns[c];
        if (col == "size_bytes") {
          EXPECT_EQ(std::to_string(r.size_bytes), toks[c]) << rel << ":" << r.line;
        } else if (col == "validation") {
          EXPECT_EQ(r.validation, toks[c]);
        } else {
          ASSERT_TRUE(r.values.contains(col)) << col;
          EXPECT_EQ(r.values.at(col).value, std::strtod(toks[c].c_str(), nullptr)) << rel << ":" << r.line;
        }
      }
    }
  }
  std::size_t shaped = 0;
  const std::regex row("^([0-9]{2}:[0-9]{2}:[0-9]{2}[ \t]+)?[ \t]*[0-9]+[ \t]+[0-9.]+([ \t].*)?$");
  for (const auto& l : lines) shaped += std::regex_match(l, row) ? 1 : 0;
  EXPECT_EQ(rows, shaped) << rel;
}

}  // namespace

// tests/data/peers/expected.json: per real output, the format, the version line, the number of tables and
// rows, the first table's test.
TEST(PeerBench, EveryRealFileImportsWithEveryRowExact) {
  const auto expected = nlohmann::json::parse(read_text_file(data("expected.json")));
  EXPECT_EQ(expected.size(), 58u);  // a file without an entry would be silently untested
  for (const auto& [file, e] : expected.items()) {
    const auto format = e.at("format").get<std::string>();
    SCOPED_TRACE(file);
    const std::string text = read_text_file(data(file));
    EXPECT_EQ(parse::detect_peer_format(text), format);
    // Each file names its source on its first line (tests/data/peers/README.md); a JSON document cannot.
    if (format != "perftest-json") {
      EXPECT_TRUE(text.starts_with("source: https://") || text.starts_with("source: produced here, "));
    }
    const auto run = parse_file(file);
    EXPECT_EQ(run.version, e.at("version").get<std::string>());
    ASSERT_EQ(run.tables.size(), e.at("tables").get<std::size_t>());
    std::size_t rows = 0;
    for (const auto& t : run.tables) rows += t.rows.size();
    EXPECT_EQ(rows, e.at("rows").get<std::size_t>());
    EXPECT_EQ(run.tables[0].test, e.at("test").get<std::string>());
    EXPECT_TRUE(run.errors.empty());
    expect_rows_exact(file, run);
    // The import is a report the shared loader accepts.
    report::Document doc;
    report::add_peer_import(doc, {{file, run}}, {});
    doc.finish("complete", 0, 0.0);
    EXPECT_NO_THROW(report::parse_report_text(doc.json().dump(), file));
  }
}

TEST(PeerBench, PerftestUnitsAndColumns) {
  const auto a = parse_file("perftest/ib_write_bw_postlist_gbits_perftest273.txt");
  const auto& t = a.tables[0];
  EXPECT_EQ(t.bw_unit, "Gb/s");
  EXPECT_EQ(t.title, "RDMA_Write Post List BW Test");
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].size_bytes, 8u);
  EXPECT_EQ(t.rows[0].values.at("iterations").value, 224958464.0);
  EXPECT_EQ(t.rows[0].values.at("bw_avg").value, 0.48);
  EXPECT_EQ(t.rows[0].values.at("msg_rate_mpps").value, 7.498617);
  EXPECT_EQ(a.info.at("Device"), "ib0");
  const auto b = parse_file("perftest/ib_read_bw_a_ucx8851.txt");
  EXPECT_EQ(b.tables[0].bw_unit, "MiB/s");
  // Preamble pairs separated by blanks rather than tabs are split too.
  EXPECT_EQ(b.info.at("Dual-port"), "OFF");
  EXPECT_EQ(b.info.at("Device"), "mlx5_1");
  EXPECT_DOUBLE_EQ(report::to_gbps(19.50, "MiB/s"), 19.50 * 1048576 / 1e9);
  EXPECT_DOUBLE_EQ(report::to_gbps(42.31, "Gb/s"), 42.31 / 8);
  EXPECT_DOUBLE_EQ(report::to_gbps(1785.15, "MB/s"), 1.78515);
}

TEST(PeerBench, PerftestLatencyTableWithFrequencyWarnings) {
  // ib_read_lat with "Conflicting CPU frequency values" lines between header and row, libibverbs warnings
  // before the title and the preamble indented as the quoting page has it.
  const auto run = parse_file("perftest/ib_read_lat_sriov_warnings_spiderpool.txt");
  const auto& t = run.tables[0];
  EXPECT_EQ(t.kind, "latency");
  const std::vector<std::string> cols = {"size_bytes", "iterations", "t_min_us", "t_max_us", "t_typical_us",
                                         "t_avg_us",   "t_stdev_us", "p99_us",   "p999_us"};
  EXPECT_EQ(t.columns, cols);
  EXPECT_EQ(run.info.at("Device"), "mlx5_5");
  EXPECT_EQ(run.info.at("Transport type"), "IB");
  const auto l = imported("lat.txt", run)["latency"][0];
  EXPECT_EQ(l["mean_us"], 6.82);
  EXPECT_EQ(l["p50_us"], 6.74);
  EXPECT_EQ(l["p99_us"], 7.15);
  EXPECT_EQ(l["p999_us"], 20.37);
}

TEST(PeerBench, PerftestLoopbackLogWithTwoInterleavedTables) {
  // Server and client of a loopback run print into one log: both headers first, the client's 23 rows, its
  // dashes, then the server's one row. The row after the dashes belongs to the header still without rows.
  const auto run = parse_file("perftest/ib_write_bw_a_loopback_superbench.txt");
  ASSERT_EQ(run.tables.size(), 2u);
  EXPECT_EQ(run.tables[0].rows.size(), 1u);
  EXPECT_EQ(run.tables[0].rows[0].size_bytes, 8388608u);
  EXPECT_EQ(run.tables[0].rows[0].line, 66u);  // line 1 is the file's `source:` line
  ASSERT_EQ(run.tables[1].rows.size(), 23u);
  EXPECT_EQ(run.tables[1].rows.front().size_bytes, 2u);
  EXPECT_EQ(run.tables[1].rows.back().values.at("bw_avg").value, 23240.68);
  EXPECT_TRUE(run.finished);
  EXPECT_EQ(run.tables[1].rejected_rows, 0u);
}

TEST(PeerBench, PerftestJsonWithUnquotedKeys) {
  const auto run = parse_file("perftest/ib_write_lat_out_json_perftest216.json");
  EXPECT_EQ(run.format, "perftest-json");
  ASSERT_EQ(run.tables.size(), 1u);
  const auto& t = run.tables[0];
  EXPECT_EQ(t.test, "ib_write_lat");
  ASSERT_EQ(t.rows.size(), 1u);
  const auto& r = t.rows[0];
  EXPECT_EQ(r.size_bytes, 128u);
  EXPECT_EQ(r.values.at("iterations").value, 5000);
  EXPECT_EQ(r.values.at("t_min_us").value, 2.37);
  EXPECT_EQ(r.values.at("t_max_us").value, 5.39);
  EXPECT_EQ(r.values.at("t_typical_us").value, 2.42);
  EXPECT_EQ(r.values.at("t_avg_us").value, 2.42);
  EXPECT_EQ(r.values.at("t_stdev_us").value, 0.05);
  EXPECT_EQ(r.values.at("p99_us").value, 2.47);
  EXPECT_EQ(r.values.at("p999_us").value, 4.03);
  EXPECT_EQ(run.info.at("Device"), "rxe0");
  // The import names the statistics: mean = t_avg, p50 = t_typical (perftest's median).
  const auto l = imported("x.json", run)["latency"][0];
  EXPECT_EQ(l["mean_us"], 2.42);
  EXPECT_EQ(l["p50_us"], 2.42);
  EXPECT_EQ(l["p999_us"], 4.03);
  EXPECT_NE(l["statistic"].get<std::string>().find("median"), std::string::npos);
  // A standard-JSON file (perftest >= 2024-01) reads the same.
  const auto std_run = parse::parse_perftest_json(
      R"({"test_info": {"test": "RDMA_Write_BW_Test", "Device": "mlx5_0"}, "results": {"MsgSize": 65536, )"
      R"("n_iterations": 5000, "BW_peak": 11728.47, "BW_average": 11728.40, "MsgRate": 0.187654}})",
      "std");
  EXPECT_EQ(std_run.tables[0].test, "ib_write_bw");
  EXPECT_EQ(std_run.tables[0].rows[0].values.at("bw_avg").value, 11728.40);
  EXPECT_THROW(parse::parse_perftest_json("{results: {MsgSize: 8,},}", "bad"), UsageError);
}

TEST(PeerBench, OsuColumnsAndStatistics) {
  const auto z = parse_file("local/osu74_latency_z_c.txt");
  const std::vector<std::string> cols = {"size_bytes", "t_avg_us", "validation",
                                         "p50_us",     "p90_us",   "p99_us"};
  EXPECT_EQ(z.tables[0].columns, cols);
  EXPECT_EQ(z.tables[0].datatype, "MPI_CHAR");
  const auto mr = parse_file("osu/osu_mbw_mr_v5.7.1_parallelcluster7035.txt");
  EXPECT_EQ(mr.tables[0].pairs, 48);
  EXPECT_EQ(mr.tables[0].rows.back().values.at("msg_rate_per_s").value, 48514205.09);
  // OSU's latency headline is a mean; -z on a bandwidth test is not a tail.
  const auto l = imported("lat.txt", parse_file("osu/osu_latency_v5.0_libfabric-cray859.txt"))["latency"][0];
  EXPECT_EQ(l["mean_us"], 1.84);
  EXPECT_TRUE(l["p50_us"].is_null());
  EXPECT_NE(l["statistic"].get<std::string>().find("mean"), std::string::npos);
  const auto link = imported("z.txt", parse_file("constructed/osu_bw_tail_z.txt"))["pairs"]["links"][0];
  EXPECT_NE(link["tail_note"].get<std::string>().find("fastest 1 %"), std::string::npos);
  EXPECT_DOUBLE_EQ(link["points"][0]["bw_p99_gbps"].get<double>(), 12.0);
}

TEST(PeerBench, OsuCongestionTitlesNameTheFanTests) {
  // Title lines as OSU 7.5's congestion defines spell them (constructed input, not a real output).
  const auto in = parse::parse_osu_text(
      "# OSU MPI Bandwidth Congestion In Test v7.5\n# Size      Bandwidth (MB/s)\n1                       "
      "0.50\n");
  ASSERT_EQ(in.tables.size(), 1u);
  EXPECT_EQ(in.tables[0].test, "osu_bw_fan_in");
  EXPECT_EQ(in.tables[0].kind, "bandwidth");
  const auto out = parse::parse_osu_text(
      "# OSU MPI Bandwidth Congestion Out Test v7.5\n# Size      Bandwidth (MB/s)\n1                       "
      "0.50\n");
  EXPECT_EQ(out.tables[0].test, "osu_bw_fan_out");
  // The plain bandwidth title stays osu_bw (a fan-in build that kept it cannot be told apart).
  const auto bw = parse_file("osu/osu_bw_v5.6.2_ucx4274.txt");
  EXPECT_EQ(bw.tables[0].test, "osu_bw");
}

TEST(PeerBench, LinksHostsAndGateShape) {
  EXPECT_EQ(report::hosts_from_file_name("/d/ib_write_bw_node01_to_node02.txt"),
            (std::pair<std::string, std::string>{"node01", "node02"}));
  EXPECT_EQ(report::hosts_from_file_name("gpu-a--gpu-b.txt"),
            (std::pair<std::string, std::string>{"gpu-a", "gpu-b"}));
  EXPECT_FALSE(report::hosts_from_file_name("ib_write_bw.txt"));
  const auto run = parse_file("perftest/ib_write_bw_gbits_perftest342.txt");
  report::Document doc;
  report::PeerImportOptions o;
  o.link = std::pair<std::string, std::string>{"h1", "h2"};
  report::add_peer_import(doc, {{"x.txt", run}}, o);
  const auto& p = doc.json()["pairs"];
  EXPECT_EQ(p["hosts"], nlohmann::json({"h1", "h2"}));
  EXPECT_DOUBLE_EQ(p["links"][0]["bw_gbps"].get<double>(), 42.31 / 8);
  EXPECT_DOUBLE_EQ(p["bw_gbps"][0][1].get<double>(), 42.31 / 8);
  EXPECT_EQ(p["links"][0]["hosts_source"], "--link");
}

TEST(PeerBench, CollectivesIntoSweepsWithDerivedBusbw) {
  const auto run = parse_file("local/imb2021_allreduce_sendrecv_np4.txt");
  const auto doc = imported("imb.txt", run);
  const auto& s = doc["sweeps"];
  ASSERT_EQ(s.size(), 2u);  // Allreduce with 2 and with 4 processes; Sendrecv went to pairs.links
  EXPECT_EQ(s[0]["collective"], "allreduce");
  EXPECT_EQ(s[0]["nranks"], 2);
  EXPECT_EQ(s[1]["nranks"], 4);
  EXPECT_EQ(s[0]["dtype"], "MPI_FLOAT");
  const auto& pt = s[1]["points"].back();
  const double t = pt["time_us"].get<double>();
  EXPECT_DOUBLE_EQ(pt["busbw_gbps"].get<double>(), 65536 / 1e9 / (t * 1e-6) * 2 * 3 / 4);
  EXPECT_NE(pt["busbw_source"].get<std::string>().find("derived"), std::string::npos);
  EXPECT_EQ(doc["pairs"]["links"].size(), 2u);
  // OSU does not print the rank count: no busBw without --nranks.
  report::Document osu;
  report::add_peer_import(osu, {{"o.txt", parse_file("local/osu74_allreduce_f.txt")}}, {});
  EXPECT_TRUE(osu.json()["sweeps"][0]["points"][0]["busbw_gbps"].is_null());
  EXPECT_EQ(osu.json()["sweeps"][0]["points"][0]["time_min_us"], 1.06);
}

TEST(PeerBench, ErrorsBecomeFindings) {
  auto codes = [](const report::Document& d) {
    std::vector<std::string> c;
    for (const auto& f : d.json()["findings"]) c.push_back(f["code"].get<std::string>());
    return c;
  };
  {
    report::Document d;
    report::add_peer_import(
        d, {{"e.txt", parse_file("perftest/ib_send_bw_completion_error_softiwarp27.txt")}}, {});
    ASSERT_EQ(codes(d), std::vector<std::string>{"PEER_COMPLETION_ERROR"});
    const auto& ev = d.json()["findings"][0]["evidence"];
    EXPECT_EQ(ev["status"], 12);
    EXPECT_EQ(ev["status_name"], "transport retry counter exceeded");
    EXPECT_TRUE(d.has_fail());
  }
  {
    const auto run = parse_file("constructed/ib_write_bw_failed_status_new.txt");
    ASSERT_EQ(run.errors.size(), 2u);
    EXPECT_EQ(run.errors[1].status, 12);
  }
  {
    // Each completion status has its own remedy: status 4 (local protection) points at the host's
    // registration and GPUDirect path, 12 at the path to the peer; no two statuses perftest can produce share
    // one.
    std::set<std::string> remedies;
    for (int st = 1; st <= 21; ++st) {
      if (st == 3 || st == 14 || st == 15 || st == 17 || st == 18) continue;  // Reliable Datagram only
      report::Document d;
      const std::string text = fmt::format(
          "                    RDMA_Write BW Test\n Completion with error at client\n Failed status {}: "
          "wr_id 0 "
          "syndrom 0x81\n",
          st);
      report::add_peer_import(d, {{"s.txt", parse::parse_peer(text, "perftest-text", "s.txt")}}, {});
      ASSERT_EQ(d.json()["findings"].size(), 1u) << st;
      const auto& f = d.json()["findings"][0];
      EXPECT_EQ(f["evidence"]["status"], st);
      EXPECT_EQ(f["remedy"], f["evidence"]["lines"].back()["remedy"]) << st;
      EXPECT_TRUE(remedies.insert(f["remedy"].get<std::string>()).second)
          << "status " << st << " shares a remedy";
      const std::string remedy = f["remedy"].get<std::string>();
      if (st == 4) {
        EXPECT_NE(remedy.find("GPUDirect"), std::string::npos);
      } else if (st == 12) {
        EXPECT_NE(remedy.find("GID index"), std::string::npos);
      }
    }
  }
  {
    // The real server-side output (oci-k8s-a100-rdma README) cut before its result table, as a server whose
    // client never came leaves it: imported as a failed run (PEER_NO_RESULTS, a fail: exit 1), not refused.
    const std::string full = read_text_file(data("perftest/oci_k8s_a100_ib_write_bw_mofed54_server.txt"));
    const std::string cut = full.substr(0, full.find(" #bytes"));
    const auto run = parse::parse_peer(cut, parse::detect_peer_format(cut), "server.txt");
    ASSERT_EQ(run.errors.size(), 1u);
    EXPECT_EQ(run.errors[0].kind, "no_results");
    EXPECT_NE(run.errors[0].text.find("server side"), std::string::npos) << run.errors[0].text;
    report::Document d;
    report::add_peer_import(d, {{"server.txt", run}}, {});
    EXPECT_EQ(codes(d), std::vector<std::string>{"PEER_NO_RESULTS"});
    EXPECT_TRUE(d.has_fail());
  }
  for (const char* f :
       {"constructed/osu_latency_validation_fail.txt", "constructed/imb_allreduce_check_defects.txt"}) {
    report::Document d;
    report::add_peer_import(d, {{f, parse_file(f)}}, {});
    EXPECT_EQ(codes(d), std::vector<std::string>{"WRONG_DATA"}) << f;
  }
  {
    // A real -DCHECK run (intel/mpi-benchmarks#22, headers written `#- Benchmarking` in the issue): the data
    // check's lines are validation errors, MPICH's abort line a crash, the rows before it are kept exactly.
    const std::string f = "imb/imb_check_reduce_scatter_defects_issue22.txt";
    const auto run = parse_file(f);
    ASSERT_EQ(run.tables.size(), 1u);
    EXPECT_EQ(run.tables[0].test, "Reduce_scatter");
    EXPECT_EQ(run.tables[0].processes, 16);
    ASSERT_EQ(run.tables[0].rows.size(), 2u);
    EXPECT_EQ(run.tables[0].rows[1].size_bytes, 4u);
    EXPECT_EQ(run.tables[0].rows[1].values.at("t_max_us").value, 4.66);
    expect_rows_exact(f, run);
    ASSERT_EQ(run.errors.size(), 2u);  // `Error …,size = 4,sample #0` and its `Got invalid buffer` are one
    EXPECT_EQ(run.errors[0].kind, "validation_error");
    EXPECT_EQ(run.errors[0].line, 8u);  // line 1 is the file's `source:` line
    EXPECT_EQ(run.errors[1].kind, "crash");
    EXPECT_EQ(run.errors[1].line, 16u);
    report::Document d;
    report::add_peer_import(d, {{f, run}}, {});
    const auto c = codes(d);
    ASSERT_FALSE(c.empty());
    EXPECT_EQ(c[0], "WRONG_DATA");
    EXPECT_TRUE(d.has_fail());
  }
  {
    report::Document d;
    report::add_peer_import(d, {{"c.txt", parse_file("constructed/imb_pingpong_crashed.txt")}}, {});
    EXPECT_EQ(codes(d), std::vector<std::string>{"IMPORT_INCOMPLETE"});
  }
  {
    const auto run = parse_file("constructed/ib_write_bw_negative_row.txt");
    EXPECT_EQ(run.tables[0].rows.size(), 1u);
    EXPECT_EQ(run.tables[0].rejected_rows, 1u);
    report::Document d;
    report::add_peer_import(d, {{"n.txt", run}}, {});
    EXPECT_EQ(codes(d), std::vector<std::string>{"IMPORT_ROWS_DROPPED"});
  }
}

TEST(PeerBench, ForeignFilesAreNotPeers) {
  EXPECT_EQ(parse::detect_peer_format(read_text_file(data("constructed/not_a_benchmark.txt"))), "");
  EXPECT_EQ(parse::detect_peer_format(read_text_file(
                std::string(FABCHECK_TEST_DATA) + "/nccl-tests/allreduce_16rank_a100_2node_rdma_v2.13.txt")),
            "");
  // A header without rows and no error line is refused.
  report::Document d;
  EXPECT_THROW(
      report::add_peer_import(d, {{"h.txt", parse::parse_osu_text("# OSU MPI Latency Test v7.4\n")}}, {}),
      UsageError);
}
