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

TEST(Redact, CampaignCasesThatGotThrough) {
  // Each of these reached JSON, HTML and console before: a PASS word, a bare proxy userinfo, a header
  // inside a value, a long generated key under a harmless name.
  EXPECT_TRUE(looks_secret("NCCL_PROXY_PASS", "hunter2"));
  EXPECT_TRUE(looks_secret("UCX_HTTP_PROXY", "user:pw@proxy.example:3128"));
  EXPECT_TRUE(looks_secret("NCCL_X", "curl -H 'Authorization: Bearer abc'"));
  EXPECT_TRUE(looks_secret("oob_tcp_password", "x"));
  EXPECT_TRUE(looks_secret("pml_ucx_token", "x"));
  EXPECT_TRUE(looks_secret("NCCL_X", "q8ZrT2vLx9KpW4mN7bYc3HdJ"));                  // 24 mixed
  EXPECT_TRUE(looks_secret("NCCL_X", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"));  // 40 hex
  // ...and what must stay readable: the working directory, paths, device lists, GUIDs, a host:port.
  EXPECT_FALSE(looks_secret("PWD", "/tmp/hout"));
  EXPECT_FALSE(looks_secret("NCCL_NET_PLUGIN", "/opt/amazon/ofi-nccl/lib/libnccl-net.so"));
  EXPECT_FALSE(looks_secret("NCCL_COMM_ID", "198.18.0.1:12345"));
  EXPECT_FALSE(looks_secret("OMPI_MCA_orte_precondition_transports", "d58bd734fde28bdd-49044c9274126981"));
  EXPECT_FALSE(looks_secret("NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1"));
  EXPECT_FALSE(looks_secret("NCCL_IB_BYPASS", "1"));  // PASS inside a word is not the word PASS
}

TEST(Redact, CommandLinesLogLinesAndWholeEnvironments) {
  using fabcheck::core::redact_argv;
  using fabcheck::core::redact_env_value;
  using fabcheck::core::redact_text;
  EXPECT_EQ(redact_argv({"fabcheck", "run", "--password", "x", "--token=abc", "-n", "4", "https://u:p@h/x"}),
            (std::vector<std::string>{"fabcheck", "run", "--password", "<redacted>", "--token=<redacted>",
                                      "-n", "4", "<redacted>"}));
  EXPECT_EQ(redact_text("NET/Plugin: proxy http://u:pw@10.0.0.1:3128 failed, NCCL_PROXY_PASS=abc rc 2"),
            "NET/Plugin: proxy <redacted> failed, NCCL_PROXY_PASS=<redacted> rc 2");
  EXPECT_EQ(redact_text("header Authorization: Bearer eyJabc  done"),
            "header Authorization: Bearer <redacted>  done");
  EXPECT_EQ(redact_text("Cookie: abc X-Auth-Token: t0k"), "Cookie: <redacted> X-Auth-Token: <redacted>");
  EXPECT_EQ(redact_text("NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:198.18.0.1<0>"),
            "NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:198.18.0.1<0>");
  EXPECT_EQ(redact_env_value("NCCL_IB_HCA", "mlx5"), "mlx5");
  EXPECT_EQ(redact_env_value("AWS_SECRET_ACCESS_KEY", "x"), "<redacted>");
  EXPECT_EQ(redact_env_value("MY_APP_SETTING", "plain"), "<redacted>");  // not known: value withheld
  EXPECT_EQ(redact_env_value("PATH", "/usr/bin:/bin"), "/usr/bin:/bin");
}
