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

}  // namespace kernel
}  // namespace cvm
