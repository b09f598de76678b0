// POD kernel parameters of the CVM elementwise family (clip, cvm_clip, cvm_*_shift).
#pragma once

#include <cstdint>

namespace cvm {
namespace kernel {

// The int32 "clip", "cvm_right_shift" and "cvm_left_shift" kernels: y = clamp(shift(x), lo, hi).
// `shift` (1..32) is ignored by "clip". For the shifts lo = -hi = -α(precision); the op layer
// has validated lo < hi.
struct CvmClampParams {
  int32_t shift;
  int32_t lo;
  int32_t hi;
};

// One element of a CvmClampParams pass as the cvm_right_shift kernel computes it (shift > 0:
// ((x >> (s - 1)) + 1) >> 1 with a wrapping add; shift 0: no shift), then clamped to [lo, hi].
// For kernels that apply a fused clamp as they store (Conv2dParams::clamp, DenseParams::clamp).
inline int32_t apply_clamp_one(int32_t x, const CvmClampParams& c) {
  if (c.shift > 0) {
    x = static_cast<int32_t>(static_cast<uint32_t>(x >> (c.shift - 1)) + 1u) >> 1;
  }
  return x < c.lo ? c.lo : x > c.hi ? c.hi : x;
}

}  // namespace kernel
}  // namespace cvm
