// Element arithmetic of the NCCL stand-in: NCCL's reductions on the host, for every ncclDataType_t.
#pragma once

#include <nccl.h>

#include <cstddef>
#include <vector>

namespace standin {

/// The device-side reduction NCCL runs for a call (NCCL's enqueue.cc hostToDevRedOp): ncclAvg becomes
/// kSumPostDiv on integer types and a PreMulSum by 1/nranks on floating types; ncclRedOpCreatePreMulSum ops
/// are kSum after each rank premultiplied its own input.
enum class RedKind { kSum, kProd, kMax, kMin, kSumPostDiv };

std::size_t dtype_bytes(ncclDataType_t dt);
bool is_floating(ncclDataType_t dt);

/// out[i] = in[0][i] op in[1][i] op ... in rank order, each step rounded to the type as NCCL's kernels round
/// (half and bfloat16 in their own arithmetic, fp8 through half and back with saturation, as NCCL's
/// FuncSum/FuncProd of __nv_fp8_*); kSumPostDiv divides the sum by `divisor`.
void reduce(ncclDataType_t dt, RedKind op, const std::vector<const char*>& in, char* out, std::size_t count,
            long divisor);

/// p[i] = p[i] * scalar in the type (scalar: one element of dt; for fp8 the product is rounded through half).
void premultiply(ncclDataType_t dt, char* p, std::size_t count, const unsigned char* scalar);

/// 1/nranks as NCCL's ncclAvg scalar of a floating type (float(1.0/n) rounded to the type), as bytes of dt.
void inverse_scalar(ncclDataType_t dt, int nranks, unsigned char* out);

}  // namespace standin
