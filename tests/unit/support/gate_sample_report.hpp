#pragma once
// The sample report of the gate tests (analysis/test_gate.cpp, suite/test_gate_round_trip.cpp).
#include <nlohmann/json.hpp>

namespace fabcheck::testing_fixtures {

/// A report in the DESIGN §6 shape with hand-picked numbers.
inline nlohmann::json gate_sample_report() {
  using nlohmann::json;
  return json::parse(R"({
    "schema_version": 1,
    "run": {"status": "complete", "sections": {"sweeps": {"status": "ok", "reason": null}}},
    "topology": {"nranks": 8, "hosts": [{"host": "n1", "ranks": [0, 1]}, {"host": "n2", "ranks": [2, 3]},
                                        {"host": "n3", "ranks": [4, 5]}, {"host": "n4", "ranks": [6, 7]}]},
    "transport": {"verdict": "rdma", "network": "ib_verbs",
                  "per_host": [{"host": "n1", "verdict": "rdma"}, {"host": "n2", "verdict": "socket_fallback"},
                               {"host": "n3", "verdict": "rdma"}, {"host": "n4", "verdict": "rdma"}]},
    "sweeps": [
      {"collective": "allreduce", "dtype": "float", "avg_busbw_gbps": 150.5, "points": [
        {"size_bytes": 1048576, "placement": "out_of_place", "busbw_gbps": 90.0, "wrong": 0},
        {"size_bytes": 1048576, "placement": "in_place", "busbw_gbps": 91.0, "wrong": 0},
        {"size_bytes": 1073741824, "placement": "out_of_place", "busbw_gbps": 180.25, "wrong": 0},
        {"size_bytes": 1073741824, "placement": "in_place", "busbw_gbps": 170.0, "wrong": null}]},
      {"collective": "allgather", "dtype": "float", "avg_busbw_gbps": 120.0, "points": [
        {"size_bytes": 1073741824, "placement": "out_of_place", "busbw_gbps": 160.0, "wrong": 0}]}],
    "latency": [
      {"kind": "p2p", "pattern": "ring", "size_bytes": 8, "p50_us": 2.0, "p99_us": 3.5},
      {"kind": "p2p", "pattern": "ring", "size_bytes": 4096, "p50_us": 4.0, "p99_us": 9.0},
      {"kind": "collective", "pattern": "allreduce", "size_bytes": 8, "p50_us": 12.0, "p99_us": 30.0}],
    "pairs": {"suspects": [{"host": "n2", "links": 3, "confirmed": true}]},
    "score": {"scaling_efficiency": 0.82},
    "findings": [{"severity": "warn", "code": "X"}, {"severity": "info", "code": "Y"}]
  })");
}

}  // namespace fabcheck::testing_fixtures
