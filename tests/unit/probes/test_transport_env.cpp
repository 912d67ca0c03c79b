// The environment reader of the inventory probe (probes::filter_transport_env) keeps the transport variables
// and redacts secret-looking values with core::redact_value (tests/unit/core/test_redact.cpp), listing which
// names it withheld.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fabcheck/core/redact.hpp"
#include "fabcheck/probes/inventory.hpp"

TEST(Redact, TheEnvironmentReaderRedacts) {
  const auto env = fabcheck::probes::filter_transport_env(
      {"NCCL_IB_HCA=ghp_0123456789abcdefghijABCDEFGHIJ012345", "NCCL_SECRET_TOKEN=s3cr3t", "NCCL_DEBUG=INFO",
       "UCX_PASSWORD=pw", "HOME=/root"});
  EXPECT_EQ(env.at("NCCL_IB_HCA"), "<redacted>");
  EXPECT_EQ(env.at("NCCL_SECRET_TOKEN"), "<redacted>");
  EXPECT_EQ(env.at("UCX_PASSWORD"), "<redacted>");
  EXPECT_EQ(env.at("NCCL_DEBUG"), "INFO");
  EXPECT_EQ(env.count("HOME"), 0u);
  // the report lists which names were withheld (env_redacted), sorted
  EXPECT_EQ(fabcheck::core::redacted_names(env),
            (std::vector<std::string>{"NCCL_IB_HCA", "NCCL_SECRET_TOKEN", "UCX_PASSWORD"}));
}
