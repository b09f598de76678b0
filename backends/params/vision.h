// POD kernel parameters of the CVM vision family (get_valid_counts, non_max_suppression).
#pragma once

#include <cstdint>

namespace cvm {
namespace kernel {

// "get_valid_counts" (int32): input x (B, N, K); outputs valid_count (B) and y (B, N, K). Rows
// whose score x[b, i, 1] > score_threshold move to the top of y in their original order, the
// other rows of y are -1.
struct GetValidCountsParams {
  int32_t score_threshold;
};

// "non_max_suppression" (int32): inputs data (B, N, 6) with rows [id, score, x1, y1, x2, y2]
// and valid_count (B); output (B, N, 6). `order` is caller-owned scratch of at least N int32
// (the kernel never allocates); it is overwritten.
struct NmsParams {
  int64_t iou_threshold;    // percent, >= 1: drop a box whose IoU with a kept one is >= this
  int32_t force_suppress;   // 0: only boxes of the same id suppress each other
  int32_t top_k;            // < 0: every valid box is a candidate
  int32_t max_output_size;  // < 0: unlimited
  int32_t* order;
};

}  // namespace kernel
}  // namespace cvm
