#pragma once
/// @file `fabcheck nics`: every data NIC of every host against every data NIC of every other
/// host, in the circle schedule of disjoint host pairs (n−1 rounds for even n), over TCP sockets bound to the
/// two interfaces: reachability within a timeout, bandwidth each way, 8 B round-trip latency. Measurement
/// only: returns plain structs, never prints.
#include <optional>
#include <string>
#include <vector>

#include "fabcheck/comm/communicator.hpp"
#include "fabcheck/model/nics.hpp"
#include "fabcheck/model/options_nics.hpp"

namespace fabcheck::probes {

using NicsOptions = model::NicsOptions;

/// Checks option ranges, the --ifaces text, and `--verbs on` in a build without libibverbs. @throws
/// UsageError naming the flag.
void validate(const NicsOptions& opts);

/// Why nics cannot run on this communicator (fewer than two hosts), or nullopt when it can.
std::optional<std::string> nics_skip_reason(const comm::Communicator& comm);

/// This host's IPv4 interfaces that are up (loopback left out), in name order; `data` set where `ifaces`
/// (NCCL_SOCKET_IFNAME syntax) selects the name; speed from /sys/class/net/<if>/speed under `sysfs_root`.
std::vector<model::NicInfo> local_nics(const std::string& ifaces, const std::string& sysfs_root = "/sys");

/// Runs the probe (collective over comm; the host leaders measure, the other ranks wait in sleeping
/// barriers). Per round and direction the client host first connects from each of its data NICs to all of
/// the peer's at once (one timeout per NIC, not per pair), then streams and ping-pongs over each pair that
/// connected, one pair at a time. With retest, each bandwidth-suspect NIC of a rail (core::analyze_links on
/// that rail's host × host matrix) has up to 2 of its flagged links measured twice alone, interleaved with
/// up to 2 reference links of the rail that touch no suspect; a suspect is confirmed when more than half of
/// those re-measurements are still outliers (core::still_outlier) against the worst reference.
/// Then, unless opts.verbs is "off", the RDMA verbs part (src/nics_verbs.cpp with libibverbs, else skipped):
/// every active RDMA port of each scheduled host pair against every port of the other host over RC queue
/// pairs, RDMA WRITE bandwidth and an 8 B WRITE ping-pong (model::NicsResult::verbs; docs/DESIGN.md §5
/// "NICs").
/// @throws UsageError when nics_skip_reason() gives a reason; RuntimeFailure on MPI errors.
model::NicsResult run_nics(const comm::Communicator& comm, const NicsOptions& opts);

}  // namespace fabcheck::probes
