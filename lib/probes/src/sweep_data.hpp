#pragma once
/// @file The sweep's exact data check (DESIGN §3 `#wrong`; the input patterns are DataPattern's, sweep.hpp):
/// what each rank writes before a checked call and how many elements of its result differ from the exact
/// expectation, for every dtype (type-erased here; the element types live in sweep_data.cpp).
#include <cstdint>
#include <vector>

#include "fabcheck/comm/backend.hpp"
#include "fabcheck/core/collective.hpp"
#include "fabcheck/probes/sweep.hpp"

namespace fabcheck::probes::detail {

/// Where and what to check on one rank after one call.
struct CheckPlan {
  bool checked = false;      ///< this placement is checked at all (same on every rank)
  std::uint64_t offset = 0;  ///< element offset of the result region in the result buffer
  std::uint64_t elems = 0;   ///< elements to compare on this rank (0: nothing on this rank)
};

/// What this rank checks after one call of `c` (nothing when check_rounds is 0, or in place where nccl-tests
/// does not check).
CheckPlan plan_check(const comm::CollBackend& be, core::Collective c, const core::CollGeometry& g,
                     bool in_place, int rank, int nranks, int root, int check_rounds);

/// Writes this rank's input of one call into `host` (buf_elems elements of `d`, the whole buffer).
void init_input(core::Dtype d, void* host, std::uint64_t buf_elems, core::Collective c,
                const core::CollGeometry& g, bool in_place, const DataPattern& pat, int rank);

/// Elements of the result region `got` (plan.elems of `d`) that differ from the exact expectation (an
/// average of a floating type: from each way in `ariths`, CollBackend::avg_ariths(), by more than 2 ulps on
/// NCCL, at all on MPI).
std::uint64_t count_wrong(core::Dtype d, const void* got, const CheckPlan& plan, core::Collective c,
                          const core::CollGeometry& g, const DataPattern& pat, core::RedOp op, int rank,
                          int nranks, int root, const std::vector<comm::AvgArith>& ariths);

/// FABCHECK_TEST_FAULT corrupt: changes the first k of `elems` elements so that any check sees them.
void corrupt(core::Dtype d, void* got, std::uint64_t elems, std::uint64_t k);

}  // namespace fabcheck::probes::detail
