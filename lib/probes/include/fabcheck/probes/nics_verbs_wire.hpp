#pragma once
/// @file The wire format of QpInfo (nics_verbs_qp.hpp) that the two host leaders exchange over MPI before
/// connecting their RC queue pairs. One fixed-size message (kQpWireBytes), NUL-padded text so that
/// a mismatch is readable in a debugger:
///   `fabcheck-qp1 qpn=<hex> psn=<hex> lid=<hex> gid=<32 hex> gid_index=<int> mtu=<int> ll=eth|ib rkey=<hex>
///   addr=<hex> len=<int> err=<text to the end>`
/// A side that could not set up its queue pair sends only `fabcheck-qp1 err=<why>`. No verbs headers.
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "fabcheck/probes/nics_verbs_qp.hpp"

namespace fabcheck::probes::rdma {

/// Size of one message: every field at its widest plus an error text of at least 100 characters.
inline constexpr std::size_t kQpWireBytes = 320;

/// The message of `info` (error text cut to fit).
std::array<char, kQpWireBytes> serialize_qp_info(const QpInfo& info);

/// Reads a message back; nullopt with `why` for a message of another format or version, a missing or
/// malformed field, or a value out of range (qpn/psn over 24 bits, an MTU that is not an IB MTU).
std::optional<QpInfo> parse_qp_info(std::string_view wire, std::string& why);

}  // namespace fabcheck::probes::rdma
