#pragma once
/// @file Where MPI signatures (report/signature.hpp) come from: the pairs probe's host-leader matrices and
/// the latency probe's 8 B point-to-point pairs. Pure conversions of probe results; no MPI.
#include <vector>

#include "fabcheck/model/latency.hpp"
#include "fabcheck/model/pairs.hpp"
#include "fabcheck/report/signature.hpp"

namespace fabcheck::report {

/// One signature per measured host pair of the host-leader rail (rail 0): latency = lat_p50_us[a][b] (8 B
/// half round trip), bandwidth = the slower of the two directions of bw_gbps (GB/s; one direction alone when
/// only one was measured). Pairs with neither figure are left out. source = "pairs". Empty on ranks other
/// than 0.
std::vector<MpiSignature> signatures_from_pairs(const model::PairsResult& r);

/// One signature per pair of the 8 B point-to-point section whose ends are on different hosts: latency =
/// the pair's p50 (µs); no bandwidth (the latency probe measures none). Empty when the pairs did not cross
/// the fabric (local ranks of one host) or no 8 B p2p section ran. source = "latency".
std::vector<MpiSignature> signatures_from_latency(const model::LatencyResult& r);

}  // namespace fabcheck::report
