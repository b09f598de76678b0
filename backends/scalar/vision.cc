// Scalar reference kernels of the CVM vision family: get_valid_counts, non_max_suppression.
#include "params/vision.h"

#include <algorithm>
#include <cstdint>

#include "scalar_kernels.h"
#include "vision_rules.h"

namespace cvm {
namespace kernel {
namespace scalar {
namespace {

// Element [b, i, k] of a 3-D int32 view (any strides).
inline int32_t* cell(const TensorView& v, int64_t b, int64_t i, int64_t k) {
  return static_cast<int32_t*>(v.data) + b * v.strides[0] + i * v.strides[1] + k * v.strides[2];
}

void copy_row(const TensorView& from, int64_t b, int64_t i, const TensorView& to, int64_t j) {
  for (int64_t k = 0; k < from.shape[2]; ++k) *cell(to, b, j, k) = *cell(from, b, i, k);
}

// Rows [first, N) of batch b of `v` become -1.
void invalidate_rows(const TensorView& v, int64_t b, int64_t first) {
  for (int64_t i = first; i < v.shape[1]; ++i) {
    for (int64_t k = 0; k < v.shape[2]; ++k) *cell(v, b, i, k) = -1;
  }
}

using vision_rules::iou_percent;

}  // namespace

KernelStatus get_valid_counts_i32(const KernelCall& call) {
  const auto& p = *static_cast<const GetValidCountsParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& count = call.outputs[0];
  const TensorView& y = call.outputs[1];
  for (int64_t b = 0; b < x.shape[0]; ++b) {
    int64_t kept = 0;
    for (int64_t i = 0; i < x.shape[1]; ++i) {
      if (*cell(x, b, i, 1) > p.score_threshold) copy_row(x, b, i, y, kept++);
    }
    static_cast<int32_t*>(count.data)[b * count.strides[0]] = static_cast<int32_t>(kept);
    invalidate_rows(y, b, kept);
  }
  return KernelStatus::kDone;
}

KernelStatus non_max_suppression_i32(const KernelCall& call) {
  const auto& p = *static_cast<const NmsParams*>(call.params);
  const TensorView& data = call.inputs[0];
  const TensorView& valid_count = call.inputs[1];
  const TensorView& y = call.outputs[0];
  const int64_t n_rows = data.shape[1];
  int32_t* order = p.order;
  for (int64_t b = 0; b < data.shape[0]; ++b) {
    const int64_t vc = static_cast<const int32_t*>(valid_count.data)[b * valid_count.strides[0]];
    const int64_t valid = std::clamp<int64_t>(vc, 0, n_rows);
    // Score descending, ties in row order: a strict total order, so this in-place (allocation
    // free) sort gives exactly the stable sort's result.
    for (int64_t i = 0; i < valid; ++i) order[i] = static_cast<int32_t>(i);
    std::sort(order, order + valid, [&](int32_t i, int32_t j) {
      const int32_t si = *cell(data, b, i, 1), sj = *cell(data, b, j, 1);
      return si != sj ? si > sj : i < j;
    });
    const int64_t candidates = p.top_k < 0 ? valid : std::min<int64_t>(valid, p.top_k);
    const int64_t max_kept =
        p.max_output_size < 0 ? valid : std::min<int64_t>(valid, p.max_output_size);
    int64_t kept = 0;  // kept rows are y[b, 0 .. kept)
    for (int64_t c = 0; c < candidates && kept < max_kept; ++c) {
      int32_t box[6];
      for (int k = 0; k < 6; ++k) box[k] = *cell(data, b, order[c], k);
      if (box[0] < 0) continue;
      bool suppressed = false;
      for (int64_t i = 0; i < kept && !suppressed; ++i) {
        int32_t other[6];
        for (int k = 0; k < 6; ++k) other[k] = *cell(y, b, i, k);
        suppressed = (p.force_suppress || other[0] == box[0]) &&
                     iou_percent(other + 2, box + 2) >= p.iou_threshold;
      }
      if (suppressed) continue;
      for (int k = 0; k < 6; ++k) *cell(y, b, kept, k) = box[k];
      ++kept;
    }
    invalidate_rows(y, b, kept);
  }
  return KernelStatus::kDone;
}

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
