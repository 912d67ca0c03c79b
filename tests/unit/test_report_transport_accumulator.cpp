// The transport accumulator (issue 16): every step's evidence joins one input and the verdict is redrawn
// from all of it. The case behind it: `run --backend nccl` on several hosts wrote NCCL's verdict in the
// sweep, then latency/pairs redrew the verdict from the inventory-time input alone and NCCL's evidence was
// lost.
#include <gtest/gtest.h>

#include <string>

#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/report/transport_accumulator.hpp"
#include "transport_fixtures.hpp"

using namespace fabcheck;

namespace {

const std::string kLogs = std::string(FABCHECK_TEST_DATA) + "/nccl-logs";

report::HostRdmaEvidence ib_host(const std::string& h) {
  report::HostRdmaEvidence e;
  e.host = h;
  e.rdma_devices = {"mlx5_0"};
  e.active_ports = 1;
  e.link_layer = "InfiniBand";
  e.rdma_netdevs = {"ib0"};
  e.gdr_module = true;
  e.link_rate_gbit = 100;
  return e;
}

using testing_fixtures::tcp_signature;

int count_source(const report::TransportResult& r, const std::string& src) {
  int n = 0;
  for (const auto& e : r.evidence) n += e.source == src ? 1 : 0;
  return n;
}

}  // namespace

TEST(TransportAccumulator, EmptyUntilEvidence) {
  report::TransportAccumulator acc;
  EXPECT_TRUE(acc.empty());
  acc.add_signatures({});
  EXPECT_TRUE(acc.empty());
  acc.add_inventory({ib_host("a")}, {});
  EXPECT_FALSE(acc.empty());
}

TEST(TransportAccumulator, InventoryThenNcclLogThenSignatureKeepsTheNcclEvidence) {
  const auto log = parse::parse_nccl_log_file(kLogs + "/01-ib-gdrdma-loopback-2.7.6.log");
  // What NCCL's log alone says.
  report::TransportAccumulator nccl_only;
  nccl_only.add_nccl_logs({log}, {}, {"rank 3 wrote no log"});
  const auto from_log = nccl_only.result();
  ASSERT_EQ(from_log.run.network, "ib_verbs");
  ASSERT_EQ(from_log.run.network_source, "nccl_log");

  report::TransportAccumulator acc;
  acc.add_inventory({ib_host("a"), ib_host("b")}, {{"NCCL_DEBUG", "INFO"}});
  const auto after_inventory = acc.result();
  const int nccl_lines_before = count_source(after_inventory, "nccl_log");
  acc.add_nccl_logs({log}, {}, {"rank 3 wrote no log"});
  acc.add_signatures({tcp_signature("a", "b")});
  const auto final_verdict = acc.result();

  // NCCL's own log still decides the network after the signature came in, and its lines and notes are kept.
  EXPECT_EQ(final_verdict.run.network, from_log.run.network);
  EXPECT_EQ(final_verdict.run.network_source, "nccl_log");
  EXPECT_EQ(final_verdict.run.verdict, from_log.run.verdict);
  EXPECT_GT(count_source(final_verdict, "nccl_log"), nccl_lines_before);
  EXPECT_GE(count_source(final_verdict, "nccl_log"), count_source(from_log, "nccl_log") - 1);
  EXPECT_GE(count_source(final_verdict, "signature"), 1);
  EXPECT_GE(count_source(final_verdict, "inventory"), 1);
  bool note = false;
  for (const auto& e : final_verdict.evidence) note = note || e.message == "rank 3 wrote no log";
  EXPECT_TRUE(note);
  ASSERT_EQ(acc.input().nccl_logs.size(), 1u);
  EXPECT_EQ(acc.input().signatures.size(), 1u);
  EXPECT_EQ(acc.input().hosts.size(), 2u);
}

TEST(TransportAccumulator, NcclEnvironmentWinsOverTheLaunchers) {
  report::TransportAccumulator acc;
  acc.add_inventory({}, {{"NCCL_IB_DISABLE", "0"}});
  acc.add_nccl_logs({}, {{"NCCL_IB_DISABLE", "1"}}, {});
  acc.add_inventory({}, {{"NCCL_IB_DISABLE", "0"}});  // a later launcher view does not overwrite NCCL's
  EXPECT_EQ(acc.input().env.at("NCCL_IB_DISABLE"), "1");
}
