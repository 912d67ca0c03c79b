// Secret-looking values of recorded variables are redacted before they reach a report; the transport
// variables fabcheck reads keep their values. The environment reader's use of it:
// tests/unit/probes/test_transport_env.cpp.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "fabcheck/core/redact.hpp"

using fabcheck::core::looks_secret;
using fabcheck::core::redact_value;

TEST(Redact, SecretNamesAndValues) {
  EXPECT_TRUE(looks_secret("NCCL_SECRET_TOKEN", "abc"));
  EXPECT_TRUE(looks_secret("UCX_PASSWORD", "hunter2"));
  EXPECT_TRUE(looks_secret("OMPI_MCA_some_token", "x"));
  EXPECT_TRUE(looks_secret("NCCL_PLUGIN_API_KEY", "x"));
  EXPECT_TRUE(looks_secret("NCCL_IB_HCA", "ghp_0123456789abcdefghijABCDEFGHIJ012345"));
  EXPECT_TRUE(looks_secret("OMPI_MCA_foo", "'Bearer eyJhbGciOi.x.y'"));
  EXPECT_TRUE(looks_secret("UCX_X", "AKIAIOSFODNN7EXAMPLE"));
  EXPECT_TRUE(looks_secret("NCCL_X", "-----BEGIN PRIVATE KEY-----"));
  EXPECT_TRUE(looks_secret("NCCL_X", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"));
  EXPECT_EQ(redact_value("NCCL_SECRET_TOKEN", "abc"), "<redacted>");
  // Found by a review: credentials inside a value of a harmless-looking name.
  EXPECT_TRUE(looks_secret("NCCL_IB_HCA", "https://user:hunter2@x.example/mlx5"));
  EXPECT_TRUE(looks_secret("NCCL_SOCKET_IFNAME", "password=hunter2"));
  EXPECT_FALSE(looks_secret("NCCL_NET_PLUGIN", "https://x.example/plugin"));
}

TEST(Redact, TransportSettingsStayReadable) {
  for (const auto& [k, v] :
       std::vector<std::pair<std::string, std::string>>{{"NCCL_IB_HCA", "mlx5_0:1,mlx5_1:1"},
                                                        {"NCCL_IB_PKEY", "0x8001"},
                                                        {"NCCL_SOCKET_IFNAME", "^lo,docker"},
                                                        {"NCCL_IB_GID_INDEX", "3"},
                                                        {"NCCL_NET", "Socket"},
                                                        {"UCX_NET_DEVICES", "mlx5_0:1"},
                                                        {"OMPI_MCA_btl_tcp_if_include", "198.18.0.0/15"},
                                                        {"NCCL_DEBUG", "INFO"}}) {
    EXPECT_FALSE(looks_secret(k, v)) << k << "=" << v;
    EXPECT_EQ(redact_value(k, v), v);
  }
}
