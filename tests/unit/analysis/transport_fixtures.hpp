#pragma once
// Shared test inputs of the transport tests (analysis/test_transport*.cpp,
// parse/test_nccl_log_forms_and_health.cpp).
#include <string>

#include "fabcheck/parse/nccl_log.hpp"
#include "fabcheck/report/signature.hpp"
#include "fabcheck/report/transport.hpp"

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

/// A host whose libibverbs fails (ENOSYS) and whose Open MPI excludes its RDMA components.
inline report::HostRdmaEvidence host_without_rdma(const std::string& h) {
  report::HostRdmaEvidence e;
  e.host = h;
  e.verbs_error = "Function not implemented";
  e.mpi_rdma_excluded = true;
  return e;
}

/// A host with one RDMA device, mlx5_0, and an ACTIVE port on `link_layer`.
inline report::HostRdmaEvidence active_port_host(const std::string& h, const std::string& link_layer) {
  report::HostRdmaEvidence e;
  e.host = h;
  e.rdma_devices = {"mlx5_0"};
  e.active_ports = 1;
  e.link_layer = link_layer;
  return e;
}

/// The transport analysis of one NCCL log and nothing else.
inline report::TransportResult analyze_log(const parse::NcclLog& log) {
  report::TransportInput in;
  in.nccl_logs.push_back(log);
  return report::analyze_transport(in);
}

}  // namespace fabcheck::testing_fixtures
