#pragma once
// Shared test inputs of the transport tests (analysis/test_transport*.cpp).
#include <string>

#include "fabcheck/report/signature.hpp"

namespace fabcheck::testing_fixtures {

/// A TCP-class MPI signature between two hosts (17 µs at 8 B, 0.9 GB/s), as pairs would measure it.
inline report::MpiSignature tcp_signature(const std::string& a, const std::string& b) {
  report::MpiSignature s;
  s.from_host = a;
  s.to_host = b;
  s.p2p_8b_latency_us = 17.0;
  s.large_msg_bw_gbps = 0.9;
  s.source = "pairs";
  return s;
}

}  // namespace fabcheck::testing_fixtures
