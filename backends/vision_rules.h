// The box rule of the CVM vision family (non_max_suppression), shared by the scalar reference
// and the CUDA kernels: the one definition of its integer rounding.
#pragma once

#include <cstdint>

#include "host_device.h"

namespace cvm {
namespace kernel {
namespace vision_rules {

__extension__ typedef __int128 Wide;  // areas of int32 boxes need more than 64 bits

CVM_HOST_DEVICE inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
CVM_HOST_DEVICE inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

// Intersection over union of boxes a and b (x1, y1, x2, y2), in percent, all floored:
// overlap * 100 / union, 0 when the union is <= 0, and overlap / (union / 100) when
// overlap * 100 would overflow int64 (the reference's rounding, spec section 5).
CVM_HOST_DEVICE inline int64_t iou_percent(const int32_t* a, const int32_t* b) {
  const int64_t w = max64(0, min64(a[2], b[2]) - max64(a[0], b[0]));
  const int64_t h = max64(0, min64(a[3], b[3]) - max64(a[1], b[1]));
  const Wide overlap = Wide{w} * h;
  const Wide area_a = Wide{int64_t{a[2]} - a[0]} * (int64_t{a[3]} - a[1]);
  const Wide area_b = Wide{int64_t{b[2]} - b[0]} * (int64_t{b[3]} - b[1]);
  const Wide uni = area_a + area_b - overlap;
  if (uni <= 0) return 0;
  if (overlap > INT64_MAX / 100) {
    const Wide coarse = uni / 100;
    return coarse == 0 ? 0 : static_cast<int64_t>(overlap / coarse);
  }
  return static_cast<int64_t>(overlap * 100 / uni);
}

}  // namespace vision_rules
}  // namespace kernel
}  // namespace cvm
